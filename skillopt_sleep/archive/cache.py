"""The record/replay store of model completions: its own SQLite file in the cache dir.

It is not part of ``archive.sqlite3``: it has its own file (by default in the user cache
dir), holds no migrations, and is keyed by the call keys ``models.cache`` computes. WAL
mode makes it safe for the threads of a night and for concurrent processes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Literal

from skillopt_sleep import paths
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import Completion, from_dict, to_dict, utcnow

__all__ = ["MODES", "Cache", "Mode"]

Mode = Literal["record", "replay-only"]
MODES: tuple[Mode, ...] = ("record", "replay-only")


class Cache:
    """The store of recorded completions. ``path`` defaults to the user cache dir."""

    def __init__(self, path: Path | None = None, mode: str = "record"):
        if mode not in MODES:
            raise ConfigError(f"cache mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode: Mode = mode
        self.path = path or paths.cache_dir() / "model-calls.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, spec TEXT NOT NULL,"
            " completion_json TEXT NOT NULL, created_at TEXT NOT NULL)"
        )

    def __reduce__(self) -> tuple[object, ...]:
        # A worker process (a night's replays on a cluster) opens the same file by its path:
        # a connection and a lock do not travel.
        return _opened, (self.path, self.mode)

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT completion_json FROM calls WHERE key = ?", (key,)).fetchone()
        return from_dict(Completion, json.loads(row[0])) if row else None

    def put(self, key: str, spec: str, completion: Completion) -> None:
        data = json.dumps(to_dict(completion))
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?)",
                               (key, spec, data, utcnow().isoformat()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


_OPENED: dict[tuple[Path, str], Cache] = {}


def _opened(path: Path, mode: str) -> Cache:
    """The cache at ``path`` as this process has it open: each replay sent to a worker
    carries the cache again, and its copies share one connection there."""
    key = (path, mode)
    if key not in _OPENED:
        _OPENED[key] = Cache(path, mode)
    return _OPENED[key]
