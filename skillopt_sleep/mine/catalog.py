"""The task catalogue: mine requests into families, route them, build and store tasks.

This is what the ``tasks`` command and a night call. Tasks are rebuilt only for
families that formed or grew in this pass (or have none yet), so the LLM miner is asked
about a family once per change, not once per night.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.mine.families import Family, FamilySettings
from skillopt_sleep.mine.miner import Miner, MineReport
from skillopt_sleep.mine.requests import Request
from skillopt_sleep.mine.route import SkillInfo, route
from skillopt_sleep.mine.splits import DEFAULT_RATIOS
from skillopt_sleep.mine.tasks import FamilyEvidence, build_tasks
from skillopt_sleep.mine.vectors import medoid
from skillopt_sleep.models.base import LLM
from skillopt_sleep.records import Task
from skillopt_sleep.skill_names import is_route


@dataclass
class CatalogResult:
    tasks: list[Task] = field(default_factory=list)
    report: MineReport = field(default_factory=MineReport)
    uncovered: list[str] = field(default_factory=list)  # families routed to the catch-all


@dataclass
class CatalogSettings:
    family: FamilySettings = field(default_factory=FamilySettings)
    ratios: Sequence[float] = DEFAULT_RATIOS
    variants: int = 3


class Catalog:
    """Keeps the archive's tasks in step with its requests."""

    def __init__(self, archive: Archive, embedder: Embedder, *, skills: Sequence[SkillInfo] = (),
                 llm: LLM | None = None, settings: CatalogSettings | None = None,
                 index_base: Path | None = None):
        self.settings = settings or CatalogSettings()
        self.miner = Miner(archive, embedder, self.settings.family, self.settings.ratios,
                           index_base)
        self.store = self.miner.store
        self.skills = list(skills)
        self.llm = llm
        self._skill_vectors: np.ndarray | None = None

    def skill_vectors(self) -> np.ndarray | None:
        if self._skill_vectors is None and self.skills:
            self._skill_vectors = self.miner.cache.vectors([s.routing_text for s in self.skills])
        return self._skill_vectors

    def refresh(self, requests: Sequence[Request]) -> CatalogResult:
        report = self.miner.mine(requests)
        result = CatalogResult(report=report)
        # A family whose stored route is not a folder routing would give (routed before
        # plugin skills and other real names were mapped) is routed again.
        stored = {fid for fid, skill in self.store.task_routes()
                  if is_route(skill or "", self.skills)}
        by_project: dict[str, list[Family]] = {}
        for family in report.families:
            by_project.setdefault(family.project, []).append(family)
        for project, families in sorted(by_project.items()):
            index = self.miner.open_index(project)
            for family in families:
                if not family.grew and family.id in stored:
                    continue
                tasks = self._family_tasks(family, index.vectors(family.members))
                self.store.save_tasks(tasks)
                report.bump("tasks_built", len(tasks))
        for project in sorted(by_project):
            result.tasks += self.store.tasks(project)
        result.uncovered = sorted({t.family_id for t in result.tasks
                                   if t.meta.get("route") == "catch-all"})
        report.bump("unreplayable", sum(1 for t in result.tasks
                                        if not t.meta.get("replayable", True)))
        return result

    def _family_tasks(self, family: Family, vectors: np.ndarray) -> list[Task]:
        row = self.store.family(family.id)
        members = self.store.members(family.id)
        split = row.split if row else "train"
        evidence = FamilyEvidence(family.id, family.project, split, members, vectors)
        decided = route([m.skills_used for m in members], vectors[medoid(vectors)],
                        self.skills, self.skill_vectors())
        skill = next((s for s in self.skills if s.folder == decided.skill), None)
        return build_tasks(evidence, decided, skill, self.llm, self.settings.variants)
