"""What the daemon remembers between starts, what it tells ``daemon status``, and its pid lock.

Two small JSON files in ``<state dir>/daemon/``: ``state.json`` (per project: the last
successful night, the last attempt, the last result) survives restarts and drives the
catch-up; ``status.json`` is a snapshot a running daemon rewrites (next runs, watched
folders, pid) so another process can report on it without talking to it.

One daemon per state dir: ``filelock`` holds an OS lock that dies with its process, so a
crashed daemon never blocks the next one; the pid file beside it names the holder in the
message the second daemon prints, and a pid file whose process is gone is reported stale.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import LockHeld

__all__ = ["DaemonLock", "DaemonState", "ProjectState", "daemon_dir", "read_status",
           "running_pid", "write_status"]


def daemon_dir(state: Path | None = None) -> Path:
    return (state or paths.state_dir()) / "daemon"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _dt(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


@dataclass
class ProjectState:
    first_seen: datetime | None = None
    last_success: datetime | None = None
    last_attempt: datetime | None = None
    last_result: dict[str, Any] = field(default_factory=dict)


class DaemonState:
    """``state.json``: per-project night history. Thread-safe; every change is saved at once."""

    def __init__(self, path: Path | None = None):
        self.path = path or daemon_dir() / "state.json"
        self._lock = threading.Lock()
        self.projects: dict[str, ProjectState] = {}
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # a missing or damaged file means "no history": the worst case is a catch-up
        for key, raw in (data.get("projects") or {}).items():
            if isinstance(raw, dict):
                self.projects[key] = ProjectState(
                    _dt(raw.get("first_seen")), _dt(raw.get("last_success")),
                    _dt(raw.get("last_attempt")), raw.get("last_result") or {})

    def get(self, key: str, now: datetime) -> ProjectState:
        with self._lock:
            if key not in self.projects:
                self.projects[key] = ProjectState(first_seen=now)
                self._save()
            return self.projects[key]

    def update(self, key: str, **changes: Any) -> None:
        with self._lock:
            project = self.projects.setdefault(key, ProjectState())
            for name, value in changes.items():
                setattr(project, name, value)
            self._save()

    def _save(self) -> None:
        data = {"projects": {
            key: {**{k: _iso(v) if isinstance(v, datetime) else v
                     for k, v in asdict(p).items()}}
            for key, p in self.projects.items()
        }}
        paths.ensure(self.path.parent)
        write_atomic(self.path, json.dumps(data, indent=1, default=str).encode("utf-8"))


def write_status(snapshot: dict[str, Any], state: Path | None = None) -> None:
    folder = paths.ensure(daemon_dir(state))
    write_atomic(folder / "status.json", json.dumps(snapshot, indent=1, default=str).encode())


def read_status(state: Path | None = None) -> dict[str, Any]:
    try:
        data = json.loads((daemon_dir(state) / "status.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def running_pid(state: Path | None = None) -> int | None:
    """The pid of the daemon holding the lock, or None when no daemon runs."""
    folder = daemon_dir(state)
    if not (folder / "daemon.lock").exists():
        return None
    from filelock import FileLock, Timeout  # here: status pays for it only when a lock exists

    probe = FileLock(str(folder / "daemon.lock"), timeout=0)
    try:
        probe.acquire()
    except Timeout:
        return _pid_in(folder / "daemon.pid") or -1
    probe.release()
    return None


class DaemonLock:
    """The one-daemon-per-user lock. ``acquire`` raises ``LockHeld`` with the holder's pid."""

    def __init__(self, state: Path | None = None):
        self.folder = daemon_dir(state)
        self.pid_file = self.folder / "daemon.pid"
        from filelock import FileLock

        self._lock = FileLock(str(self.folder / "daemon.lock"), timeout=0)
        self.stale_pid: int | None = None

    def acquire(self) -> None:
        import psutil
        from filelock import Timeout

        paths.ensure(self.folder)
        try:
            self._lock.acquire()
        except Timeout:
            holder = self._holder()
            who = f" (pid {holder})" if holder else ""
            raise LockHeld(
                f"a skillopt-sleep daemon is already running for {self.folder.parent}{who};"
                " stop it first (daemon uninstall, or kill that pid), or check it with"
                " `skillopt-sleep daemon status`") from None
        previous = _pid_in(self.pid_file)
        if previous and previous != os.getpid() and not psutil.pid_exists(previous):
            self.stale_pid = previous  # a daemon that died without cleaning up
        write_atomic(self.pid_file, str(os.getpid()).encode())

    def _holder(self, patience: float = 1.0) -> int | None:
        """The holder's pid. It writes its pid file just after taking the lock, so a daemon
        started at the same moment may look in between: wait a little for a live pid."""
        import psutil

        deadline = time.monotonic() + patience
        while True:
            pid = _pid_in(self.pid_file)
            if (pid and psutil.pid_exists(pid)) or time.monotonic() >= deadline:
                return pid
            time.sleep(0.02)

    def release(self) -> None:
        if self._lock.is_locked:
            self.pid_file.unlink(missing_ok=True)
            self._lock.release()

    def __enter__(self) -> DaemonLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
