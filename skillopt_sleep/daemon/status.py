"""``daemon status``: what the daemon will do next and what it did last, from outside it.

Read from the files a running daemon keeps (``status.json``, ``state.json``) and the
config; when no daemon runs, next runs are computed from the config's schedule so the
answer is still useful ("would run at …, but the daemon is not running").

The last night comes from the archive's nights table (what a night did, skill by skill,
whoever ran it: the daemon or ``run``), else from the daemon's own record; the daemon's
record is reported beside it too, because only it knows of nights it skipped.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.daemon.state import DaemonState, read_status, running_pid
from skillopt_sleep.errors import StoreError

__all__ = ["daemon_status"]


def _rss(pid: int | None) -> int | None:
    if not pid or pid < 0:
        return None
    import psutil

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


def _archived_nights(projects: list[str]) -> dict[str, dict[str, Any]]:
    """The latest night of each project in the archive (all its skills), by project key."""
    path = paths.archive_path()
    if not path.exists():  # a status query never creates the archive
        return {}
    from skillopt_sleep.archive.db import Archive

    found: dict[str, dict[str, Any]] = {}
    try:
        archive = Archive(path)
        try:
            for project in projects:
                rows = archive.nights(project, limit=50)
                if rows:
                    found[project] = _night_summary(rows)
        finally:
            archive.close()
    except (StoreError, sqlite3.Error, ValueError, TypeError):
        return found  # unreadable: the daemon's own record stands in
    return found


def _scores(r: Any) -> dict[str, float | None]:
    """A night's scores; none for a night that failed or abstained (it measured nothing)."""
    none = bool(r.failed or r.abstained)
    return {k: None if none else getattr(r, k)
            for k in ("baseline_val", "after_val", "baseline_test", "after_test")}


def _night_summary(rows: list[tuple[str, Any]]) -> dict[str, Any]:
    """One night's rows (newest first, one per skill) as one JSON-ready object."""
    night_id = rows[0][1].night_id
    mine = [(status, r) for status, r in rows if r.night_id == night_id]
    statuses = sorted({status for status, _ in mine})
    ends = [r.ended_at for _, r in mine if r.ended_at]
    starts = [r.started_at for _, r in mine if r.started_at]
    return {
        "from": "archive", "night_id": night_id,
        "status": statuses[0] if len(statuses) == 1 else "+".join(statuses),
        "started_at": min(starts).isoformat() if starts else None,
        "ended_at": max(ends).isoformat() if ends else None,
        "cost_usd": round(sum(r.cost_usd for _, r in mine), 6),
        "why": next((r.failed for status, r in mine if status == "failed" and r.failed), ""),
        "skills": [{"skill": r.skill, "status": status, "accepted": len(r.accepted),
                    **_scores(r),
                    "abstained": r.abstained, "stopped": r.stopped, "failed": r.failed}
                   for status, r in sorted(mine, key=lambda m: m[1].skill)],
    }


def _next_run(hour: int, minute: int, now: datetime) -> str | None:
    """When the schedule fires next (the daemon's own trigger, read without the daemon)."""
    from skillopt_sleep.daemon.next_run import next_run  # apscheduler: only with one enrolled

    return next_run(hour, minute, now)


def schedule(now: datetime | None = None) -> list[dict[str, Any]]:
    """Each enrolled project with its schedule and next run, and whether a daemon serves it:
    what ``status`` shows beside the nights."""
    from skillopt_sleep.daemon.projects import enrolled_projects  # not service: no watcher

    now = now or datetime.now(UTC)
    pid = running_pid()
    snapshot = read_status() if pid else {}
    return [{"project": p.key, "at": f"{p.settings.hour:02d}:{p.settings.minute:02d}",
             "adopt": p.adopt, "daemon_running": pid is not None,
             "next_run": (snapshot.get("next_runs") or {}).get(p.key)
             or _next_run(p.settings.hour, p.settings.minute, now)}
            for p in enrolled_projects()]


def daemon_status(now: datetime | None = None) -> dict[str, Any]:
    """One JSON-ready object: running?, pid, RSS, per-project next run and last night."""
    from skillopt_sleep.daemon.service import enrolled_projects

    now = now or datetime.now(UTC)
    pid = running_pid()
    snapshot = read_status() if pid else {}
    history = DaemonState().projects
    enrolled = enrolled_projects()
    archived = _archived_nights([p.key for p in enrolled])
    projects = []
    for project in enrolled:
        next_run = (snapshot.get("next_runs") or {}).get(project.key) or _next_run(
            project.settings.hour, project.settings.minute, now)
        state = history.get(project.key)
        own = {"from": "daemon", **state.last_result} if state and state.last_result \
            else None
        projects.append({
            "project": project.key, "hour": project.settings.hour,
            "minute": project.settings.minute, "adopt": project.adopt,
            "target": project.settings.target, "optimizer": project.settings.optimizer,
            "next_run": next_run,
            "last_success": state.last_success.isoformat() if state and state.last_success
            else None,
            "last_night": archived.get(project.key) or own,
            "daemon_last_result": own,
        })
    return {
        "running": pid is not None, "pid": pid if pid and pid > 0 else None,
        "rss_bytes": _rss(pid), "started_at": snapshot.get("started_at"),
        "night_running": snapshot.get("running"), "watched": snapshot.get("watched", []),
        "heavy_modules": snapshot.get("heavy_modules", []), "installed": _installed(),
        "log": str(paths.log_dir() / "daemon.log"), "projects": projects,
    }
