"""Settings: defaults < user config.toml < project .skillopt-sleep.toml < env < flags.

Every layer is checked against the same schema: an unknown key or a value of the wrong
type is a ``ConfigError`` that names the key and the file it came from — never a silent
default. Environment variables are ``SKILLOPT_SLEEP_<KEY>`` (upper case).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillopt_sleep import paths, tables
from skillopt_sleep.errors import ConfigError

PROJECT_FILE = ".skillopt-sleep.toml"
MIN_LIFT = 0.10
"""The proof's required held-out test lift (``prove --assert-improves``); here, below
every stage, so the CLI's help can quote it without loading the night."""
ADOPT_POLICIES = ("review", "auto")
TASK_BUDGET_RANGE = (20, 100_000)
"""Allowed values of ``max_tasks_per_skill`` and ``max_tasks_per_night``: below 20 a split
could not keep the validation tasks a gate needs; there is no "unbounded"."""
SOURCES = tables.SOURCES.names(plugins=False)
"""The built-in sources, the default of ``sources`` (a plugin's source is enabled by name)."""


@dataclass(frozen=True)
class Settings:
    target: str = "claude-code"
    """The model that answers the replayed tasks with the skill in context (a model spec)."""
    optimizer: str = "claude-code"
    """The model that reads the failures and proposes edits (a model spec)."""
    base_url: str | None = None
    """For every role whose backend takes a base URL, when that is unambiguous."""
    target_base_url: str | None = None
    """The target's endpoint (an Anthropic server root or an OpenAI ``…/v1`` base)."""
    optimizer_base_url: str | None = None
    """The optimizer's endpoint."""
    judge_base_url: str | None = None
    """The judge's endpoint, for a ``judge`` model of its own (else the optimizer's)."""
    miner_base_url: str | None = None
    """The miner's endpoint, for a ``miner`` model of its own."""
    adopt: str = "review"
    """``review``: stage each proposal for ``adopt``; ``auto``: write it back at once
    (the daemon's default)."""
    sources: tuple[str, ...] = SOURCES
    """The transcript sources harvested (a row of ``SOURCES``; a plugin's source by name)."""
    include_headless: bool = False
    """Harvest headless sessions too (``claude -p``, ``codex exec``, ``copilot -p``)."""
    embedder: str = "minilm"
    """The sentence embedder the miner uses (a row of ``EMBEDDERS``)."""
    judge: str = ""
    """A model spec for rubric judges (empty: the optimizer judges)."""
    miner: str = ""
    """A model spec that proposes checks per task family (empty: checks come from the
    users' corrections)."""
    cache: str = ""
    """``record``: answer from the record/replay cache and record new answers;
    ``replay-only``: never call a model (empty: no cache)."""
    persona: str = ""
    """The persona the ``simulated`` backend plays (a shipped name or a TOML path)."""
    seed: int = 0
    """Where a project's nights start their sampling; each night adds its rank."""
    steps: int = 3
    """Reflect → gate rounds a night runs."""
    val_repeats: int = 3
    """Times each validation task is sampled per side (more when the split is small)."""
    alpha: float = 0.05
    """The gate's one-sided level (a familiar edit is tested at 0.01)."""
    margin: float = 0.0
    """The mean improvement an edit must beat, beyond noise."""
    gate_test: str = "sequential"
    """The gate's paired test (a row of ``GATE_TESTS``)."""
    no_regression: bool = False
    """Also refuse an edit that makes any validation task worse."""
    budget_schedule: str = "cosine"
    """How many edits each step may keep (a row of ``BUDGET_SCHEDULES``)."""
    test_tasks: int = 48
    """Test tasks a night's report scores at most (0: the whole split; ``night.measure``)."""
    concurrency: int = 0
    """Replays a night runs at once; 0: the target backend's default (``Backend.concurrency``)."""
    cluster: str = ""
    """Where a night's replays run: empty, the night's own threads; ``local:N``, N worker
    processes on this machine; ``tcp://HOST:PORT``, a Dask scheduler's workers (the
    ``cluster`` extra; ``pipeline.cluster``)."""
    cross_tasks: int = 12
    """Train and validation tasks of each neighbouring skill replayed with a candidate beside
    it (0: no cross-skill check)."""
    cross_min_sessions: int = 2
    """Sessions that must load two skills together before they count as neighbours."""
    retire_every: int = 7
    """Every this many nights of a skill, try retiring unused learned entries (0: never)."""
    retire_after: int = 14
    """Nights without a task exercising a learned entry before it is tried for retirement."""
    max_usd_per_night: float = 2.0
    """Dollars a night may spend over all its skills; it stops cleanly at the cap."""
    max_usd_per_skill: float = 0.75
    """Dollars one skill's night may spend."""
    max_tasks_per_skill: int = 120
    """Tasks one skill's night replays at most (``night.task_budget`` chooses which)."""
    max_tasks_per_night: int = 300
    """Tasks a night replays at most over all its skills, shared out among them."""
    min_family_sessions: int = 2
    """Sessions a request family must span to become tasks."""
    family_threshold: float = 0.3
    """Mean cosine a request needs to join a task family: ``mine``, ``tasks`` and the night
    all use it (0.3: precision 0.99, recall 0.93 on tests/data/paraphrases.jsonl)."""
    hour: int = 3
    """The daemon's nightly hour (local time)."""
    minute: int = 17
    """The daemon's nightly minute."""
    min_new_sessions: int = 0
    """The daemon skips a night with fewer new sessions than this."""
    skip_unchanged: bool = True
    """Skip a night when no session, skill or setting changed since the last completed one
    (``pipeline.skip``); ``run --force`` runs it anyway."""
    require_ac_power: bool = False
    """The daemon skips a night on battery."""
    skill_roots: tuple[str, ...] = ()
    """Skill directories to write into instead of the detected agents' (empty: detect)."""
    project_roots: bool = False
    """Also write the project's ``.claude/skills``, ``.agents/skills`` and ``.github/skills``."""
    trigger_check: bool = True
    """Run the trigger check (and the description edit it gates) in each skill's night."""
    pricing: dict[str, dict[str, float]] = field(default_factory=dict)
    """Prices of models the built-in table lacks:
    ``[pricing."openai:m"] input_per_mtok = …, output_per_mtok = …``."""
    projects: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The daemon's enrolled projects (written by ``enroll``), each with the flags it was
    enrolled with."""


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


@dataclass(frozen=True)
class Range:
    """Where a numeric setting may lie: ``low``/``high`` (None: unbounded), each bound
    included unless ``open_low``/``open_high``."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    note: str = ""

    def holds(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.open_low else value < self.low):
            return False
        return self.high is None or (value < self.high if self.open_high else value <= self.high)

    def __str__(self) -> str:
        low, high = _number(self.low), _number(self.high)
        if self.high is None:
            text = f"above {low}" if self.open_low else f"{low} or more"
        elif self.low is None:
            text = f"below {high}" if self.open_high else f"{high} or less"
        else:
            text = f"{'(' if self.open_low else '['}{low}, {high}{')' if self.open_high else ']'}"
        return f"{text}; {self.note}" if self.note else text


