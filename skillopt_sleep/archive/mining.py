"""Queries on the mining tables (``m0003_mining``): requests seen, families, tasks."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import NamedTuple

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import Request, Task, from_dict, sha256_text, to_dict, utcnow

_REQUEST_FIELDS = frozenset(f.name for f in fields(Request))


def _request(data: str) -> Request:
    # Requests hold only strings and lists of strings, so the generic record decoder
    # (which walks type hints, ~90 µs a row) is not needed on this hot path of recall.
    return Request(**{k: v for k, v in json.loads(data).items() if k in _REQUEST_FIELDS})


class RequestRow(NamedTuple):
    """The columns grouping needs of one stored request (no JSON to decode)."""

    seq: int
    id: str
    session_id: str
    text: str
    family_id: str | None
    actions: str = "[]"  # JSON list: the request's fingerprint (``mine.fingerprint``)


_ROW = ("SELECT seq, id, session_id, text, family_id,"
        " COALESCE(json_extract(request_json, '$.actions'), '[]') FROM mined_requests")


class StatsRow(NamedTuple):
    """A family's stored aggregate: member count, vector sum (float64 bytes), kinds (JSON)."""

    size: int
    total: bytes
    kinds: str


@dataclass
class FamilyRow:
    family_id: str
    project: str
    embedder: str
    split: str
    first_members: list[str]
    created_at: str


