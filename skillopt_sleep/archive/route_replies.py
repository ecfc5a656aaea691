"""Queries on the stored routing replies (``m0017_route_replies``): what a project's
earlier nights asked the target in their trigger checks, for the next nights to reuse
instead of asking again while no installed description changed.

A reply is kept by the exact call's key and reused for that call only; one older than
``MAX_AGE_DAYS`` is neither reused nor kept, so a model updated under the same name is
asked again within a week. Failed calls are never stored (``trigger.RouteAnswers``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import utcnow
from skillopt_sleep.secrets import redact

__all__ = ["MAX_AGE_DAYS", "keep", "stored"]

MAX_AGE_DAYS = 7
"""How long a stored routing reply is reused: a week of nights, then routing is asked
afresh (a model alias can move to a new version under the same name)."""


def _oldest(now: datetime | None) -> str:
    return ((now or utcnow()) - timedelta(days=MAX_AGE_DAYS)).isoformat()


def stored(archive: Archive, project: str, now: datetime | None = None) -> dict[str, str]:
    """The young replies of ``project``'s earlier nights, by call key."""
    rows = archive.conn.execute(
        "SELECT key, reply FROM route_replies WHERE project = ? AND stored_at >= ?",
        (project, _oldest(now))).fetchall()
    return {key: reply for key, reply in rows}


def keep(archive: Archive, project: str, replies: Mapping[str, str],
         now: datetime | None = None) -> None:
    """Store tonight's new ``replies`` of ``project`` and drop the ones too old to reuse."""
    at = (now or utcnow()).isoformat()
    rows = [(project, key, redact(reply)[0], at) for key, reply in replies.items()]
    with archive.transaction() as conn:
        conn.execute("DELETE FROM route_replies WHERE project = ? AND stored_at < ?",
                     (project, _oldest(now)))
        conn.executemany("INSERT OR REPLACE INTO route_replies (project, key, reply,"
                         " stored_at) VALUES (?,?,?,?)", rows)