def _number(value: float | None) -> str:
    return f"{value:g}" if value is not None else ""


RANGES: dict[str, Range] = {
    "seed": Range(0),
    "steps": Range(1, note="reflect→gate rounds a night runs"),
    "val_repeats": Range(1, note="times each validation task is sampled"),
    "alpha": Range(0, 1, open_low=True, open_high=True),
    "margin": Range(0, 1, open_high=True, note="the improvement an edit must beat"),
    "concurrency": Range(0, note="0: the target backend's default"),
    "test_tasks": Range(0, note="0: score the whole test split"),
    "max_usd_per_night": Range(0),
    "max_usd_per_skill": Range(0),
    "min_family_sessions": Range(1),
    "family_threshold": Range(0, 1, open_low=True),
    "hour": Range(0, 23),
    "minute": Range(0, 59),
    "min_new_sessions": Range(0),
    "max_tasks_per_skill": Range(*TASK_BUDGET_RANGE, note="tasks one skill's night replays"),
    "max_tasks_per_night": Range(*TASK_BUDGET_RANGE, note="tasks a night replays in all"),
    "cross_tasks": Range(0, note="0: no cross-skill check"),
    "retire_every": Range(0, note="0: never retire"),
    "cross_min_sessions": Range(1),
    "retire_after": Range(1),
}
"""Every numeric setting's range, checked in each layer so the error names its file."""


def _coerce(key: str, value: Any, origin: str) -> Any:
    spec = _FIELDS[key]
    factory = spec.default_factory
    default = spec.default if factory is dataclasses.MISSING else factory()
    ok: bool
    if isinstance(default, bool):
        if isinstance(value, str) and origin.startswith("env"):
            value = value.lower() in ("1", "true", "yes", "on")
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        if isinstance(value, str) and origin.startswith("env") and value.lstrip("-").isdigit():
            value = int(value)
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        if isinstance(value, str) and origin.startswith("env"):
            with contextlib.suppress(ValueError):
                value = float(value)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif isinstance(default, dict):
        ok = isinstance(value, dict)
    else:  # str or None
        ok = isinstance(value, str)
    if not ok:
        raise ConfigError(f"{origin}: {key} = {value!r} has the wrong type")
    if (bad := _non_finite(value)) is not None:
        # nan compares false with every bound, so a range alone would let it through.
        raise ConfigError(f"{origin}: {key} holds {bad!r}, not a finite number")
    limits = RANGES.get(key)
    if limits is not None and not limits.holds(value):
        raise ConfigError(f"{origin}: {key} = {value!r} is out of range (allowed: {limits})")
    return value


