"""One mining pass: new requests in, families out, in time that grows with the new work.

1. New requests are stored; the canonical forms of their texts (``intent.parse``) are
   embedded through the vector cache (nothing already seen is embedded again) and
   appended to the project's faiss index, opened once per ``Miner``.
2. Each request of the pass tries to join an existing family, found among its nearest
   indexed neighbours; a family is judged by the sum of its members' vectors and its
   distinct intents (``families.Group``), loaded by key for the candidates alone.
3. What is left is grouped with its pending neighbours (requests no family holds yet);
   groups seen in enough sessions become new families, with ids and splits that never
   change.

Which requests a pass takes up is decided by drift (``MiningState``): an incremental pass
takes the requests stored since the last pass; once the requests added since the last
full pass exceed ``DRIFT`` of the pending pool that pass left (or the state is lost), the
pass is full: every pending request tries again, and the whole pool is grouped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import FamilyRow, MiningStore, RequestRow, StatsRow
from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.mine.families import (
    Family,
    FamilySettings,
    Group,
    Member,
    best_family,
    new_families,
)
from skillopt_sleep.mine.fingerprint import Combiner, Rarity
from skillopt_sleep.mine.index import ProjectIndex, faiss_nearest, faiss_scored, space
from skillopt_sleep.mine.intent import Intent, Kind, foreign, parse
from skillopt_sleep.mine.requests import Request
from skillopt_sleep.mine.splits import DEFAULT_RATIOS, balanced_split
from skillopt_sleep.mine.vectors import VectorCache
from skillopt_sleep.records import utcnow

DRIFT = 0.25
"""Requests added since the last full pass, as a share of the pending pool it left, beyond
which the next pass is full. An incremental pass groups new requests only with their
nearest pending neighbours; a full pass lets old pending requests (now near a grown
family, or near each other through requests that came since) try again."""
CHUNK = 5000
"""Requests embedded (or read from the vector cache) and indexed at a time."""
MIN_POOL = 200
"""Pool size below which drift is measured against this instead (a small pool would
otherwise force a full pass every time; a full pass of a small pool is cheap anyway)."""


@dataclass
class MineReport:
    """What a pass did: its counts, the families it formed or joined (``grown``, with their
    members), and every family of the projects it mined (``families``, unless the pass was
    told not to list them: that is every member of every family, in proportion to the
    history, which a caller that needs only what grew never pays for)."""

    families: list[Family] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    grown: list[Family] = field(default_factory=list)

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


@dataclass
class MiningState:
    """Where the miner stands in a project and vector space, kept in the archive.

    ``indexed_seq``/``mined_seq``: the last archive ``seq`` embedded / taken up by a pass;
    ``pool``: pending requests the last full pass left; ``added``: requests taken up since.
    """

    indexed_seq: int = 0
    mined_seq: int = 0
    pool: int = 0
    added: int = 0

    def full_due(self, fresh: int) -> bool:
        """Whether a pass taking up ``fresh`` new requests must be full (see ``DRIFT``)."""
        return self.mined_seq == 0 or self.added + fresh > DRIFT * max(self.pool, MIN_POOL)


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
        self.combiner = self.settings.combiner()
        self.compat = self.settings.compatibility(self.combiner)
        self._combiners: dict[str, Combiner] = {}
        self._kinds: dict[str, frozenset[int]] = {}
        self._indexes: dict[str, ProjectIndex] = {}
        self._intents: dict[str, Intent] = {}
        self._checked: set[str] = set()

    def open_index(self, project: str) -> ProjectIndex:
        """The project's index, brought up to date with every stored request.

        Opened once per ``Miner``; later calls only add what was stored since.
        """
        index = self._indexes.get(project)
        if index is None:
            index = ProjectIndex.open(project, self._space, self.embedder.dim, self.index_base)
            self._indexes[project] = index
        state = self._state(project)
        rows = self.store.rows_since(project, state.indexed_seq)
        if project not in self._checked:
            self._checked.add(project)
            if len(index) + len(rows) < self.store.count_requests(project):
                rows = self.store.rows_since(project, 0)  # the index lost vectors: refill it
        missing = [r for r in rows if r.id not in index]
        for start in range(0, len(missing), CHUNK):  # in chunks: one copy of the vectors
            chunk = missing[start : start + CHUNK]
            vectors = self.cache.vectors([self.embedded(r.text) for r in chunk])
            index.add([r.id for r in chunk], vectors)
        if missing:
            index.save()
        if rows:
            state.indexed_seq = max(state.indexed_seq, rows[-1].seq)
            self.store.save_state(project, self._space, vars(state))
        return index

    @property
    def _space(self) -> str:
        return space(self.embedder.name)

    def stats_space(self, project: str) -> str:
        """Family sums are of combined vectors (text and fingerprint), kept apart from
        sums of another combination or another rarity sample."""
        return f"{self._space}+{self.combiner_for(project).name}"

    def combiner_for(self, project: str) -> Combiner:
        """The combination with the rarity of the project's first ``2^k`` requests, the
        largest such sample it has: fixed until the project doubles, so family sums
        stay valid between doublings and are rebuilt once per doubling (a cost that
        adds up to one pass over the history, however often it is mined)."""
        count = self.store.count_requests(project)
        sample = 1 << (count.bit_length() - 1) if count else 0
        found = self._combiners.get(project)
        if found is None or found.rarity is None or found.rarity.name != str(sample):
            counts = self.store.feature_counts(project, sample)
            rarity = Rarity.counted(counts, sample, str(sample))
            found = self._combiners[project] = self.combiner.with_rarity(rarity)
        return found

    def combined(self, rows: Sequence[RequestRow], index: ProjectIndex) -> np.ndarray:
        """The rows' text vectors (from the index) beside their fingerprint vectors."""
        return self.combiner_for(index.project).combine_stored(
            index.vectors([r.id for r in rows]), [r.actions for r in rows])

    def _state(self, project: str) -> MiningState:
        return MiningState(**self.store.state(project, self._space))

    def embedded(self, text: str) -> str:
        """``intent.embed_text``, reading the intent this miner parsed already."""
        return " ".join(text.split()) if foreign(text) else self.intent(text).canonical

    def intent(self, text: str) -> Intent:
        found = self._intents.get(text)
        if found is None:
            found = self._intents[text] = parse(text)
        return found

    def mine(self, requests: Sequence[Request], every_family: bool = True) -> MineReport:
        """Store and group ``requests``; the report lists every family of their projects
        unless ``every_family`` is off (then only ``grown``)."""
        report = MineReport()
        fresh = self.store.add_requests(requests)
        report.bump("requests", len(requests))
        report.bump("new_requests", len(fresh))
        for project in sorted({r.project for r in requests}):
            self._mine_project(project, report)
            if every_family:
                grown = {f.id: f for f in report.grown if f.project == project}
                report.families += [
                    Family(fid, project, ids, new=fid in grown and grown[fid].new,
                           grew=fid in grown)
                    for fid, ids in sorted(self.store.family_members(project).items())]
        report.bump("embedded", self.cache.embedded)
        return report

    def _members(self, rows: Sequence[RequestRow], index: ProjectIndex) -> list[Member]:
        vectors = self.combined(rows, index)
        return [Member(r.id, r.session_id, v, self.intent(r.text), (r.text, r.actions))
                for r, v in zip(rows, vectors, strict=True)]

    def _mine_project(self, project: str, report: MineReport) -> None:
        index = self.open_index(project)
        state = self._state(project)
        since = self.store.rows_since(project, state.mined_seq)
        fresh = [r for r in since if r.family_id is None]
        full = state.full_due(len(fresh))
        pending_rows = self.store.pending_rows(project)
        taken = self._members(pending_rows if full else fresh, index)
        joined = self._join_existing(project, taken, index)
        touched = dict.fromkeys(joined.values(), False)
        still = [m for m in taken if m.id not in joined]
        pending_rows = [r for r in pending_rows if r.id not in joined]
        pool = still if full else self._with_pending_neighbours(still, pending_rows, index)
        touched |= self._form(project, pool)
        if since:
            state.mined_seq = since[-1].seq
        pending = self.store.count_requests(project, pending=True)
        state.pool, state.added = (pending, 0) if full else (state.pool, state.added + len(fresh))
        self.store.save_state(project, self._space, vars(state))
        report.bump("full_passes" if full else "incremental_passes")
        report.bump("pending", pending)
        report.bump("new_families", sum(touched.values()))
        report.bump("families", self.store.count_families(project))
        report.grown += [Family(fid, project, ids, new=touched[fid], grew=True)
                         for fid, ids in sorted(self.store.members_of(touched).items())]

    def _join_existing(self, project: str, taken: list[Member],
                       index: ProjectIndex) -> dict[str, str]:
        """Requests that fit an existing family join it; returns ``{request id: family}``.

        Candidates are the families whose mean vectors are nearest (a faiss search over
        the project's families, not its requests): the inner product of a request with a
        family's mean *is* its mean cosine to the members, so the search ranks exactly
        what the join decides on.
        """
        joined: dict[str, str] = {}
        ids = self.store.family_ids(project)
        if not ids or not taken:
            return joined
        groups = self._family_groups(project, ids, index)
        order = sorted(groups)
        means = np.stack([groups[f].total / groups[f].size for f in order]).astype(np.float32)
        near = faiss_scored(means, np.stack([m.vector for m in taken]),
                            self.settings.neighbours)
        grown: set[str] = set()  # families joined in this pass: their means moved
        for item, hits in zip(taken, near, strict=True):
            candidates = {order[r]: groups[order[r]] for r, _ in hits}
            known = {order[r]: s for r, s in hits if order[r] not in grown}
            fid = best_family(item, candidates, self.settings.threshold, self.compat, known)
            if fid is not None:
                joined[item.id] = fid
                grown.add(fid)
                groups[fid].absorb(Group.of(item.vector, self.compat.kind(item.intent)))
        by_family: dict[str, list[str]] = {}
        for rid, fid in joined.items():
            by_family.setdefault(fid, []).append(rid)
        self._save_stats(project, {fid: groups[fid] for fid in by_family})
        self.store.assign_many(by_family)
        return joined

    def _family_groups(self, project: str, family_ids: Sequence[str],
                       index: ProjectIndex) -> dict[str, Group]:
        """Each family as a ``Group`` (vector sum, size, kinds), from ``family_stats`` by key;
        a family without stats (mined before they were kept) is read from its members once."""
        stored = self.store.family_stats(family_ids, self.stats_space(project))
        groups = {fid: self._group(s) for fid, s in stored.items()}
        missing = [f for f in family_ids if f not in stored]
        rows = self.store.member_rows(missing)
        for r, v in zip(rows, self.combined(rows, index), strict=True):
            one = Group.of(v, self.compat.kind(self.intent(r.text)))
            fid = r.family_id or ""
            if fid in groups:
                groups[fid].absorb(one)
            else:
                groups[fid] = one
        self._save_stats(project, {f: groups[f] for f in missing if f in groups})
        return groups

    def _group(self, stats: StatsRow) -> Group:
        kinds = self._kinds.get(stats.kinds)
        if kinds is None:  # families repeat their kinds: each distinct list is parsed once
            kinds = self._kinds[stats.kinds] = frozenset(
                self.compat.kind(Kind(frozenset(a), o, h)) for a, o, h in json.loads(stats.kinds))
        # A read-only view of the stored bytes: ``absorb`` makes a new sum, never adds in place
        return Group([], np.frombuffer(stats.total, dtype=np.float64), set(kinds),
                     stats.size)

    def _save_stats(self, project: str, groups: dict[str, Group]) -> None:
        self.store.save_family_stats(self.stats_space(project), {
            fid: StatsRow(g.size, np.ascontiguousarray(g.total, np.float64).tobytes(),
                          json.dumps([[sorted(k.actions), k.object, k.head]
                                      for k in self.compat.kinds(g.kinds)]))
            for fid, g in groups.items()})

    def _with_pending_neighbours(
        self, still: list[Member], pending: Sequence[RequestRow], index: ProjectIndex
    ) -> list[Member]:
        """``still`` and its nearest pending requests, in arrival order (an incremental
        pass groups new requests with their neighbours, not the whole pending pool)."""
        have = {m.id for m in still}
        others = [r for r in pending if r.id not in have]
        if not still or not others:
            return still
        vectors = self.combined(others, index)
        near = faiss_nearest(vectors, np.stack([m.vector for m in still]),
                             self.settings.neighbours)
        extra = sorted({int(r) for rows in near for r in rows})
        pool = still + self._members([others[r] for r in extra], index)
        seq = {r.id: r.seq for r in pending}
        return sorted(pool, key=lambda m: seq[m.id])

    def _form(self, project: str, pool: list[Member]) -> dict[str, bool]:
        """New families among ``pool`` (in arrival order), stored with balanced splits."""
        counts = self.store.split_counts(project)
        by_id = {m.id: m for m in pool}
        formed: list[tuple[FamilyRow, list[str]]] = []
        stats: dict[str, Group] = {}
        for fid, ids in new_families(project, pool, self.settings, self.compat):
            split = balanced_split(fid, counts, self.ratios)
            counts[split] = counts.get(split, 0) + 1
            formed.append((FamilyRow(fid, project, self.embedder.name, split, ids[:2],
                                     utcnow().isoformat()), ids))
            group = Group([], np.zeros(self.embedder.dim + self.combiner.dim), set(), 0)
            for rid in ids:
                group.absorb(Group.of(by_id[rid].vector, self.compat.kind(by_id[rid].intent)))
            stats[fid] = group
        self.store.create_families(formed)
        self._save_stats(project, stats)
        return dict.fromkeys(stats, True)
