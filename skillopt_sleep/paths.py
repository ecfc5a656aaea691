"""Where skillopt-sleep keeps its state, config, logs and caches.

Every location comes from platformdirs; ``SKILLOPT_SLEEP_HOME`` overrides all of them at
once (tests point it at a temporary folder), so one variable isolates a whole run.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "skillopt-sleep"
HOME_ENV = "SKILLOPT_SLEEP_HOME"


def _home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    home = _home()
    return home / "config" if home else Path(platformdirs.user_config_dir(APP))


def state_dir() -> Path:
    home = _home()
    return home / "state" if home else Path(platformdirs.user_state_dir(APP))


def cache_dir() -> Path:
    home = _home()
    return home / "cache" if home else Path(platformdirs.user_cache_dir(APP))


def log_dir() -> Path:
    home = _home()
    return home / "logs" if home else Path(platformdirs.user_log_dir(APP))


def config_file() -> Path:
    return config_dir() / "config.toml"


def archive_path(state: Path | None = None) -> Path:
    return (state or state_dir()) / "archive.sqlite3"


def staging_dir(state: Path | None = None) -> Path:
    return (state or state_dir()) / "nights"


def queue_file(state: Path | None = None) -> Path:
    return (state or state_dir()) / "queue" / "sessions.jsonl"


def ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
