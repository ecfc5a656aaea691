"""``daemon status``: what the daemon will do next and what it did last, from outside it.

Read from the files a running daemon keeps (``status.json``, ``state.json``) and the
config; when no daemon runs, next runs are computed from the config's schedule so the
answer is still useful ("would run at …, but the daemon is not running").
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import psutil
from apscheduler.triggers.cron import CronTrigger

from .. import paths
from .state import DaemonState, read_status, running_pid

__all__ = ["daemon_status"]


def _rss(pid: int | None) -> int | None:
    if not pid or pid < 0:
        return None
    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (psutil.Error, OSError):
        return None


def _installed() -> dict[str, Any] | None:
    try:
        data = json.loads((paths.config_dir() / "daemon-install.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return {"kind": data.get("kind"), "path": data.get("path")} if isinstance(data, dict) \
        else None


def daemon_status(now: datetime | None = None) -> dict[str, Any]:
    """One JSON-ready object: running?, pid, RSS, per-project next run and last night."""
    from .service import enrolled_projects

    now = now or datetime.now(UTC)
    pid = running_pid()
    snapshot = read_status() if pid else {}
    history = DaemonState().projects
    projects = []
    for project in enrolled_projects():
        next_run = (snapshot.get("next_runs") or {}).get(project.key)
        if next_run is None:
            trigger = CronTrigger(hour=project.settings.hour, minute=project.settings.minute)
            fire = trigger.get_next_fire_time(None, now.astimezone(trigger.timezone))
            next_run = fire.isoformat() if fire else None
        state = history.get(project.key)
        projects.append({
            "project": project.key, "hour": project.settings.hour,
            "minute": project.settings.minute, "adopt": project.adopt,
            "target": project.settings.target, "optimizer": project.settings.optimizer,
            "next_run": next_run,
            "last_success": state.last_success.isoformat() if state and state.last_success
            else None,
            "last_night": state.last_result if state else None,
        })
    return {
        "running": pid is not None, "pid": pid if pid and pid > 0 else None,
        "rss_bytes": _rss(pid), "started_at": snapshot.get("started_at"),
        "night_running": snapshot.get("running"), "watched": snapshot.get("watched", []),
        "heavy_modules": snapshot.get("heavy_modules", []), "installed": _installed(),
        "log": str(paths.log_dir() / "daemon.log"), "projects": projects,
    }
