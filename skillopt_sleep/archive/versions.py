"""Queries on the skill versions ledger (``m0006_versions``): every text ever written.

Each write of a skill, and each prior content it replaced, is one numbered row holding the
text byte-exact, so a rollback restores exactly what was there. Writing the files is
``publish.adopt``'s job; this module only reads and appends the ledger.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.intents import mark_committed
from skillopt_sleep.errors import StoreError
from skillopt_sleep.records import sha256_text, utcnow

__all__ = [
    "LedgerRow",
    "PathWrite",
    "Prior",
    "Version",
    "add_version",
    "adopted_nights",
    "content",
    "content_by_sha",
    "last_written",
    "max_version",
    "path_writes",
    "priors",
    "record_write",
    "skills",
    "versions",
]


@dataclass(frozen=True)
class Version:
    """One row of the ledger, without its content (see ``content``)."""

    skill: str
    version: int
    sha256: str
    night_id: str | None
    reason: str
    targets: list[str]
    created_at: str


def versions(archive: Archive, skill: str) -> list[Version]:
    """Every recorded version of ``skill``, oldest first."""
    rows = archive.conn.execute(
        "SELECT skill, version, sha256, night_id, reason, targets, created_at FROM skill_versions"
        " WHERE skill = ? ORDER BY version",
        (skill,),
    ).fetchall()
    return [Version(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6]) for r in rows]


def content(archive: Archive, skill: str, version: int) -> str:
    """The exact text of one version; ``StoreError`` when there is no such version."""
    row = archive.conn.execute(
        "SELECT content FROM skill_versions WHERE skill = ? AND version = ?", (skill, version)
    ).fetchone()
    if row is None:
        raise StoreError(f"skill {skill!r} has no version {version}")
    return str(row[0])


def add_version(
    archive: Archive,
    skill: str,
    text: str,
    night_id: str | None,
    reason: str,
    targets: Sequence[Path],
) -> int:
    """Append ``text`` as the skill's next version; returns its number.

    The number is read and the row written in one write transaction, so two processes
    recording the same skill never take the same number.
    """
    with archive.transaction() as conn:
        row = conn.execute(
            "SELECT MAX(version) FROM skill_versions WHERE skill = ?", (skill,)
        ).fetchone()
        version = (row[0] or 0) + 1
        conn.execute(
            "INSERT INTO skill_versions VALUES (?,?,?,?,?,?,?,?)",
            (
                skill,
                version,
                sha256_text(text),
                text,
                night_id,
                reason,
                json.dumps([str(p) for p in targets]),
                utcnow().isoformat(),
            ),
        )
    return version


def adopted_nights(archive: Archive) -> set[tuple[str, str]]:
    """Every (night id, skill) whose staged proposal has been adopted."""
    rows = archive.conn.execute(
        "SELECT night_id, skill FROM skill_versions WHERE night_id IS NOT NULL AND reason = 'adopt'"
    )
    return {(r[0], r[1]) for r in rows}


def last_written(archive: Archive) -> str:
    """The skill whose newest version is the most recent write (what ``rollback`` undoes)."""
    row = archive.conn.execute(
        "SELECT skill FROM skill_versions ORDER BY created_at DESC, version DESC LIMIT 1"
    ).fetchone()
    if row is None:
        raise StoreError("nothing has been adopted yet, so there is nothing to roll back")
    return str(row[0])


def skills(archive: Archive) -> list[str]:
    """Every skill with at least one recorded version, sorted by name."""
    return sorted({row[0] for row in archive.conn.execute("SELECT skill FROM skill_versions")})


@dataclass(frozen=True)
class LedgerRow:
    """One version a write records: its text, why, and the paths that now hold it."""

    text: str
    reason: str
    targets: list[str]
    night_id: str | None = None


@dataclass(frozen=True)
class Prior:
    """What one path held before a write: its text (None: no file) and file mode."""

    path: str
    text: str | None
    mode: int | None
    after: str | None = None
    """What the write leaves at ``path`` (None: no file)."""
    after_mode: int | None = None


@dataclass(frozen=True)
class PathWrite:
    """One path of a recorded write: what was there before, and what the write left
    (``after_sha256`` '' : no file; None: not recorded, a write older than the record)."""

    path: str
    version: int
    before_sha256: str | None
    before_mode: int | None
    after_sha256: str | None
    after_mode: int | None


def max_version(archive: Archive, skill: str) -> int:
    """The newest version number of ``skill`` (0: none)."""
    row = archive.conn.execute(
        "SELECT MAX(version) FROM skill_versions WHERE skill = ?", (skill,)
    ).fetchone()
    return int(row[0] or 0)


def record_write(
    archive: Archive, skill: str, rows: Sequence[LedgerRow], befores: Sequence[Prior],
    first: LedgerRow | None = None, txid: str | None = None,
) -> int:
    """Record one write in one transaction; returns the number of its last row.

    ``first`` is recorded only when the skill has no version yet (the absence the first
    write replaces); each prior text not yet in the ledger gets its own row, so every
    path's prior bytes can be restored; the priors are attached to the last row.
    """
    with archive.transaction() as conn:
        version = int(conn.execute(
            "SELECT MAX(version) FROM skill_versions WHERE skill = ?", (skill,)
        ).fetchone()[0] or 0)
        known = {r[0] for r in conn.execute(
            "SELECT sha256 FROM skill_versions WHERE skill = ?", (skill,))}
        extra = [first] if first is not None and version == 0 else []
        for prior in befores:
            if prior.text is not None and sha256_text(prior.text) not in known:
                extra.append(LedgerRow(prior.text, f"before write: {prior.path}", [prior.path]))
                known.add(sha256_text(prior.text))
        for row in [*extra, *rows]:
            version += 1
            conn.execute(
                "INSERT INTO skill_versions VALUES (?,?,?,?,?,?,?,?)",
                (skill, version, sha256_text(row.text), row.text, row.night_id, row.reason,
                 json.dumps(row.targets), utcnow().isoformat()),
            )
        conn.executemany(
            "INSERT INTO skill_writes VALUES (?,?,?,?,?,?,?)",
            [(skill, version, p.path, None if p.text is None else sha256_text(p.text), p.mode,
              "" if p.after is None else sha256_text(p.after), p.after_mode)
             for p in befores],
        )
        if txid is not None:
            mark_committed(conn, txid)
    return version


def priors(archive: Archive, skill: str, version: int) -> list[tuple[str, str | None, int | None]]:
    """Each path version ``version`` was written to, with its prior hash and mode
    (empty for writes recorded before priors were kept)."""
    rows = archive.conn.execute(
        "SELECT path, before_sha256, before_mode FROM skill_writes"
        " WHERE skill = ? AND version = ? ORDER BY path",
        (skill, version),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def path_writes(archive: Archive, skill: str, version: int | None = None) -> list[PathWrite]:
    """Each path of the write recorded as ``version`` (default: every write of the skill,
    oldest first), with what it held before and what the write left there."""
    where, args = ("AND version = ?", (skill, version)) if version is not None else ("", (skill,))
    rows = archive.conn.execute(
        "SELECT path, version, before_sha256, before_mode, after_sha256, after_mode"
        f" FROM skill_writes WHERE skill = ? {where} ORDER BY version, path", args)
    return [PathWrite(*r) for r in rows]


def content_by_sha(archive: Archive, skill: str, sha256: str) -> str:
    """The text of the skill's version with this hash; ``StoreError`` when none has it."""
    row = archive.conn.execute(
        "SELECT content FROM skill_versions WHERE skill = ? AND sha256 = ? LIMIT 1",
        (skill, sha256),
    ).fetchone()
    if row is None:
        raise StoreError(f"skill {skill!r} has no recorded text with hash {sha256[:12]}")
    return str(row[0])
