"""Queries on ``night_inputs`` (``m0013_night_inputs``): what a project's last completed
night was made of, and the newest run that stopped because nothing had changed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import utcnow

__all__ = ["NightInputsRow", "last_inputs", "mining_mark", "record_skip", "save_inputs",
           "session_mark", "skipped_runs"]


@dataclass(frozen=True)
class NightInputsRow:
    project: str
    fingerprint: dict[str, Any]
    night_id: str
    recorded_at: str
    skipped_at: str | None = None
    skip_reason: str | None = None


_COLUMNS = "project, fingerprint, night_id, recorded_at, skipped_at, skip_reason"


def _row(r: tuple[Any, ...]) -> NightInputsRow:
    return NightInputsRow(r[0], json.loads(r[1]), r[2], r[3], r[4], r[5])


def last_inputs(archive: Archive, project: str) -> NightInputsRow | None:
    r = archive.conn.execute(
        f"SELECT {_COLUMNS} FROM night_inputs WHERE project = ?", (project,)).fetchone()
    return _row(r) if r else None


def save_inputs(archive: Archive, project: str, fingerprint: dict[str, Any],
                night_id: str) -> None:
    """Record what tonight's completed night was made of (clears an earlier skip)."""
    with archive.transaction() as conn:
        conn.execute(
            f"INSERT OR REPLACE INTO night_inputs ({_COLUMNS}) VALUES (?,?,?,?,NULL,NULL)",
            (project, json.dumps(fingerprint, sort_keys=True), night_id,
             utcnow().isoformat()))


def record_skip(archive: Archive, project: str, reason: str) -> None:
    with archive.transaction() as conn:
        conn.execute("UPDATE night_inputs SET skipped_at = ?, skip_reason = ? WHERE project = ?",
                     (utcnow().isoformat(), reason, project))


def skipped_runs(archive: Archive) -> list[NightInputsRow]:
    """Projects whose newest run stopped because nothing had changed, newest first."""
    rows = archive.conn.execute(
        f"SELECT {_COLUMNS} FROM night_inputs WHERE skipped_at IS NOT NULL"
        " ORDER BY skipped_at DESC").fetchall()
    return [_row(r) for r in rows]


def session_mark(archive: Archive, project: str, include_headless: bool) -> list[Any]:
    """How many sessions of ``project`` are archived and when the newest was harvested: a
    session added or re-read (a grown file) changes it. One indexed query, no session read."""
    query = "SELECT COUNT(*), MAX(harvested_at) FROM sessions WHERE project = ?"
    if not include_headless:
        query += " AND headless = 0"
    count, newest = archive.conn.execute(query, (project,)).fetchone()
    return [int(count), newest]


def mining_mark(archive: Archive, project: str) -> list[Any]:
    """Where the project's mining stands: the newest request taken in, how many families,
    when a task was last built. ``mine --requests`` or ``tasks`` between two nights
    changes it. Indexed queries over the project's rows, nothing decoded."""
    newest = archive.conn.execute(
        "SELECT MAX(seq) FROM mined_requests WHERE project = ?", (project,)).fetchone()[0]
    families = archive.conn.execute(
        "SELECT COUNT(*) FROM families WHERE project = ?", (project,)).fetchone()[0]
    built = archive.conn.execute(
        "SELECT MAX(updated_at) FROM tasks WHERE project = ?", (project,)).fetchone()[0]
    return [newest, int(families), built]
