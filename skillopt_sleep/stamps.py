"""Stored times as a reader wants them: to the minute, in UTC.

The archive keeps full ISO times (with microseconds) because ordering and the JSON outputs
need them; a line a person reads needs only the minute.
"""

from __future__ import annotations

from datetime import UTC, datetime


def minute(stamp: str) -> str:
    """``2026-11-28 08:35 UTC`` from a stored ISO time; a stamp that is not one, unchanged."""
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:  # stored without a zone: the archive writes UTC
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
