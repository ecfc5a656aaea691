"""Archive queries for harvested sessions, their turns and the per-file checkpoints.

Times are stored as fixed-width UTC strings (``YYYY-MM-DDTHH:MM:SS.ffffffZ``) so that
SQL string comparison is time comparison. Saving a session replaces any earlier copy of
it (same source and id) with its turns, so re-harvesting a grown file is idempotent.
A turn's answer and tool calls are stored zlib-compressed in ``payload_z``
(``m0014_turn_payloads``); rows from before it are read from their text columns.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import Checkpoint, Session, ToolCall, Turn, utcnow

__all__ = [
    "count_sessions",
    "final_answers",
    "load_checkpoints",
    "load_resume",
    "load_session",
    "load_sessions",
    "save_batch",
    "save_checkpoint",
    "save_sessions",
    "session_projects",
    "unlearned_sessions",
]

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def _ts(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(_FORMAT)


def _dt(value: str | None) -> datetime | None:
    return datetime.strptime(value, _FORMAT).replace(tzinfo=UTC) if value else None


def save_sessions(archive: Archive, sessions: Iterable[Session]) -> int:
    """Insert or replace ``sessions`` (with their turns) in one transaction; returns the count."""
    with archive.transaction() as conn:
        return _insert(conn, sessions)


def _insert(conn: sqlite3.Connection, sessions: Iterable[Session]) -> int:
    count = 0
    for s in sessions:
        conn.execute("DELETE FROM turns WHERE source = ? AND session_id = ?",
                     (s.source, s.session_id))
        conn.execute(
            "INSERT OR REPLACE INTO sessions (source, session_id, project, started_at,"
            " ended_at, format_version, headless, path, files_json, skills_json,"
            " harvested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (s.source, s.session_id, s.project, _ts(s.started_at), _ts(s.ended_at),
             s.format_version, int(s.headless), s.path, json.dumps(s.files_touched),
             json.dumps(s.skills_used), _ts(utcnow())),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO turns (turn_id, source, session_id, idx, request,"
            " final_answer, tool_calls_json, signals_json, reaction, timestamp, payload_z)"
            " VALUES (?,?,?,?,?,'','[]',?,?,?,?)",
            [(t.id, s.source, s.session_id, t.index, t.request, json.dumps(t.signals),
              t.reaction, _ts(t.timestamp), _payload(t)) for t in s.turns],
        )
        count += 1
    return count


def _payload(turn: Turn) -> bytes:
    # The same JSON as ``to_dict``, built directly: the generic walk was a tenth of a harvest.
    calls = [{"name": c.name, "ok": c.ok, "args": c.args, "error_head": c.error_head,
              "exit_code": c.exit_code}
             for c in turn.tool_calls]
    raw = json.dumps({"answer": turn.final_answer, "tool_calls": calls}, ensure_ascii=False)
    return zlib.compress(raw.encode("utf-8"), 6)


def _unpack(row: tuple[Any, ...]) -> tuple[str, list[dict[str, Any]]]:
    """A turn row's answer and tool calls: from ``payload_z``, else the old text columns."""
    if row[8] is None:
        return row[3], json.loads(row[4])
    data = json.loads(zlib.decompress(row[8]))
    return data["answer"], data["tool_calls"]


def load_sessions(
    archive: Archive, project: str | None = None, since: datetime | None = None, *,
    include_headless: bool = False, source: str | None = None,
    harvested_after: datetime | None = None,
) -> Iterator[Session]:
    """Archived sessions, oldest first, with their turns.

    ``project`` is a project identity (as harvested: git root or cwd, real path);
    ``since`` keeps sessions that ended at or after it; ``harvested_after`` those archived
    after that moment. Headless sessions (``claude -p``, ``codex exec``…) are left out
    unless ``include_headless``.
    """
    query = ("SELECT source, session_id, project, started_at, ended_at, format_version,"
             " headless, path, files_json, skills_json FROM sessions WHERE 1=1")
    args: list[Any] = []
    if project is not None:
        query += " AND project = ?"
        args.append(project)
    if since is not None:
        query += " AND ended_at >= ?"
        args.append(_ts(since))
    if not include_headless:
        query += " AND headless = 0"
    if source is not None:
        query += " AND source = ?"
        args.append(source)
    if harvested_after is not None:
        query += " AND harvested_at > ?"
        args.append(_ts(harvested_after))
    query += " ORDER BY ended_at, source, session_id"
    rows = archive.conn.execute(query, args).fetchall()
    for row in rows:
        yield Session(
            source=row[0], session_id=row[1], project=row[2], started_at=_dt(row[3]),
            ended_at=_dt(row[4]), format_version=row[5], headless=bool(row[6]), path=row[7],
            files_touched=json.loads(row[8]), skills_used=json.loads(row[9]),
            turns=_turns(archive, row[0], row[1]),
        )


def _turns(archive: Archive, source: str, session_id: str) -> list[Turn]:
    rows = archive.conn.execute(
        "SELECT turn_id, idx, request, final_answer, tool_calls_json, signals_json, reaction,"
        " timestamp, payload_z FROM turns WHERE source = ? AND session_id = ? ORDER BY idx",
        (source, session_id),
    ).fetchall()
    turns = []
    for r in rows:
        answer, calls = _unpack(r)
        turns.append(Turn(id=r[0], index=r[1], request=r[2], final_answer=answer,
                          tool_calls=[_call(c) for c in calls], signals=json.loads(r[5]),
                          reaction=r[6], timestamp=_dt(r[7])))
    return turns


