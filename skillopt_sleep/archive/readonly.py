"""Read-only looks into the archive for processes that must stay light: the idle daemon.

``archive.db.Archive`` opens the file for writing and applies migrations; the daemon,
between nights, only needs to peek. So this module opens the file read-only and imports
nothing but sqlite3 and the standard library (the daemon's idle footprint is checked).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep.errors import StoreError

__all__ = ["count_sessions_since"]

# ``archive.sessions`` stores times in this fixed-width UTC form, so text order is time
# order; it is repeated here because importing that module would load ``archive.db``.
_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def count_sessions_since(path: Path, project: str, since: datetime | None) -> int:
    """Archived sessions of ``project`` that ended after ``since`` (all when None).

    0 when the archive at ``path`` does not exist yet; ``StoreError`` when it cannot be
    read (locked past the timeout, corrupt, older than the sessions table).
    """
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            query = "SELECT COUNT(*) FROM sessions WHERE project = ?"
            args: tuple[str, ...] = (project,)
            if since is not None:
                query += " AND ended_at > ?"
                args = (project, since.astimezone(UTC).strftime(_FORMAT))
            return int(conn.execute(query, args).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as exc:
        # The message alone: the caller logs it as it logged sqlite's own.
        raise StoreError(str(exc)) from exc
