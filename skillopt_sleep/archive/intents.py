"""The write-back transactions the ledger knows (``m0018_write_intents``).

A write registers itself (``pending``) before its journal exists and is marked
``committed`` inside the ledger transaction that records it, so recovery can tell from the
archive alone whether an interrupted write goes forward or back, and can refuse a journal
whose id or paths the archive never registered.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import utcnow

__all__ = ["Intent", "begin", "find", "mark", "mark_committed", "pending"]


@dataclass(frozen=True)
class Intent:
    txid: str
    skill: str
    kind: str
    paths: list[str]
    state: str


def begin(archive: Archive, txid: str, skill: str, kind: str, paths: list[str]) -> None:
    """Register a write about to start (raises ``sqlite3.Error`` when the archive cannot
    take a row: nothing has been written anywhere yet)."""
    with archive.transaction() as conn:
        conn.execute("INSERT INTO write_intents VALUES (?,?,?,?,?,?)",
                     (txid, skill, kind, json.dumps(paths), "pending", utcnow().isoformat()))


def mark_committed(conn: sqlite3.Connection, txid: str) -> None:
    """Inside the ledger's own transaction: the write is committed."""
    conn.execute("UPDATE write_intents SET state = 'committed' WHERE txid = ?", (txid,))


def mark(archive: Archive, txid: str, state: str) -> None:
    """Record how a write ended (``undone``, ``recovered``, ``failed``)."""
    with archive.transaction() as conn:
        conn.execute("UPDATE write_intents SET state = ? WHERE txid = ?", (state, txid))


def find(archive: Archive, txid: str) -> Intent | None:
    row = archive.conn.execute(
        "SELECT txid, skill, kind, paths, state FROM write_intents WHERE txid = ?", (txid,)
    ).fetchone()
    return None if row is None else Intent(row[0], row[1], row[2], json.loads(row[3]), row[4])


def pending(archive: Archive) -> list[Intent]:
    rows = archive.conn.execute(
        "SELECT txid, skill, kind, paths, state FROM write_intents WHERE state = 'pending'"
    ).fetchall()
    return [Intent(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]
