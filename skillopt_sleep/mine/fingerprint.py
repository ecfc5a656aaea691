"""What the agent did for a request, as a set of language-free features, and its vector.

A request's words depend on the developer's language and mood; the work the agent did
does not. The fingerprint of a turn is read from its tool calls, as every harvester
records them:

- ``cmd:git commit``, ``cmd:npm run test``, ``cmd:pytest``: each shell command's
  program and subcommand (``commands.commands_of``), never its arguments; commands that
  only look around (``ls``, ``cat``, ``git status``) are ``peek:``, weighed little;
- ``tool:edit``, ``tool:shell``: the tools used, with each agent's names mapped to one
  class (Claude's ``Edit``, Codex's ``apply_patch``, Copilot's ``replace_string_in_file``
  are all edits);
- ``edit:.py``, ``read:.md``: the kinds of files read and changed (created or edited:
  one kind, as agents record creation differently), and ``path:src/api``
  the project-relative folders and ``file:CHANGELOG.md`` the files changed (folders only
  read are left out: fixing the code a test covers reads the test's folder too);
- ``outcome:tests-failed``, ``outcome:build-ok``: what the test and build commands said.

``vector`` hashes the features, weighted by how much they say about the task, into a
fixed number of dimensions; ``Combiner`` puts that vector beside the text's embedding so
one inner product is a weighted sum of text cosine and fingerprint cosine.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

from skillopt_sleep.mine.commands import LOOKS, commands_of, outcome_class
from skillopt_sleep.records import ToolCall

FINGERPRINT_FORM = "act3"
"""Version of the features and their weights; part of the index's space name."""

_TOOL_CLASS: dict[str, tuple[str, ...]] = {
    "shell": ("bash", "shell", "exec_command", "local_shell", "run_in_terminal",
              "runinterminal", "powershell", "terminal", "run_command"),
    "edit": ("edit", "multiedit", "str_replace_editor", "str_replace", "apply_patch",
             "replace_string_in_file", "insert_edit_into_file", "multi_replace_string_in_file",
             "notebookedit", "edit_file", "edit_notebook_file", "texteditgroup"),
    "write": ("write", "create", "create_file", "write_file", "new_file"),
    "read": ("read", "view", "read_file", "open_file", "notebookread", "get_file",
             "copilot_readfile"),
    "search": ("grep", "glob", "ls", "file_search", "grep_search", "semantic_search",
               "list_dir", "search", "find", "codebase_search", "list_files"),
    "web": ("webfetch", "websearch", "fetch", "fetch_webpage", "web_search"),
    "delegate": ("task", "runsubagent", "agent", "dispatch_agent"),
}
TOOL_CLASS = {name: cls for cls, names in _TOOL_CLASS.items() for name in names}
# Bookkeeping tools say nothing about the task: plans, skill loads, questions to the user.
_IGNORED = frozenset({"todowrite", "manage_todo_list", "update_plan", "skill", "think",
                      "exitplanmode", "askuserquestion", "report_intent"})
_PATH_KEYS = ("file_path", "path", "filePath", "target_file", "notebook_path", "filename",
              "file", "uri")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
# Only tokens with a file suffix: "fix/login" and "origin/main" are branches, not files.
_PATH_TOKEN = re.compile(r"(?:^|\s)['\"]?([\w./-]*\w\.[A-Za-z0-9]{1,8})['\"]?(?=\s|$|:)")
_CHANGES = frozenset({"edit", "write"})
_REDIRECT = re.compile(r"(?<![<>&\d])>>?\s*([^\s;&|<>]+)")

WEIGHTS = {"cmd": 1.0, "peek": 0.25, "file": 0.8, "edit": 0.7, "path": 0.5,
           "read": 0.4, "tool": 0.35, "outcome": 0.3, "mcp": 1.0}
"""How much each feature kind says about the task: the command run and the file changed
say most; reading and the bare tool class (nearly every turn reads and edits) least."""


def tool_class(name: str) -> str:
    """The class of a tool (``shell``, ``edit``...); MCP and unknown tools keep their name."""
    key = name.strip().lower()
    if key in TOOL_CLASS:
        return TOOL_CLASS[key]
    return key


def relative(path: str, project: str) -> str:
    """``path`` relative to the project (absolute paths elsewhere keep their last two parts)."""
    clean = path.strip().strip("'\"").removeprefix("file://")
    root = project.rstrip("/") + "/"
    if project and clean.startswith(root):
        return clean[len(root):]
    if clean.startswith(("/", "~")):
        return "/".join(PurePosixPath(clean).parts[-2:])
    return clean.removeprefix("./")


