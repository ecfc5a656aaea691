"""Which skill a task family trains.

In order: the skill the agent actually loaded in the family's sessions (the most
frequent across members); else the existing skill whose description is nearest the
family's representative request, if near enough; else the managed catch-all skill.
A family routed to the catch-all is one no skill covers.

A route names a folder, never a raw loaded name: ``names`` maps what the agent loaded to
the folder a night may write (the existing folder, the name itself, or a slug), and a
plugin skill, being read-only, is left out of the first step and reported as skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from skillopt_sleep.skill_names import Skipped, writable

LEARNED_SKILL = "skillopt-sleep-learned"
MIN_SIMILARITY = 0.35


@dataclass
class SkillInfo:
    """An existing skill as routing and deduplication see it."""

    name: str
    description: str
    text: str = ""
    folder: str = ""
    """The folder the skill lives in (its ``name:`` may differ); defaults to the name."""

    def __post_init__(self) -> None:
        self.folder = self.folder or self.name

    @property
    def routing_text(self) -> str:
        return f"{self.name}: {self.description}"


@dataclass
class Route:
    skill: str  # a folder name
    reason: str  # "loaded", "nearest" or "catch-all"
    similarity: float = 0.0
    skipped: list[Skipped] = field(default_factory=list)  # loaded but not trainable

    @property
    def covered(self) -> bool:
        return self.reason != "catch-all"


def route(
    skills_used: Sequence[Sequence[str]],
    intent_vector: np.ndarray | None,
    skills: Sequence[SkillInfo],
    skill_vectors: np.ndarray | None,
    min_similarity: float = MIN_SIMILARITY,
) -> Route:
    """Route one family. ``skills_used`` holds each member's loaded skills; ``skill_vectors``
    row ``i`` embeds ``skills[i].routing_text`` in the same space as ``intent_vector``."""
    loaded: Counter[str] = Counter()
    skipped: dict[Skipped, None] = {}
    for names in skills_used:
        folders, skips = writable(sorted({n for n in names if n}), skills)
        loaded.update(set(folders))
        skipped.update(dict.fromkeys(skips))
    skips = sorted(skipped, key=lambda s: s.skill)
    if loaded:
        # Most frequent first, then by name, so ties route the same way every night.
        name = sorted(loaded.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        return Route(name, "loaded", skipped=skips)
    if skills and intent_vector is not None and skill_vectors is not None and len(skill_vectors):
        scores = skill_vectors @ intent_vector
        best = int(np.argmax(scores))
        if float(scores[best]) >= min_similarity:
            return Route(skills[best].folder, "nearest", float(scores[best]), skips)
    return Route(LEARNED_SKILL, "catch-all", skipped=skips)
