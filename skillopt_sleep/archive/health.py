"""Whether the archive is sound, for ``doctor``: SQLite's integrity check and the schema
version, read without writing a byte (the file is opened read-only and never migrated)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import applied_migrations, refuse_lost, refuse_newer
from skillopt_sleep.archive.migrations import known as known_migrations
from skillopt_sleep.errors import StoreError

__all__ = ["ArchiveHealth", "check"]


@dataclass(frozen=True)
class ArchiveHealth:
    """``status`` is ``ok``, ``absent`` (no archive yet: fine) or ``error: …``."""

    path: str
    status: str
    schema: int | None = None
    known: int = 0

    @property
    def failing(self) -> bool:
        return self.status.startswith("error")


def check(path: Path) -> ArchiveHealth:
    """``PRAGMA integrity_check`` and the schema version of the archive at ``path``."""
    known = max(number for number, _ in known_migrations())
    try:
        refuse_lost(path)  # 0 bytes, or gone where one existed: a lost history
    except StoreError as exc:
        return ArchiveHealth(str(path), f"error: {exc}", None, known)
    if not path.exists():
        return ArchiveHealth(str(path), "absent", None, known)
    schema: int | None = None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
            if rows != ["ok"]:
                found = " ".join("; ".join(rows).replace("*** in database main ***", "").split())
                return ArchiveHealth(str(path), f"error: damaged: {found}", None, known)
            applied = applied_migrations(conn)
            schema = max(applied) if applied else None
            refuse_newer(path, applied)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return ArchiveHealth(str(path), f"error: damaged: {exc}", schema, known)
    except StoreError as exc:
        return ArchiveHealth(str(path), f"error: {exc}", schema, known)
    return ArchiveHealth(str(path), "ok", schema, known)