def file_kind(path: str) -> str:
    """``.py``, ``.md``; files without a suffix by name (``Dockerfile``, ``Makefile``)."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix.lower()
    if suffix and len(suffix) <= 9:
        return suffix
    return name.lower().lstrip(".") or "?"


def _paths(call: ToolCall) -> list[str]:
    found = [v for k in _PATH_KEYS if isinstance(v := call.args.get(k), str) and v.strip()]
    for value in call.args.values():
        if isinstance(value, str) and "*** " in value:
            found += _PATCH_FILE.findall(value)
    return found


def _file_features(verb: str, paths: Iterable[str], project: str) -> set[str]:
    # Creating a file and changing one are told apart differently by every agent (Codex
    # adds files through its patch tool, VS Code records only edits): one kind here.
    verb = "edit" if verb == "write" else verb
    out: set[str] = set()
    for raw in paths:
        rel = relative(raw, project)
        if not rel or "SKILL.md" in rel:
            continue
        out.add(f"{verb}:{file_kind(rel)}")
        if verb not in _CHANGES:
            continue  # where the agent looked is context; where it changed things, the task
        folder = str(PurePosixPath(rel).parent)
        if folder not in (".", ""):
            out.add(f"path:{folder}")
        out.add(f"file:{rel}")
    return out


def _shell_features(command: str, ok: bool | None, project: str) -> set[str]:
    out: set[str] = set()
    for cmd in commands_of(command):
        out.add(f"{'peek' if cmd in LOOKS else 'cmd'}:{cmd}")
        outcome = outcome_class(cmd)
        if outcome and ok is not None:
            out.add(f"outcome:{outcome}-{'ok' if ok else 'failed'}")
    if "SKILL.md" not in command:
        head = command.split("\n", 1)[0]  # a here-document's body holds no paths
        paths = [m.group(1) for m in _PATH_TOKEN.finditer(head)]
        found = _file_features("read", paths, project)
        if any(cmd in LOOKS for cmd in commands_of(command)):
            if paths:  # ``cat``/``sed -n`` on a file: how Codex and terminals read files
                out.add("tool:read")
        else:
            found = {f for f in found if not f.startswith("read:")}  # arguments, not reads
        out |= found
        written = [p for p in _REDIRECT.findall(head) if not p.startswith(("/dev/", "&"))]
        out |= _file_features("write", written, project)
    return out


def _shell_command(call: ToolCall) -> str:
    for key in ("command", "cmd", "commandLine", "script", "input"):
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def features(calls: Sequence[ToolCall], project: str) -> list[str]:
    """The fingerprint of one turn's tool calls, sorted (empty when it ran no tool)."""
    out: set[str] = set()
    for call in calls:
        cls = tool_class(call.name)
        if cls in _IGNORED:
            continue
        if cls.startswith("mcp") or "__" in cls:
            out.add(f"mcp:{cls}")
            continue
        out.add(f"tool:{cls}")
        if cls == "shell":
            out |= _shell_features(_shell_command(call), call.ok, project)
        elif cls in ("edit", "write", "read"):
            out |= _file_features(cls, _paths(call), project)
    return sorted(out)


HASHES = 4
"""Buckets each feature is spread over. With one bucket, two features that share it look
identical (at 512 dimensions, 36 of the multilingual set's 158 features did, and
``kubectl apply`` joined ``npm run test``); spread over four, a shared bucket is a quarter
of each, and all four shared is out of reach."""


@functools.lru_cache(maxsize=65536)
def _buckets(feature: str, dim: int) -> tuple[tuple[int, float], ...]:
    """Buckets and signed values of a feature, its weight spread over ``HASHES`` of them:
    signed, so two features that share a bucket cancel as often as they add (an unsigned
    collision would make unrelated work look alike)."""
    # sha1, not hash(): Python's string hash is salted per process.
    digest = hashlib.sha1(feature.encode("utf-8")).digest()
    value = WEIGHTS.get(feature.split(":", 1)[0], 0.3) / HASHES**0.5
    return tuple(
        (int.from_bytes(digest[4 * k : 4 * k + 3], "little") % dim,
         value if digest[16 + k % 4] & 1 else -value)
        for k in range(HASHES))


@dataclass(frozen=True)
class Rarity:
    """How rare each feature is in a sample of the project's own requests: a feature
    nearly every request has (``tool:shell``, ``edit:.py``, the project's test command)
    says less about which task this is than one few have (``file:CHANGELOG.md``). The
    factor is a damped inverse document frequency, ``sqrt(1 + ln((n + 1) / (df + 1)))``:
    1 for a feature in every request, at most ``sqrt(1 + ln(n + 1))`` for one never seen
    in the sample. No table: it is read from the data, in any language."""

    factors: Mapping[str, float]
    unseen: float
    name: str  # identifies the sample (family sums made under another are not reused)

    @classmethod
    def of(cls, sample: Sequence[Sequence[str]], name: str) -> Rarity:
        return cls.counted(Counter(f for feats in sample for f in set(feats)), len(sample), name)

    @classmethod
    def counted(cls, counts: Mapping[str, int], n: int, name: str) -> Rarity:
        """From each feature's count among ``n`` requests."""
        return cls({f: math.sqrt(1 + math.log((n + 1) / (c + 1))) for f, c in counts.items()},
                   math.sqrt(1 + math.log(n + 1)), name)

    def factor(self, feature: str) -> float:
        return self.factors.get(feature, self.unseen)


