"""The SQLite archive in the state dir: one file, numbered migrations, WAL journal.

This module owns the connection and the core tables (nights, rejected-edit buffer, meta
notes). Every other table's queries live beside it in this package, one module per
table group (sessions, mining, versions, vectors, calls), so no SQL is written outside
``archive/``; tables are added only through new migrations.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep import records
from skillopt_sleep._codec import from_dict, to_dict
from skillopt_sleep.archive.migrations import known as known_migrations
from skillopt_sleep.archive.migrations import migrations
from skillopt_sleep.errors import StoreError
from skillopt_sleep.records.common import utcnow
from skillopt_sleep.secrets import redact_tree

if TYPE_CHECKING:  # the night's records load when a night is read (``records``)
    from skillopt_sleep.records import GateDecision, NightResult


class Archive:
    """A handle on ``archive.sqlite3``. Safe to share between threads of one process."""

    def __init__(self, path: Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"the state dir {path.parent} cannot be created: "
                             f"{exc.strerror or exc}") from exc
        refuse_lost(path)
        try:
            self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA busy_timeout=10000")
            # Before anything is written (the WAL switch is a write): an archive from a newer
            # version is refused as it is, never migrated down.
            applied = applied_migrations(self.conn)
            refuse_newer(path, applied)
            _use_wal(self.conn)
            self.conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise StoreError(_why(exc, path)) from exc
        except StoreError:
            self.conn.close()
            raise
        self._lock = threading.RLock()
        self._migrate(applied)
        _remember(path)

    def verify(self) -> None:
        """Refuse a damaged archive before a command writes to it. ``PRAGMA quick_check``
        reads every page: 0.34 s for a 200 MB archive (experiments/archive_check_bench.py)."""
        try:
            rows = [r[0] for r in self.conn.execute("PRAGMA quick_check(1)")]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        if rows != ["ok"]:
            raise StoreError(damaged(self.path, rows[0]))

    def copy_to(self, path: Path) -> Archive:
        """A consistent copy of the whole archive at ``path`` (SQLite's online backup, so a
        night writing at the same time is never half copied), opened."""
        target = sqlite3.connect(path)
        try:
            self.conn.backup(target)
        finally:
            target.close()
        return Archive(path)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _migrate(self, applied: dict[int, str]) -> None:
        """Apply pending migrations, each in its own write transaction.

        Which migrations ran is re-read inside ``BEGIN IMMEDIATE``, so two processes opening
        a fresh archive at once (the daemon and a ``run``) never apply one twice.
        """
        try:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (number INTEGER PRIMARY KEY, name TEXT)"
            )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"archive {self.path} is corrupt: {exc}") from exc
        for number, name, sql in migrations(skip=set(applied)):
            if number in applied:
                continue
            with self.transaction() as conn:
                done = conn.execute(
                    "SELECT 1 FROM schema_version WHERE number = ?", (number,)
                ).fetchone()
                if done:
                    continue
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version VALUES (?, ?)", (number, name))

    # --- nights -------------------------------------------------------------------------

    def record_night(self, result: NightResult, status: str) -> None:
        data = json.dumps(night_row(result))
        started = (result.started_at or utcnow()).isoformat()
        ended = result.ended_at.isoformat() if result.ended_at else None
        # One night trains several skills: the row key is "<night id>:<skill>".
        key = f"{result.night_id}:{result.skill}"
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO nights VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, result.project, result.skill, started, ended, status, data),
            )

    def nights(self, project: str | None = None, limit: int = 50) -> list[tuple[str, NightResult]]:
        query = "SELECT status, result_json FROM nights"
        args: tuple[str, ...] = ()
        if project is not None:
            query += " WHERE project = ?"
            args = (project,)
        query += " ORDER BY started_at DESC LIMIT ?"
        rows = self.conn.execute(query, (*args, limit)).fetchall()
        return [(status, from_dict(records.NightResult, json.loads(data)))
                for status, data in rows]

    def last_night(self, project: str, skill: str) -> NightResult | None:
        """The newest night of ``project`` that trained ``skill`` (None: none yet)."""
        row = self.conn.execute(
            "SELECT result_json FROM nights WHERE project = ? AND skill = ?"
            " ORDER BY started_at DESC LIMIT 1", (project, skill)).fetchone()
        return from_dict(records.NightResult, json.loads(row[0])) if row else None

    def count_nights(self, project: str, skill: str) -> int:
        """How many nights of ``project`` trained ``skill`` (a count; no result is decoded)."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM nights WHERE project = ? AND skill = ?", (project, skill)
        ).fetchone()
        return int(row[0])

    # --- rejected-edit buffer -----------------------------------------------------------

    def add_rejected(self, project: str, skill: str, night_id: str, d: GateDecision) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO rejected_edits (project, skill, edit_id, night_id, stage, reason,"
                " mean_delta, p_value, edit_json, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    project,
                    skill,
                    d.edit.id,
                    night_id,
                    d.stage,
                    d.reason,
                    d.mean_delta,
                    d.p_value,
                    json.dumps(to_dict(d.edit)),
                    utcnow().isoformat(),
                ),
            )

    def rejected(self, project: str, skill: str, limit: int = 40) -> list[GateDecision]:
        rows = self.conn.execute(
            "SELECT edit_json, stage, reason, mean_delta, p_value FROM rejected_edits"
            " WHERE project = ? AND skill = ? ORDER BY id DESC LIMIT ?",
            (project, skill, limit),
        ).fetchall()
        return [
            records.GateDecision(
                edit=from_dict(records.Edit, json.loads(e)),
                accepted=False,
                stage=stage,
                reason=reason,
                mean_delta=delta or 0.0,
                p_value=p if p is not None else 1.0,
            )
            for e, stage, reason, delta, p in rows
        ]

    # --- meta notes ---------------------------------------------------------------------

    def add_meta_note(self, project: str, skill: str, night_id: str, note: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta_notes (project, skill, night_id, note, created_at)"
                " VALUES (?,?,?,?,?)",
                (project, skill, night_id, note, utcnow().isoformat()),
            )

    def meta_notes(self, project: str, skill: str, limit: int = 10) -> list[str]:
        rows = self.conn.execute(
            "SELECT note FROM meta_notes WHERE project = ? AND skill = ? ORDER BY id DESC LIMIT ?",
            (project, skill, limit),
        ).fetchall()
        return [r[0] for r in rows]