def _non_finite(value: Any) -> float | None:
    """The first nan or infinity in ``value`` (a number, or a table of them), else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return value
    for item in value.values() if isinstance(value, dict) else ():
        if (bad := _non_finite(item)) is not None:
            return bad
    return None


# --- the cluster setting (``pipeline.cluster`` runs it) --------------------------------

_LOCAL = re.compile(r"local:([1-9][0-9]{0,2})")
_ADDRESS = re.compile(r"(tcp|tls|ws|wss|inproc)://[^\s/]+")


@dataclass(frozen=True)
class Cluster:
    """A parsed ``cluster`` setting: ``workers`` local processes, or a scheduler ``address``."""

    workers: int = 0
    address: str = ""


def parse_cluster(value: str) -> Cluster:
    """``local:N`` or a scheduler address; anything else is a ``ConfigError``."""
    local = _LOCAL.fullmatch(value)
    if local:
        return Cluster(workers=int(local.group(1)))
    if _ADDRESS.fullmatch(value):
        return Cluster(address=value)
    raise ConfigError(f"cluster must be empty, local:N (1-999 worker processes) or a Dask "
                      f"scheduler address such as tcp://HOST:8786, not {value!r}")


def _validate(values: dict[str, Any]) -> None:
    if values.get("adopt", "review") not in ADOPT_POLICIES:
        raise ConfigError(
            f"adopt must be one of {', '.join(ADOPT_POLICIES)}, not {values['adopt']!r}"
        )
    unknown = [s for s in values.get("sources", ()) if s not in tables.SOURCES]
    if unknown:
        raise ConfigError(f"unknown source(s) {unknown}; known: {tables.SOURCES.valid()}")
    for key, table in (("gate_test", tables.GATE_TESTS),
                       ("budget_schedule", tables.BUDGET_SCHEDULES)):
        if key in values and values[key] not in table:
            raise ConfigError(f"{key} must be one of {table.valid()}, not {values[key]!r}")
    if values.get("cache", "") not in ("", "record", "replay-only"):
        raise ConfigError(f"cache must be record or replay-only, not {values['cache']!r}")
    if values.get("cluster"):
        parse_cluster(values["cluster"])


def _layer(data: dict[str, Any], origin: str) -> dict[str, Any]:
    out = {}
    for key, value in data.items():
        if key not in _FIELDS:
            raise ConfigError(
                f"{origin}: unknown key {key!r} (known: {', '.join(sorted(_FIELDS))})"
            )
        out[key] = _coerce(key, value, origin)
    return out


def read_toml(path: Path) -> dict[str, Any]:
    """A config file's table; {} when there is none."""
    try:
        return parse_toml(path)
    except FileNotFoundError:
        return {}


def parse_toml(path: Path, what: str = "") -> dict[str, Any]:
    """A TOML file's table; ``ConfigError`` (one line naming the file) when it cannot be
    read, is not UTF-8 or is not TOML. ``FileNotFoundError`` passes through."""
    name = f"{what} {path}" if what else str(path)
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise ConfigError(f"{name}: not UTF-8 text (byte 0x{byte:02x} at offset {exc.start}); "
                          "save it as UTF-8") from exc
    except OSError as exc:
        raise ConfigError(f"{name}: cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from exc


def load(
    project: Path | None = None,
    flags: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Settings:
    """The effective settings for ``project`` (the cwd's project if None)."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    user_file = paths.config_file()
    values.update(_layer(read_toml(user_file), str(user_file)))
    project_file = (project or Path.cwd()) / PROJECT_FILE
    values.update(_layer(read_toml(project_file), str(project_file)))
    prefix = "SKILLOPT_SLEEP_"
    from_env = {
        k[len(prefix) :].lower(): v
        for k, v in env.items()
        if k.startswith(prefix) and k[len(prefix) :].lower() in _FIELDS
    }
    for key, value in from_env.items():
        values.update(_layer({key: value}, f"env {prefix}{key.upper()}"))
    for key, value in (flags or {}).items():
        if value is not None:
            values.update(_layer({key: value}, f"flag --{key.replace('_', '-')}"))
    _validate(values)
    return Settings(**values)


def write_user(updates: dict[str, Any]) -> Path:
    """Merge ``updates`` into the user config.toml (validated), and return its path.

    The file is edited, not rewritten: the user's comments, key order and formatting
    stay (``tomlkit``). A table in ``updates`` replaces that table's keys, so a key it no
    longer holds (an unenrolled project) goes, and what the table's other keys carry stays.
    """
    import tomlkit

    path = paths.config_file()
    current = read_toml(path)
    current.update(updates)
    _layer(current, str(path))
    _validate(current)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    document = tomlkit.parse(text)
    for key, value in updates.items():
        _merge(document, key, value)
    paths.ensure(path.parent)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_bytes(tomlkit.dumps(document).encode("utf-8"))
    os.replace(tmp, path)
    return path


def _merge(table: Any, key: str, value: Any) -> None:
    """Set ``table[key] = value`` in place, recursing into tables that exist on both sides."""
    existing = table.get(key)
    if not (isinstance(value, dict) and isinstance(existing, dict)):
        table[key] = value
        return
    for gone in [k for k in existing if k not in value]:
        del existing[gone]
    for sub, item in value.items():
        _merge(existing, sub, item)
