"""Recurring task families: requests of the same intent, asked in several sessions.

Each request is reduced to its intent (``intent.parse``): the vectors grouped are those
of its canonical form ("run tests"), not of its raw wording. Grouping is average-linkage
agglomeration over nearest-neighbour edges: two groups merge when the mean cosine
between their members reaches ``threshold`` and every pair of their members may share
an intent (``intent.same_intent_possible``: same action class, same object, same
deliverable). The guards carry the precision, so the threshold can be low enough to
join distant paraphrases. Candidate edges come from a k-nearest-neighbour search, so
the work grows with n·k, not n²; a group is kept as the sum of its vectors and its
distinct intents (``Group``), so judging a merge costs the same for two members or two
thousand, and requests with the same intent start as one group.

A family's id is derived from its project and its first two members (in arrival order)
when it forms, and never changes: later requests join it, families are never merged or
re-split, so the split of every family (``splits.split_for``) is the same every night.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import faiss
import numpy as np

from skillopt_sleep.mine.fingerprint import Combiner
from skillopt_sleep.mine.intent import Intent, Kind, embed_text, parse, same_intent_possible
from skillopt_sleep.records import sha256_text

TRUST = 0.8


@dataclass
class FamilySettings:
    """``threshold``: mean similarity to join; ``min_sessions``: distinct sessions to form;
    ``text_weight``: share of the text cosine in the similarity of two requests that both
    have an action fingerprint (the rest is the fingerprint's cosine, ``fingerprint``);
    ``guards``: whether the English intent tables may forbid a merge
    (``intent.same_intent_possible``)."""

    threshold: float = 0.3
    min_sessions: int = 2
    neighbours: int = 20
    text_weight: float = 0.0
    """Measured on the multilingual set (``experiments/mining_quality.py --sweep``): the
    English-only text model adds no recall or precision once the fingerprint is there
    (0.1: P 0.918 R 0.867; 0: P 0.916 R 0.870), and it scatters non-English requests.
    The text still decides for requests that ran no tool, and the English tables
    (``guards``) still veto English requests of different intents."""
    guards: bool = True
    action_threshold: float = 0.45
    """The bar two requests that both have a fingerprint must reach on the combined
    similarity (``threshold`` stays the bar of text alone)."""
    trust: float = TRUST
    unread_trust: float = 2.0
    """Mean fingerprint cosine two groups that both ran tools must reach to merge when the
    tables could not read what some member asked (another language, unknown wording): the
    tables veto nothing there, so the work must agree more than the bar alone asks."""
    """Mean fingerprint cosine between two groups at which what the agent did outweighs
    the English tables' veto (``Compatibility``); above 1, the tables always decide."""

    def combiner(self) -> Combiner:
        scale = (self.threshold / self.action_threshold) ** 0.5 if self.action_threshold else 1.0
        return Combiner(self.text_weight, scale=min(scale, 1.0))

    def compatibility(self, combiner: Combiner | None = None) -> Compatibility:
        """The merge check these settings ask for, reading fingerprints as ``combiner`` lays
        them out (default: ``self.combiner()``)."""
        combiner = combiner or self.combiner()
        trust = self.trust

        def vouch(a: Group, b: Group) -> bool:
            return combiner.work_cosine(a.total, a.size, b.total, b.size) >= trust

        bar = self.unread_trust

        def agree(a: Group, b: Group) -> bool:
            return not (combiner.has_work(a.total) and combiner.has_work(b.total)) \
                or combiner.work_cosine(a.total, a.size, b.total, b.size) >= bar

        return Compatibility(self.guards, vouch if trust <= 1.0 else None,
                             agree if bar <= 1.0 else None)


@dataclass
class Family:
    id: str
    project: str
    members: list[str] = field(default_factory=list)
    new: bool = False  # formed in this pass
    grew: bool = False  # formed or joined by a request in this pass


def family_id(first_members: Sequence[str]) -> str:
    """Stable id of a family from the members it formed with.

    Member ids are turn ids (``<source>:<session_id>:<index>``), unique across projects, so
    the project's path is left out: the same history gives the same ids (and splits)
    wherever it sits on disk. Families formed before keep the ids they were stored with.
    """
    return "fam-" + sha256_text("\x00".join(first_members[:2]))[:12]


def neighbour_edges(vectors: np.ndarray, k: int) -> list[tuple[float, int, int]]:
    """Pairs ``(cosine, i, j)`` with ``i < j`` among each row's ``k`` nearest rows, best first."""
    n = len(vectors)
    if n < 2:
        return []
    block = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexFlatIP(block.shape[1])
    index.add(block)
    scores, rows = index.search(block, min(k + 1, n))
    left = np.repeat(np.arange(n), rows.shape[1])
    right = rows.ravel().astype(np.int64)
    score = scores.ravel()
    keep = (right >= 0) & (right != left)
    i = np.minimum(left[keep], right[keep])
    j = np.maximum(left[keep], right[keep])
    score = score[keep]
    # Ties broken by index so the grouping is deterministic; a pair found from both ends
    # is kept once (same score either way).
    order = np.lexsort((j, i, -score))
    i, j, score = i[order], j[order], score[order]
    _, where = np.unique(i * n + j, return_index=True)
    first = np.zeros(len(i), dtype=bool)
    first[where] = True
    return [(float(s), int(a), int(b))
            for s, a, b in zip(score[first], i[first], j[first], strict=True)]


class Compatibility:
    """``same_intent_possible`` between the kinds (``intent.Kind``) of two groups, memoised.

    Requests repeat their kinds (the same ask in many sessions, on many targets), so a
    group of hundreds of members holds a handful of kinds; each kind gets a small int
    (``kind``) and each pair of kinds is judged once.

    ``vouch(a, b)``, when given, lets two groups merge whatever their words say if the
    tables could not read some member (``groups``): the tables read English only, and one
    pair of English phrasings they misjudge ("bring up the stack" / "start the services")
    would otherwise keep apart two groups that ran the same commands on the same files in
    every language.
    """

    def __init__(self, guards: bool = True,
                 vouch: Callable[[Group, Group], bool] | None = None,
                 unread: Callable[[Group, Group], bool] | None = None) -> None:
        self.guards = guards  # False: every pair may merge (the tables are not consulted)
        self.vouch = vouch
        self.unread = unread  # the work's own say where the tables read nothing
        self._ids: dict[Kind, int] = {}
        self._kinds: list[Kind] = []
        self._seen: dict[tuple[int, int], bool] = {}
        self._unread: set[int] = set()  # kinds with no verb the tables know

    def kind(self, intent: Intent | Kind) -> int:
        key = intent.kind if isinstance(intent, Intent) else intent
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._kinds)
            self._kinds.append(key)
            if not key.actions:
                self._unread.add(found)
        return found

    def kinds(self, ids: Iterable[int]) -> list[Kind]:
        return [self._kinds[i] for i in sorted(ids)]

    def pair(self, a: int, b: int) -> bool:
        found = self._seen.get((a, b))
        if found is None:
            found = not self.guards or same_intent_possible(self._kinds[a], self._kinds[b])
            self._seen[(a, b)] = self._seen[(b, a)] = found
        return found

    def all(self, a: Iterable[int], b: Iterable[int]) -> bool:
        others = list(b)
        return all(self.pair(x, y) for x in a for y in others)

    def groups(self, a: Group, b: Group) -> bool:
        """Whether two groups may merge: their kinds agree, or their work vouches for them
        and the tables could not read what was asked of some member (no verb they know:
        another language, or wording they lack). Where the tables read every member,
        their veto stands: two English asks that ran the same one command stay apart."""
        unread = not (self._unread.isdisjoint(a.kinds) and self._unread.isdisjoint(b.kinds))
        if self.all(a.kinds, b.kinds):
            return not (unread and self.guards and self.unread) or self.unread(a, b)
        if self.vouch is None:
            return False
        return unread and self.vouch(a, b)


