"""recall_k: the past tasks nearest to tonight's, contrasted by outcome.

For a task the night is about to reflect on, find the k nearest past requests (of the
same project, or of all projects) that belong to *train* families — a validation or
test family must never leak into what reflection sees — deduplicated by wording, and
chosen so that about half show the other outcome: past successes next to a current
failure, past failures next to a current success.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import MiningStore
from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.mine.index import ProjectIndex, space
from skillopt_sleep.mine.intent import embed_text
from skillopt_sleep.mine.vectors import VectorCache
from skillopt_sleep.records import Split, Task

SCOPES = ("project", "all")
_SPACE = re.compile(r"\s+")


@dataclass
class Neighbour:
    request_id: str
    family_id: str
    project: str
    text: str
    outcome: str
    similarity: float
    final_answer: str = ""


def task_outcome(task: Task) -> str:
    """``failure`` when most judged members of the task's family failed, else ``success``
    (``unknown`` when none was judged)."""
    outcomes = task.meta.get("outcomes") or {}
    failed, passed = int(outcomes.get("failure", 0)), int(outcomes.get("success", 0))
    if failed == passed == 0:
        return "unknown"
    return "failure" if failed >= passed else "success"


def _key(text: str) -> str:
    return _SPACE.sub(" ", text.strip().lower())


def contrast(candidates: list[Neighbour], k: int, current: str) -> list[Neighbour]:
    """Up to ``k`` candidates (given best first), at least half of the opposite outcome
    when there are enough; returned best first."""
    if current not in ("failure", "success"):
        return candidates[:k]
    want = "success" if current == "failure" else "failure"
    other = [c for c in candidates if c.outcome == want][: math.ceil(k / 2)]
    rest = [c for c in candidates if c.outcome != want][: k - len(other)]
    if len(other) + len(rest) < k:
        chosen = {id(c) for c in other + rest}
        other += [c for c in candidates if id(c) not in chosen][: k - len(other) - len(rest)]
    return sorted(other + rest, key=lambda c: (-c.similarity, c.request_id))


class Recaller:
    """Answers recall_k queries; keeps each project's index open between queries."""

    def __init__(self, archive: Archive, embedder: Embedder, index_base: Path | None = None):
        self.store = MiningStore(archive)
        self.cache = VectorCache(archive, embedder)
        self.embedder = embedder
        self.index_base = index_base
        self._indexes: dict[str, ProjectIndex] = {}

    def _index(self, project: str) -> ProjectIndex:
        if project not in self._indexes:
            self._indexes[project] = ProjectIndex.open(
                project, space(self.embedder.name), self.embedder.dim, self.index_base)
        return self._indexes[project]

    def recall(self, task: Task, k: int = 20, scope: str = "project") -> list[Neighbour]:
        # The index holds what mining embeds (``embed_text``), so the query is that too.
        vector = self.cache.vectors([embed_text(task.intent)])[0]
        return self.recall_vector(vector, task.project, k, scope, task_outcome(task), task.intent)

    def recall_vector(self, vector: np.ndarray, project: str, k: int = 20,
                      scope: str = "project", current: str = "unknown",
                      exclude_text: str = "") -> list[Neighbour]:
        projects = [project] if scope == "project" else self.store.projects()
        hits = [hit for p in projects for hit in self._index(p).search(vector, max(5 * k, 50))[0]]
        hits.sort(key=lambda h: (-h[1], h[0]))
        rows = self.store.requests([key for key, _ in hits])
        splits = self.store.splits([fid for _, fid in rows.values() if fid])
        seen = {_key(exclude_text)} if exclude_text else set()
        candidates: list[Neighbour] = []
        for key, score in hits:
            request, fid = rows.get(key, (None, None))
            if request is None or fid is None or splits.get(fid) != Split.TRAIN.value:
                continue
            if _key(request.text) in seen:
                continue
            seen.add(_key(request.text))
            candidates.append(Neighbour(request.id, fid, request.project, request.text,
                                        request.outcome, score, request.final_answer[:2000]))
        return contrast(candidates, k, current)
