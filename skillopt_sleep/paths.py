"""Where skillopt-sleep keeps its state, config, logs and caches.

Every location comes from platformdirs; ``SKILLOPT_SLEEP_HOME`` overrides all of them at
once (tests point it at a temporary folder), so one variable isolates a whole run; then
platformdirs is not imported at all (it is, on first use, otherwise).
"""

from __future__ import annotations

import os
from pathlib import Path

from skillopt_sleep.errors import StoreError

APP = "skillopt-sleep"
HOME_ENV = "SKILLOPT_SLEEP_HOME"


def _home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def _platform(kind: str) -> Path:
    """platformdirs' ``user_<kind>_dir`` for this application."""
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP))


def config_dir() -> Path:
    home = _home()
    return home / "config" if home else _platform("config")


def state_dir() -> Path:
    home = _home()
    return home / "state" if home else _platform("state")


def cache_dir() -> Path:
    home = _home()
    return home / "cache" if home else _platform("cache")


def log_dir() -> Path:
    home = _home()
    return home / "logs" if home else _platform("log")


def config_file() -> Path:
    return config_dir() / "config.toml"


def archive_path(state: Path | None = None) -> Path:
    return (state or state_dir()) / "archive.sqlite3"


def staging_dir(state: Path | None = None) -> Path:
    return (state or state_dir()) / "nights"


def handoff_dir(state: Path | None = None) -> Path:
    """Where the ``handoff`` backend writes prompts and reads answers (``models.handoff``)."""
    return (state or state_dir()) / "handoff"


def queue_file(state: Path | None = None) -> Path:
    return (state or state_dir()) / "queue" / "sessions.jsonl"


def ensure(path: Path) -> Path:
    """``path`` as a folder, made when missing; ``StoreError`` (one line) when it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder {path}: {exc.strerror or exc}") from exc
    return path


# --- where the agents keep their files (their own variables, not ours) ---------------------


def _agent_home(variable: str, default: str) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else Path.home() / default


def claude_home() -> Path:
    """Claude Code's config dir: ``$CLAUDE_CONFIG_DIR``, default ``~/.claude``."""
    return _agent_home("CLAUDE_CONFIG_DIR", ".claude")


def codex_home() -> Path:
    """Codex's home: ``$CODEX_HOME``, default ``~/.codex``."""
    return _agent_home("CODEX_HOME", ".codex")


def copilot_home() -> Path:
    """Copilot CLI's home: ``$COPILOT_HOME``, default ``~/.copilot``."""
    return _agent_home("COPILOT_HOME", ".copilot")


def agent_skill_roots() -> list[Path]:
    """The user-level skill dirs the agents read: Claude Code's, and ``~/.agents/skills``
    (Codex, Copilot CLI and VS Code). The legacy ``~/.codex/skills`` is deliberately absent."""
    return [claude_home() / "skills", Path.home() / ".agents" / "skills"]
