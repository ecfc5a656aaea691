"""Queries on the learned entries (``m0015_learned_entries``): when each entry of a skill's
learned region was accepted, on what evidence, when a task last exercised it, and whether a
retirement night removed it. What counts as "exercised" is decided in ``night.usage``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import sha256_text

__all__ = ["LearnedEntry", "entries", "entry_key", "mark_retired", "mark_used", "record_entry"]


@dataclass(frozen=True)
class LearnedEntry:
    skill: str
    text: str
    night_id: str
    accepted_seq: int
    evidence: dict[str, Any] = field(default_factory=dict)
    last_used_night: str = ""
    last_used_seq: int | None = None
    uses: int = 0
    retired_night: str = ""

    @property
    def last_seen_seq(self) -> int:
        """The last night the entry earned its place: its last use, else its acceptance."""
        return self.accepted_seq if self.last_used_seq is None else self.last_used_seq


def entry_key(text: str) -> str:
    return sha256_text(" ".join(text.lower().split()))[:16]


def record_entry(archive: Archive, project: str, skill: str, text: str, night_id: str,
                 seq: int, evidence: dict[str, Any]) -> None:
    """Record an accepted entry; one accepted again (after a retirement) starts afresh."""
    with archive.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO learned_entries (project, skill, entry_key, text, night_id,"
            " accepted_seq, evidence_json) VALUES (?,?,?,?,?,?,?)",
            (project, skill, entry_key(text), text, night_id, seq, json.dumps(evidence)),
        )


def mark_used(archive: Archive, project: str, skill: str, texts: list[str], night_id: str,
              seq: int) -> None:
    with archive.transaction() as conn:
        conn.executemany(
            "UPDATE learned_entries SET last_used_night = ?, last_used_seq = ?, uses = uses + 1"
            " WHERE project = ? AND skill = ? AND entry_key = ?",
            [(night_id, seq, project, skill, entry_key(t)) for t in texts],
        )


def mark_retired(archive: Archive, project: str, skill: str, text: str, night_id: str) -> None:
    with archive.transaction() as conn:
        conn.execute(
            "UPDATE learned_entries SET retired_night = ? WHERE project = ? AND skill = ?"
            " AND entry_key = ?", (night_id, project, skill, entry_key(text)))


def entries(archive: Archive, project: str, skill: str) -> dict[str, LearnedEntry]:
    """Every recorded entry of ``skill``, retired ones included, by ``entry_key``."""
    rows = archive.conn.execute(
        "SELECT entry_key, text, night_id, accepted_seq, evidence_json, last_used_night,"
        " last_used_seq, uses, retired_night FROM learned_entries"
        " WHERE project = ? AND skill = ? ORDER BY accepted_seq, rowid",
        (project, skill),
    ).fetchall()
    return {
        key: LearnedEntry(skill, text, night, seq, json.loads(ev), used_night, used_seq, uses,
                          retired)
        for key, text, night, seq, ev, used_night, used_seq, uses, retired in rows
    }