class MiningStore:
    """The miner's view of the archive. Writes are transactions; reads never lock."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self.conn = archive.conn

    # --- requests -----------------------------------------------------------------------

    def add_requests(self, requests: Iterable[Request]) -> list[str]:
        """Insert requests not seen before (by id); returns the ids that were new."""
        fresh: list[str] = []
        with self.archive.transaction() as conn:
            for r in requests:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO mined_requests (id, project, session_id, source, text,"
                    " text_hash, request_json) VALUES (?,?,?,?,?,?,?)",
                    (r.id, r.project, r.session_id, r.source, r.text, sha256_text(r.text),
                     json.dumps(to_dict(r))),
                )
                if cursor.rowcount:
                    fresh.append(r.id)
        return fresh

    def project_requests(self, project: str) -> list[tuple[Request, str | None]]:
        """Every request of ``project`` in arrival order, with its family id (or None)."""
        rows = self.conn.execute(
            "SELECT request_json, family_id FROM mined_requests WHERE project = ? ORDER BY seq",
            (project,),
        ).fetchall()
        return [(_request(data), fid) for data, fid in rows]

    def rows_since(self, project: str, seq: int) -> list[RequestRow]:
        """Requests of ``project`` stored after ``seq``, in arrival order."""
        return [RequestRow(*r) for r in self.conn.execute(
            _ROW + " WHERE project = ? AND seq > ? ORDER BY seq", (project, seq))]

    def pending_rows(self, project: str) -> list[RequestRow]:
        """Requests of ``project`` no family holds yet, in arrival order."""
        return [RequestRow(*r) for r in self.conn.execute(
            _ROW + " WHERE project = ? AND family_id IS NULL ORDER BY seq", (project,))]

    def rows_by_id(self, ids: Sequence[str]) -> list[RequestRow]:
        """Stored requests among ``ids`` (looked up by key), in arrival order."""
        return self._rows_in("id", ids)

    def member_rows(self, family_ids: Sequence[str]) -> list[RequestRow]:
        """Members of the given families (looked up by key), in arrival order."""
        return self._rows_in("family_id", family_ids)

    def _rows_in(self, column: str, keys: Sequence[str]) -> list[RequestRow]:
        unique = list(dict.fromkeys(keys))
        found: list[RequestRow] = []
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found += [RequestRow(*r) for r in self.conn.execute(
                f"{_ROW} WHERE {column} IN ({marks})", chunk)]
        return sorted(found)

    def family_members(self, project: str) -> dict[str, list[str]]:
        """Member ids of every family of ``project``, each in arrival order."""
        out: dict[str, list[str]] = {}
        for rid, fid in self.conn.execute(
            "SELECT id, family_id FROM mined_requests WHERE project = ? AND family_id IS NOT NULL"
            # The index on (project, family_id) keeps equal keys in seq order: no sort.
            " ORDER BY family_id, seq", (project,)):
            out.setdefault(fid, []).append(rid)
        return out

    def members_of(self, family_ids: Iterable[str]) -> dict[str, list[str]]:
        """Member ids of the given families (by key), each in arrival order:
        ``family_members`` for a few families, not every family of a project."""
        out: dict[str, list[str]] = {}
        unique = sorted(set(family_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for rid, fid in self.conn.execute(
                    f"SELECT id, family_id FROM mined_requests WHERE family_id IN ({marks})"
                    " ORDER BY family_id, seq", chunk):
                out.setdefault(fid, []).append(rid)
        return out

    def count_families(self, project: str) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM families WHERE project = ?",
                                     (project,)).fetchone()[0])

    def feature_counts(self, project: str, sample: int) -> dict[str, int]:
        """How many of the first ``sample`` requests of ``project`` have each fingerprint
        feature: stored once counted, so a later pass reads one small row."""
        row = self.conn.execute("SELECT counts FROM mining_rarity WHERE project = ? AND"
                                " sample = ?", (project, sample)).fetchone()
        if row is not None:
            return dict(json.loads(row[0]))
        counts: Counter[str] = Counter()
        for (actions,) in self.conn.execute(
                "SELECT COALESCE(json_extract(request_json, '$.actions'), '[]') FROM"
                " mined_requests WHERE project = ? ORDER BY seq LIMIT ?", (project, sample)):
            counts.update(set(json.loads(actions)))
        with self.archive.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO mining_rarity (project, sample, counts)"
                         " VALUES (?,?,?)", (project, sample, json.dumps(counts)))
        return dict(counts)

    def count_requests(self, project: str, pending: bool = False) -> int:
        query = "SELECT COUNT(*) FROM mined_requests WHERE project = ?"
        if pending:
            query += " AND family_id IS NULL"
        return int(self.conn.execute(query, (project,)).fetchone()[0])

    def requests(self, ids: Sequence[str]) -> dict[str, tuple[Request, str | None]]:
        found: dict[str, tuple[Request, str | None]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for data, fid in self.conn.execute(
                f"SELECT request_json, family_id FROM mined_requests WHERE id IN ({marks})", chunk
            ):
                request = _request(data)
                found[request.id] = (request, fid)
        return found

    def members(self, family_id: str) -> list[Request]:
        rows = self.conn.execute(
            "SELECT request_json FROM mined_requests WHERE family_id = ? ORDER BY seq",
            (family_id,),
        ).fetchall()
        return [_request(data) for (data,) in rows]

    def assign(self, family_id: str, request_ids: Sequence[str]) -> None:
        with self.archive.transaction() as conn:
            conn.executemany(
                "UPDATE mined_requests SET family_id = ? WHERE id = ? AND family_id IS NULL",
                [(family_id, rid) for rid in request_ids],
            )

    def assign_many(self, members: dict[str, list[str]]) -> None:
        """``assign`` for several families in one transaction."""
        with self.archive.transaction() as conn:
            conn.executemany(
                "UPDATE mined_requests SET family_id = ? WHERE id = ? AND family_id IS NULL",
                [(fid, rid) for fid, ids in members.items() for rid in ids],
            )

    # --- families -----------------------------------------------------------------------

    def create_family(self, row: FamilyRow, members: Sequence[str]) -> None:
        self.create_families([(row, members)])

    def create_families(self, formed: Sequence[tuple[FamilyRow, Sequence[str]]]) -> None:
        """Store new families and their members, all in one transaction."""
        with self.archive.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO families VALUES (?,?,?,?,?,?)",
                [(row.family_id, row.project, row.embedder, row.split,
                  json.dumps(row.first_members), row.created_at) for row, _ in formed],
            )
            conn.executemany(
                "UPDATE mined_requests SET family_id = ? WHERE id = ? AND family_id IS NULL",
                [(row.family_id, rid) for row, members in formed for rid in members],
            )

    def family_stats(self, family_ids: Sequence[str], space: str) -> dict[str, StatsRow]:
        """Stored ``family_stats`` of the given families in ``space``, by key."""
        found: dict[str, StatsRow] = {}
        unique = list(dict.fromkeys(family_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for fid, size, total, kinds in self.conn.execute(
                f"SELECT family_id, size, total, kinds FROM family_stats WHERE space = ?"
                f" AND family_id IN ({marks})", [space, *chunk]):
                found[fid] = StatsRow(size, total, kinds)
        return found

    def save_family_stats(self, space: str, stats: dict[str, StatsRow]) -> None:
        with self.archive.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO family_stats VALUES (?,?,?,?,?)",
                [(fid, space, s.size, s.total, s.kinds) for fid, s in stats.items()],
            )

    def families(self, project: str | None = None) -> list[FamilyRow]:
        query = "SELECT * FROM families"
        args: tuple[str, ...] = ()
        if project is not None:
            query, args = query + " WHERE project = ?", (project,)
        rows = self.conn.execute(query + " ORDER BY created_at, family_id", args).fetchall()
        return [FamilyRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def family(self, family_id: str) -> FamilyRow | None:
        r = self.conn.execute(
            "SELECT * FROM families WHERE family_id = ?", (family_id,)).fetchone()
        return FamilyRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) if r else None

    def family_ids(self, project: str) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT family_id FROM families WHERE project = ? ORDER BY family_id", (project,))]

    def split_counts(self, project: str) -> dict[str, int]:
        """How many families of ``project`` each split holds."""
        return dict(self.conn.execute(
            "SELECT split, COUNT(*) FROM families WHERE project = ? GROUP BY split", (project,)))

    def splits(self, family_ids: Sequence[str]) -> dict[str, str]:
        """Split of each known family among ``family_ids``."""
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(family_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self.conn.execute(
                f"SELECT family_id, split FROM families WHERE family_id IN ({marks})", chunk))
        return found

    def family_recency(self, project: str) -> dict[str, int]:
        """Each family of ``project``: its newest member's arrival order (``seq``)."""
        return dict(self.conn.execute(
            "SELECT family_id, MAX(seq) FROM mined_requests WHERE project = ?"
            " AND family_id IS NOT NULL GROUP BY family_id", (project,)))

    def projects(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT project FROM mined_requests ORDER BY project")]

    # --- tasks --------------------------------------------------------------------------

    def save_tasks(self, tasks: Sequence[Task]) -> None:
        now = utcnow().isoformat()
        with self.archive.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO tasks VALUES (?,?,?,?,?,?,?,?)",
                [(t.id, t.family_id, t.project, t.split, int(t.synthetic), t.skill,
                  json.dumps(to_dict(t)), now) for t in tasks],
            )

    def tasks(self, project: str | None = None, split: str | None = None) -> list[Task]:
        query, args = "SELECT task_json FROM tasks WHERE 1=1", list[str]()
        if project is not None:
            query, args = query + " AND project = ?", [*args, project]
        if split is not None:
            query, args = query + " AND split = ?", [*args, split]
        rows = self.conn.execute(query + " ORDER BY project, family_id, task_id", args)
        return [from_dict(Task, json.loads(data)) for (data,) in rows]

    # --- where the miner stands ---------------------------------------------------------

    def state(self, project: str, space: str) -> dict[str, int]:
        """``mining_state`` of ``project`` in ``space`` (empty when never mined)."""
        cursor = self.conn.execute(
            "SELECT indexed_seq, mined_seq, pool, added FROM mining_state"
            " WHERE project = ? AND space = ?", (project, space))
        row = cursor.fetchone()
        names = [d[0] for d in cursor.description]
        return dict(zip(names, row, strict=True)) if row else {}

    def save_state(self, project: str, space: str, state: dict[str, int]) -> None:
        with self.archive.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO mining_state (project, space, indexed_seq, mined_seq,"
                " pool, added) VALUES (?,?,?,?,?,?)",
                (project, space, state["indexed_seq"], state["mined_seq"], state["pool"],
                 state["added"]))

    def task_routes(self) -> set[tuple[str, str]]:
        """``(family id, skill)`` of every stored task: where each family was routed."""
        return {(r[0], r[1]) for r in self.conn.execute(
            "SELECT DISTINCT family_id, skill FROM tasks")}

    def task_family_ids(self) -> set[str]:
        """Families that have stored tasks."""
        return {r[0] for r in self.conn.execute("SELECT DISTINCT family_id FROM tasks")}

    def task(self, task_id: str) -> Task | None:
        row = self.conn.execute(
            "SELECT task_json FROM tasks WHERE task_id = ?", (task_id,)
        ).fetchone()
        return from_dict(Task, json.loads(row[0])) if row else None
