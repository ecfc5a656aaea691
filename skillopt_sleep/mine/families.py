"""Recurring task families: requests of the same intent, asked in several sessions.

Each request is reduced to its intent (``intent.parse``): the vectors grouped are those
of its canonical form ("run tests"), not of its raw wording. Grouping is average-linkage
agglomeration over nearest-neighbour edges: two groups merge when the mean cosine
between their members reaches ``threshold`` and every pair of their members may share
an intent (``intent.same_intent_possible``: same action class, same object, same
deliverable). The guards carry the precision, so the threshold can be low enough to
join distant paraphrases. Candidate edges come from a k-nearest-neighbour search, so
the work grows with n·k, not n².

A family's id is derived from its project and its first two members (in arrival order)
when it forms, and never changes: later requests join it, families are never merged or
re-split, so the split of every family (``splits.split_for``) is the same every night.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import faiss
import numpy as np

from skillopt_sleep.mine.intent import Intent, parse, same_intent_possible
from skillopt_sleep.records import sha256_text


@dataclass
class FamilySettings:
    """``threshold``: mean cosine to join; ``min_sessions``: distinct sessions to form."""

    threshold: float = 0.3
    min_sessions: int = 2
    neighbours: int = 20
    max_compare: int = 200


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
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    scores, rows = index.search(np.ascontiguousarray(vectors, dtype=np.float32), min(k + 1, n))
    edges: dict[tuple[int, int], float] = {}
    for i in range(n):
        for s, j in zip(scores[i], rows[i], strict=True):
            if j < 0 or j == i:
                continue
            edges[(min(i, int(j)), max(i, int(j)))] = float(s)
    # Ties broken by index so the grouping is deterministic.
    return sorted(((s, i, j) for (i, j), s in edges.items()), key=lambda e: (-e[0], e[1], e[2]))


def _all_compatible(a: Sequence[Intent], b: Sequence[Intent]) -> bool:
    return all(same_intent_possible(x, y) for x in set(a) for y in set(b))


def cluster(
    vectors: np.ndarray, intents: Sequence[Intent], threshold: float, neighbours: int = 20
) -> list[list[int]]:
    """Groups of row indices (each sorted, groups by first member); singletons included."""
    owner = list(range(len(vectors)))
    groups: dict[int, list[int]] = {i: [i] for i in range(len(vectors))}
    for score, i, j in neighbour_edges(vectors, neighbours):
        if score < threshold:
            break  # the mean of a set cannot reach the threshold if its best pair does not
        a, b = owner[i], owner[j]
        if a == b:
            continue
        ga, gb = groups[a], groups[b]
        if not _all_compatible([intents[x] for x in ga], [intents[x] for x in gb]):
            continue
        if float((vectors[ga] @ vectors[gb].T).mean()) < threshold:
            continue
        keep, gone = (a, b) if a < b else (b, a)
        groups[keep] = sorted(groups[keep] + groups.pop(gone))
        for x in groups[keep]:
            owner[x] = keep
    return sorted(groups.values())


@dataclass
class Member:
    """What grouping needs to know of one request."""

    id: str
    session_id: str
    vector: np.ndarray  # of the canonical form, ``intent.canonical``
    intent: Intent


def best_family(
    item: Member, candidates: dict[str, list[Member]], threshold: float
) -> str | None:
    """The candidate family ``item`` fits best (mean cosine ≥ threshold, intents agree)."""
    best, best_score = None, threshold
    for fid in sorted(candidates):
        members = candidates[fid]
        if not _all_compatible([item.intent], [m.intent for m in members]):
            continue
        score = float(np.mean(np.stack([m.vector for m in members]) @ item.vector))
        if score >= best_score:
            best, best_score = fid, score
    return best


def new_families(
    project: str, pending: Sequence[Member], settings: FamilySettings
) -> list[tuple[str, list[str]]]:
    """Families formed among requests no family holds yet: ``(family id, member ids)``.

    ``pending`` is in arrival order. A group forms a family only once its members come
    from ``min_sessions`` distinct sessions; smaller groups wait for a later night.
    """
    if not pending:
        return []
    vectors = np.stack([m.vector for m in pending])
    groups = cluster(vectors, [m.intent for m in pending], settings.threshold,
                     settings.neighbours)
    formed = []
    for group in groups:
        if len({pending[i].session_id for i in group}) < settings.min_sessions:
            continue
        ids = [pending[i].id for i in group]  # group indices are sorted: arrival order
        formed.append((family_id(ids), ids))
    return formed


def member(request_id: str, session_id: str, text: str, vector: np.ndarray) -> Member:
    """``vector`` must be the embedding of ``parse(text).canonical``."""
    return Member(request_id, session_id, vector, parse(text))