def vectors(fingerprints: Sequence[Sequence[str]], dim: int = 512,
            rarity: Rarity | None = None) -> np.ndarray:
    """Unit rows of weighted, hashed features (times ``rarity``'s factors, when given); an
    empty fingerprint gives a zero row."""
    out = np.zeros((len(fingerprints), dim), dtype=np.float32)
    for row, feats in enumerate(fingerprints):
        for feature in feats:
            factor = rarity.factor(feature) if rarity is not None else 1.0
            for bucket, value in _buckets(feature, dim):
                out[row, bucket] += value * factor
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=out, where=norms > 0)


class Combiner:
    """Text vector and fingerprint vector side by side, scaled so that the inner product
    of two combined rows is ``text_weight · text cosine + (1 − text_weight) · fingerprint
    cosine``. A request without a fingerprint keeps its text vector alone (unit length),
    so requests that ran no tool are grouped by their words as before. Rows with a
    fingerprint are scaled by ``scale``: two of them must reach ``threshold / scale²``,
    the stricter bar their sharper similarity needs, while text-only pairs keep
    ``threshold``; the inner-product machinery (faiss, group sums) is unchanged."""

    def __init__(self, text_weight: float = 0.0, dim: int = 512, scale: float = 1.0,
                 rarity: Rarity | None = None):
        self.text_weight = text_weight
        self.dim = dim
        self.scale = scale  # of rows with a fingerprint: see ``FamilySettings.action_threshold``
        self.rarity = rarity
        self._memo: dict[str, np.ndarray] = {}

    @property
    def name(self) -> str:
        rarity = f"r{self.rarity.name}" if self.rarity is not None else ""
        return (f"{FINGERPRINT_FORM}w{round(self.text_weight * 100)}d{self.dim}"
                f"s{round(self.scale * 1000)}{rarity}")

    def with_rarity(self, rarity: Rarity | None) -> Combiner:
        """The same combination with ``rarity``'s factors (a fresh memo)."""
        return Combiner(self.text_weight, self.dim, self.scale, rarity)

    def work_cosine(self, a: np.ndarray, a_size: int, b: np.ndarray, b_size: int) -> float:
        """Mean fingerprint cosine between two groups kept as sums of combined rows (sizes
        ``a_size``, ``b_size``); members without a fingerprint count as 0."""
        share = (1.0 - self.text_weight) * self.scale**2
        if share <= 0 or not a_size or not b_size:
            return 0.0
        acts = float(a[-self.dim :] @ b[-self.dim :])
        return acts / (share * a_size * b_size)

    def has_work(self, total: np.ndarray) -> bool:
        """Whether a group's sum holds any fingerprint (some member ran a tool)."""
        return bool(np.any(total[-self.dim :]))

    def combine_stored(self, text: np.ndarray, stored: Sequence[str]) -> np.ndarray:
        """``combine`` with fingerprints as the archive keeps them (JSON lists); each
        distinct one is hashed once per ``Combiner`` (tasks repeat their fingerprints,
        and a pass reads the pending pool's again)."""
        missing = [a for a in dict.fromkeys(stored) if a not in self._memo]
        if missing:
            fresh = vectors([json.loads(a) for a in missing], self.dim, self.rarity)
            self._memo.update(zip(missing, fresh, strict=True))
        acts = (np.stack([self._memo[a] for a in stored]) if stored
                else np.zeros((0, self.dim), dtype=np.float32))
        return self._join(text, acts)

    def combine(self, text: np.ndarray, fingerprints: Sequence[Sequence[str]]) -> np.ndarray:
        return self._join(text, vectors(fingerprints, self.dim, self.rarity))

    def _join(self, text: np.ndarray, acts: np.ndarray) -> np.ndarray:
        has = np.linalg.norm(acts, axis=1) > 0
        scale_text = np.where(has, np.sqrt(self.text_weight) * self.scale, 1.0)
        scale_acts = np.where(has, np.sqrt(1.0 - self.text_weight) * self.scale, 0.0)
        return np.hstack([text * scale_text[:, None].astype(np.float32),
                          acts * scale_acts[:, None].astype(np.float32)]).astype(np.float32)