@dataclass
class Group:
    """A set of requests as average linkage sees it: the sum of their vectors, their
    count and their distinct intents. The mean cosine between two groups is
    ``total_a · total_b / (size_a · size_b)``, so a merge costs one dot product however
    large the groups are."""

    rows: list[int]
    total: np.ndarray
    kinds: set[int]  # ``Compatibility.kind`` of the members' intents
    size: int = 1

    @classmethod
    def of(cls, vector: np.ndarray, kind: int, row: int | None = None) -> Group:
        """A group of one request (``row``: its index, when grouping rows)."""
        return cls([] if row is None else [row], vector.astype(np.float64), {kind})

    def mean_cosine(self, other: Group) -> float:
        return float(self.total @ other.total) / (self.size * other.size)

    def absorb(self, other: Group) -> None:
        self.rows += other.rows
        self.total = self.total + other.total
        self.kinds |= other.kinds
        self.size += other.size


def _unique_groups(
    vectors: np.ndarray | Sequence[np.ndarray], intents: Sequence[Intent], compat: Compatibility,
    keys: Sequence[Hashable] | None = None,
) -> list[Group]:
    """One group per distinct key (default: intent), in order of first appearance.

    Equal keys must mean equal vectors (an intent and the same fingerprint: cosine 1, the
    best edge there is) and always agree, so average linkage would merge them first
    anyway; merging them up front also keeps a repeated ask from filling its own
    neighbour list.
    """
    first: dict[Hashable, Group] = {}
    for row, intent in enumerate(intents):
        key = intent if keys is None else keys[row]
        group = first.get(key)
        if group is None:
            first[key] = Group.of(vectors[row], compat.kind(intent), row)
        else:
            group.absorb(Group.of(vectors[row], compat.kind(intent), row))
    return list(first.values())


