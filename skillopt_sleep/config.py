"""Settings: defaults < user config.toml < project .skillopt-sleep.toml < env < flags.

Every layer is checked against the same schema: an unknown key or a value of the wrong
type is a ``ConfigError`` that names the key and the file it came from — never a silent
default. Environment variables are ``SKILLOPT_SLEEP_<KEY>`` (upper case).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
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
SOURCES = tables.SOURCES.names(plugins=False)
"""The built-in sources, the default of ``sources`` (a plugin's source is enabled by name)."""


@dataclass(frozen=True)
class Settings:
    target: str = "claude-code"
    optimizer: str = "claude-code"
    base_url: str | None = None
    """For every role whose backend takes a base URL, when that is unambiguous."""
    target_base_url: str | None = None
    optimizer_base_url: str | None = None
    judge_base_url: str | None = None
    miner_base_url: str | None = None
    adopt: str = "review"
    sources: tuple[str, ...] = SOURCES
    include_headless: bool = False
    embedder: str = "minilm"
    judge: str = ""
    miner: str = ""
    cache: str = ""
    persona: str = ""
    seed: int = 0
    """Where a project's nights start their sampling; each night adds its rank."""
    steps: int = 3
    val_repeats: int = 3
    alpha: float = 0.05
    margin: float = 0.0
    gate_test: str = "sign"
    no_regression: bool = False
    budget_schedule: str = "cosine"
    concurrency: int = 0
    """Replays a night runs at once; 0: the target backend's default (``Backend.concurrency``)."""
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
    max_usd_per_skill: float = 0.5
    min_family_sessions: int = 2
    family_threshold: float = 0.3
    """Mean cosine a request needs to join a task family: ``mine``, ``tasks`` and the night
    all use it (0.3: precision 0.99, recall 0.93 on tests/data/paraphrases.jsonl)."""
    hour: int = 3
    minute: int = 17
    min_new_sessions: int = 0
    require_ac_power: bool = False
    skill_roots: tuple[str, ...] = ()
    project_roots: bool = False
    pricing: dict[str, dict[str, float]] = field(default_factory=dict)
    projects: dict[str, dict[str, Any]] = field(default_factory=dict)


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


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
    return value


def _validate(values: dict[str, Any]) -> None:
    if values.get("adopt", "review") not in ADOPT_POLICIES:
        raise ConfigError(
            f"adopt must be one of {', '.join(ADOPT_POLICIES)}, not {values['adopt']!r}"
        )
    unknown = [s for s in values.get("sources", ()) if s not in tables.SOURCES]
    if unknown:
        raise ConfigError(f"unknown source(s) {unknown}; known: {tables.SOURCES.valid()}")
    if not 0 <= values.get("hour", 3) <= 23 or not 0 <= values.get("minute", 0) <= 59:
        raise ConfigError("hour must be 0–23 and minute 0–59")
    for key, table in (("gate_test", tables.GATE_TESTS),
                       ("budget_schedule", tables.BUDGET_SCHEDULES)):
        if key in values and values[key] not in table:
            raise ConfigError(f"{key} must be one of {table.valid()}, not {values[key]!r}")
    if values.get("cache", "") not in ("", "record", "replay-only"):
        raise ConfigError(f"cache must be record or replay-only, not {values['cache']!r}")
    if values.get("concurrency", 0) < 0:
        raise ConfigError(f"concurrency must be 1 or more (0: the backend's default), "
                          f"not {values['concurrency']}")
    if not 0 < values.get("alpha", 0.05) < 1:
        raise ConfigError("alpha must be between 0 and 1")
    if not 0 < values.get("family_threshold", 0.3) <= 1:
        raise ConfigError(
            f"family_threshold must be in (0, 1], not {values['family_threshold']!r}")
    for key in ("cross_tasks", "retire_every"):
        if values.get(key, 0) < 0:
            raise ConfigError(f"{key} must be 0 or more, not {values[key]}")
    for key in ("cross_min_sessions", "retire_after"):
        if values.get(key, 1) < 1:
            raise ConfigError(f"{key} must be at least 1, not {values[key]}")
    if values.get("min_family_sessions", 2) < 1:
        raise ConfigError("min_family_sessions must be at least 1")


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
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc


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
    values.update(_layer(from_env, "env SKILLOPT_SLEEP_*"))
    values.update(_layer({k: v for k, v in (flags or {}).items() if v is not None}, "flag"))
    _validate(values)
    return Settings(**values)


def write_user(updates: dict[str, Any]) -> Path:
    """Merge ``updates`` into the user config.toml (validated), and return its path."""
    import tomli_w

    path = paths.config_file()
    current = read_toml(path)
    current.update(updates)
    _layer(current, str(path))
    _validate(current)
    paths.ensure(path.parent)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_bytes(tomli_w.dumps(current).encode("utf-8"))
    os.replace(tmp, path)
    return path