_EXACT = ("skill_before", "skill_after")
"""A night's skill texts are kept byte for byte: a later night carries on from them and
adoption compares them with the live files (the firewall keeps secrets out of them)."""


def night_row(result: NightResult) -> dict[str, Any]:
    """What the nights table keeps of ``result``: every other string redacted (a failed
    night's reason names the endpoint that failed; answers and notes quote tasks)."""
    data = to_dict(result)
    exact = {key: data.pop(key) for key in _EXACT if key in data}
    return redact_tree(data) | exact


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. The switch needs an exclusive lock and SQLite reports "locked" at once,
    without its busy handler, when another process is opening the same fresh file: then
    retry for up to 15 s."""
    try:
        _switch_to_wal(conn)
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        # tenacity only now: it loads asyncio (and tornado's adapter when tornado is there),
        # a tenth of a second of every command's start-up for a race that is rare.
        from tenacity import (
            retry,
            retry_if_exception_message,
            stop_after_delay,
            wait_random_exponential,
        )

        retry(retry=retry_if_exception_message(match=".*locked.*"), stop=stop_after_delay(15),
              wait=wait_random_exponential(multiplier=0.02, max=0.5),
              reraise=True)(_switch_to_wal)(conn)


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode=WAL")


def applied_migrations(conn: sqlite3.Connection) -> dict[int, str]:
    """The migrations an archive records, number → name (none for a new file); reads only."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                        " AND name = 'schema_version'").fetchone():
        return {}
    return {row[0]: str(row[1]) for row in conn.execute("SELECT number, name FROM schema_version")}


def refuse_newer(path: Path, applied: dict[int, str]) -> None:
    """``StoreError`` when ``applied`` holds a migration this version does not have."""
    known = {number for number, _ in known_migrations()}
    unknown = sorted(set(applied) - known)
    if unknown:
        names = ", ".join(applied[n] for n in unknown)
        raise StoreError(
            f"archive {path} has schema version {max(applied)}, newer than this skillopt-sleep "
            f"knows ({max(known)}; migrations it does not have: {names}): upgrade "
            "skillopt-sleep. The archive was not changed (it is never migrated down)")


HISTORY = ".history"
"""The suffix of a marker beside the archive (``archive.sqlite3.history``): an archive
existed here, so an empty or missing one is a lost history to put back, never a fresh
start to create silently."""


def _remember(path: Path) -> None:
    marker = path.with_name(path.name + HISTORY)
    if not marker.exists():
        with contextlib.suppress(OSError):  # a read-only state dir: no marker, no loss
            marker.write_text(f"{path}\n", encoding="utf-8")


def refuse_lost(path: Path) -> None:
    """``StoreError`` for an archive that is empty (0 bytes) or missing where one existed."""
    marker = path.with_name(path.name + HISTORY)
    try:
        size: int | None = path.stat().st_size
    except FileNotFoundError:
        size = None
    except OSError as exc:
        raise StoreError(f"archive {path} cannot be read: {exc.strerror or exc}") from exc
    # A 0-byte file with no marker is a fresh archive another process is creating now.
    if size == 0 and marker.exists():
        raise StoreError(f"archive {path} is empty (0 bytes) but a history existed here "
                         f"({marker}); nothing was written to it. Put back a copy of the "
                         f"archive, or remove both files to start a new history")
    if size is None and marker.exists():
        raise StoreError(f"archive {path} is missing but one existed here ({marker}): put back "
                         f"a copy of it, or remove {marker} to start a new history")


def damaged(path: Path, detail: str, consequence: str = "nothing was written to it") -> str:
    """The one line a damaged archive gets, wherever it is found."""
    detail = " ".join(detail.replace("*** in database main ***", "").split())
    return (f"archive {path} is damaged ({detail}); {consequence}. "
            f"`skillopt-sleep doctor` checks it; move it and {path.with_name(path.name + HISTORY)} "
            "aside to start a new archive, or put back a copy")


def _why(exc: sqlite3.DatabaseError, path: Path) -> str:
    """Why the archive at ``path`` cannot be opened, in one line."""
    text = str(exc)
    if "malformed" in text or "not a database" in text:
        return damaged(path, text)
    if "readonly" in text or "unable to open" in text:
        text += f" (is the state dir {path.parent} writable?)"
    return f"archive {path} cannot be opened: {text}"


def _statements(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]