def _call(data: dict[str, Any]) -> ToolCall:
    # Built directly: the generic ``from_dict`` walk dominated loading a session to resume.
    ok = data.get("ok", True)
    code = data.get("exit_code")
    return ToolCall(name=data.get("name", "?"), ok=None if ok is None else bool(ok),
                    args=dict(data.get("args") or {}), error_head=data.get("error_head", ""),
                    exit_code=code if isinstance(code, int) else None)


def session_projects(archive: Archive) -> list[str]:
    """Every project that has archived sessions."""
    rows = archive.conn.execute("SELECT DISTINCT project FROM sessions ORDER BY project")
    return [r[0] for r in rows]


def unlearned_sessions(archive: Archive, project: str | None = None,
                       since: datetime | None = None, *,
                       include_headless: bool = False) -> Iterator[Session]:
    """What the next night learns from that no night has: each project's sessions archived
    after its last night started (every archived session of a project with no night yet),
    whoever archived them (``harvest``, ``run``, the daemon's watcher)."""
    for name in [project] if project is not None else session_projects(archive):
        last = archive.nights(name, limit=1)
        after = last[0][1].started_at if last else None
        yield from load_sessions(archive, name, since, include_headless=include_headless,
                                 harvested_after=after)


def headless_count(archive: Archive, project: str) -> int:
    """Sessions of ``project`` a night leaves out unless ``include_headless`` is set."""
    row = archive.conn.execute(
        "SELECT COUNT(*) FROM sessions WHERE project = ? AND headless = 1", (project,)).fetchone()
    return int(row[0])


def count_sessions(archive: Archive) -> dict[str, int]:
    rows = archive.conn.execute("SELECT source, COUNT(*) FROM sessions GROUP BY source")
    return {source: n for source, n in rows}


def load_checkpoints(archive: Archive, source: str | None = None) -> dict[str, Checkpoint]:
    """Every file checkpoint (of one source, if given), by path."""
    query = ("SELECT path, source, device, inode, size, mtime_ns, line_offset, tail_hash,"
             " sessions_json FROM harvest_checkpoints")
    rows = (archive.conn.execute(query + " WHERE source = ?", (source,)) if source
            else archive.conn.execute(query)).fetchall()
    return {
        r[0]: Checkpoint(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8]))
        for r in rows
    }


def save_checkpoint(archive: Archive, cp: Checkpoint, sessions: list[Session]) -> None:
    """Record ``cp`` and the sessions read from its file, atomically together."""
    save_batch(archive, [(cp, sessions)])


def save_batch(archive: Archive,
               items: list[tuple[Checkpoint | None, list[Session]]]) -> None:
    """Several files' checkpoints and sessions in one transaction (None: no checkpoint)."""
    now = _ts(utcnow())
    with archive.transaction() as conn:
        for cp, sessions in items:
            _insert(conn, sessions)
            if cp is None:
                continue
            conn.execute(
                "INSERT OR REPLACE INTO harvest_checkpoints (path, source, device, inode, size,"
                " mtime_ns, line_offset, tail_hash, sessions_json, harvested_at, resume_json)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (cp.path, cp.source, cp.device, cp.inode, cp.size, cp.mtime_ns, cp.offset,
                 cp.tail_hash, json.dumps(cp.sessions), now,
                 json.dumps(cp.resume) if cp.resume is not None else None),
            )


def load_resume(archive: Archive, path: str) -> dict[str, Any] | None:
    """The resume state saved with ``path``'s checkpoint (None: read it from the start)."""
    row = archive.conn.execute(
        "SELECT resume_json FROM harvest_checkpoints WHERE path = ?", (path,)).fetchone()
    if row is None or row[0] is None:
        return None
    value = json.loads(row[0])
    return value if isinstance(value, dict) else None


def load_session(archive: Archive, source: str, session_id: str) -> Session | None:
    """One archived session with its turns, or None."""
    row = archive.conn.execute(
        "SELECT project, started_at, ended_at, format_version, headless, path, files_json,"
        " skills_json FROM sessions WHERE source = ? AND session_id = ?",
        (source, session_id)).fetchone()
    if row is None:
        return None
    return Session(
        source=source, session_id=session_id, project=row[0], started_at=_dt(row[1]),
        ended_at=_dt(row[2]), format_version=row[3], headless=bool(row[4]), path=row[5],
        files_touched=json.loads(row[6]), skills_used=json.loads(row[7]),
        turns=_turns(archive, source, session_id),
    )


def final_answers(archive: Archive, turn_ids: Iterable[str]) -> list[str]:
    """The final answers of the given turns, in no particular order (the empty ones left out)."""
    ids = sorted(set(turn_ids))
    found: list[str] = []
    for start in range(0, len(ids), 500):  # SQLite's variable limit
        chunk = ids[start:start + 500]
        rows = archive.conn.execute(
            f"SELECT final_answer, payload_z FROM turns WHERE turn_id IN "
            f"({','.join('?' * len(chunk))})", chunk).fetchall()
        for text, payload in rows:
            answer = json.loads(zlib.decompress(payload))["answer"] if payload else text
            if answer:
                found.append(answer)
    return found
