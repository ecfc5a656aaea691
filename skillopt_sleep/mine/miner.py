"""One mining pass: new requests in, families out, incrementally.

1. New requests are stored; the canonical forms of their texts (``intent.parse``) are
   embedded through the vector cache (nothing already seen is embedded again) and
   appended to the project's faiss index.
2. Each request no family holds yet tries to join an existing family, found among its
   nearest indexed neighbours.
3. What is left is grouped; groups seen in enough sessions become new families, with
   ids and splits that never change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import FamilyRow, MiningStore
from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.mine.families import (
    Family,
    FamilySettings,
    Member,
    best_family,
    member,
    new_families,
)
from skillopt_sleep.mine.index import ProjectIndex, space
from skillopt_sleep.mine.intent import parse
from skillopt_sleep.mine.requests import Request
from skillopt_sleep.mine.splits import DEFAULT_RATIOS, balanced_split
from skillopt_sleep.mine.vectors import VectorCache
from skillopt_sleep.records import utcnow


@dataclass
class MineReport:
    families: list[Family] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


class Miner:
    """Groups requests into families in the archive, one project at a time."""

    def __init__(
        self,
        archive: Archive,
        embedder: Embedder,
        settings: FamilySettings | None = None,
        ratios: Sequence[float] = DEFAULT_RATIOS,
        index_base: Path | None = None,
    ):
        self.store = MiningStore(archive)
        self.cache = VectorCache(archive, embedder)
        self.embedder = embedder
        self.settings = settings or FamilySettings()
        self.ratios = tuple(ratios)
        self.index_base = index_base

    def open_index(self, project: str) -> ProjectIndex:
        """The project's index, brought up to date with every stored request."""
        index = ProjectIndex.open(project, space(self.embedder.name), self.embedder.dim,
                                  self.index_base)
        missing = [(r.id, parse(r.text).canonical) for r, _ in self.store.project_requests(project)
                   if r.id not in index]
        if missing:
            vectors = self.cache.vectors([text for _, text in missing])
            index.add([rid for rid, _ in missing], vectors)
            index.save()
        return index

    def mine(self, requests: Sequence[Request]) -> MineReport:
        report = MineReport()
        fresh = self.store.add_requests(requests)
        report.bump("requests", len(requests))
        report.bump("new_requests", len(fresh))
        for project in sorted({r.project for r in requests}):
            self._mine_project(project, report)
        report.bump("embedded", self.cache.embedded)
        return report

    def _mine_project(self, project: str, report: MineReport) -> None:
        index = self.open_index(project)
        rows = self.store.project_requests(project)
        vectors = index.vectors([r.id for r, _ in rows])
        members = {r.id: member(r.id, r.session_id, r.text, v)
                   for (r, _), v in zip(rows, vectors, strict=True)}
        holder = {r.id: fid for r, fid in rows if fid is not None}
        by_family: dict[str, list[Member]] = {}
        for rid, fid in holder.items():
            by_family.setdefault(fid, []).append(members[rid])
        pending = [members[r.id] for r, fid in rows if fid is None]
        touched = self._join_existing(pending, index, holder, by_family)
        still = [m for m in pending if m.id not in holder]
        counts = Counter(f.split for f in self.store.families(project))
        for fid, ids in new_families(project, still, self.settings):
            split = balanced_split(fid, counts, self.ratios)
            counts[split] += 1
            row = FamilyRow(fid, project, self.embedder.name, split, ids[:2],
                            utcnow().isoformat())
            self.store.create_family(row, ids)
            by_family[fid] = [members[i] for i in ids]
            holder.update(dict.fromkeys(ids, fid))
            touched[fid] = True
        report.bump("pending", len([m for m in still if m.id not in holder]))
        report.bump("new_families", sum(touched.values()))
        report.bump("families", len(by_family))
        report.families += [
            Family(fid, project, [m.id for m in by_family[fid]], new=touched.get(fid, False),
                   grew=fid in touched)
            for fid in sorted(by_family)
        ]

    def _join_existing(
        self,
        pending: list[Member],
        index: ProjectIndex,
        holder: dict[str, str],
        by_family: dict[str, list[Member]],
    ) -> dict[str, bool]:
        """Pending requests that fit an existing family join it; returns families touched
        (value False: the family existed before this pass)."""
        touched: dict[str, bool] = {}
        if not by_family or not pending:
            return touched
        cap = self.settings.max_compare
        hits = index.search(np.stack([m.vector for m in pending]),
                            self.settings.neighbours)
        for item, near in zip(pending, hits, strict=True):
            candidates = {holder[key]: by_family[holder[key]][-cap:]
                          for key, _ in near if key in holder}
            fid = best_family(item, candidates, self.settings.threshold)
            if fid is None:
                continue
            self.store.assign(fid, [item.id])
            holder[item.id] = fid
            by_family[fid].append(item)
            touched.setdefault(fid, False)
        return touched