def cluster(
    vectors: np.ndarray | Sequence[np.ndarray], intents: Sequence[Intent], threshold: float,
    neighbours: int = 20, compat: Compatibility | None = None,
    keys: Sequence[Hashable] | None = None,
) -> list[list[int]]:
    """Groups of row indices (each sorted, groups by first member); singletons included.
    ``keys``: rows with equal keys have equal vectors (default: equal intents do)."""
    if len(vectors) == 0:
        return []
    compat = compat or Compatibility()
    units = _unique_groups(vectors, intents, compat, keys)
    heads = np.stack([vectors[u.rows[0]] for u in units])
    owner = list(range(len(units)))
    groups: dict[int, Group] = dict(enumerate(units))
    members: dict[int, list[int]] = {i: [i] for i in range(len(units))}
    for score, i, j in neighbour_edges(heads, neighbours):
        if score < threshold:
            break  # the mean of a set cannot reach the threshold if its best pair does not
        a, b = owner[i], owner[j]
        if a == b:
            continue
        ga, gb = groups[a], groups[b]
        if ga.mean_cosine(gb) < threshold or not compat.groups(ga, gb):
            continue
        keep, gone = (a, b) if a < b else (b, a)
        groups[keep].absorb(groups.pop(gone))
        for unit in members[gone]:
            owner[unit] = keep
        members[keep] += members.pop(gone)
    return sorted(sorted(g.rows) for g in groups.values())


@dataclass
class Member:
    """What grouping needs to know of one request."""

    id: str
    session_id: str
    vector: np.ndarray  # text and fingerprint side by side (``fingerprint.Combiner``)
    intent: Intent
    key: Hashable = None  # equal keys, equal vectors: what was embedded and the fingerprint


def best_family(
    item: Member, candidates: dict[str, Group], threshold: float, compat: Compatibility,
    known: dict[str, float] | None = None,
) -> str | None:
    """The candidate family ``item`` fits best (mean cosine ≥ threshold, may merge).

    ``known``: mean cosines already at hand (a search over family means gives them); the
    others are computed. Candidates are tried best first and the first that may merge
    wins, so the merge check, which walks every kind a family holds, runs only for the
    few above the bar."""
    known = known or {}
    ranked = sorted(
        (-(known[fid] if fid in known else float(g.total @ item.vector) / g.size), fid)
        for fid, g in candidates.items())
    one = None
    for negative, fid in ranked:
        if -negative < threshold:
            break
        one = one or Group.of(item.vector, compat.kind(item.intent))
        if compat.groups(one, candidates[fid]):
            return fid
    return None


def new_families(
    project: str, pending: Sequence[Member], settings: FamilySettings,
    compat: Compatibility | None = None,
) -> list[tuple[str, list[str]]]:
    """Families formed among requests no family holds yet: ``(family id, member ids)``.

    ``pending`` is in arrival order. A group forms a family only once its members come
    from ``min_sessions`` distinct sessions; smaller groups wait for a later night.
    """
    if not pending:
        return []
    # The rows are not stacked: grouping reads one vector per distinct intent.
    groups = cluster([m.vector for m in pending], [m.intent for m in pending],
                     settings.threshold, settings.neighbours, compat,
                     [m.key if m.key is not None else m.intent for m in pending])
    formed = []
    for group in groups:
        if len({pending[i].session_id for i in group}) < settings.min_sessions:
            continue
        ids = [pending[i].id for i in group]  # group indices are sorted: arrival order
        formed.append((family_id(ids), ids))
    return formed


def member(request_id: str, session_id: str, text: str, vector: np.ndarray) -> Member:
    """``vector`` must be the embedding of ``intent.embed_text(text)``."""
    return Member(request_id, session_id, vector, parse(text), embed_text(text))
