"""What a skill's night needs from the rest of the project: its neighbours and its stale entries.

*Neighbours* (``night.cross``): every other skill trained tonight that shares a task family
with this one, or that the agents loaded in the same sessions at least
``cross_min_sessions`` times (harvest's ``skills_used``), each with its own train and
validation tasks (a check replays ``cross_tasks`` of them, chosen per edit) and its live
document.

*Retirement* (``night.retire``): on every ``retire_every``-th night of the skill, the learned
entries no task exercised for ``retire_after`` nights (``night.usage``).

``after_night`` keeps the usage (accepted and retired entries, what tonight's tasks
exercised) and puts the entry table and the harvest's load figures on the result for the
report.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.usage import co_loaded, skill_loads
from skillopt_sleep.config import Settings
from skillopt_sleep.night import usage
from skillopt_sleep.night.cross import Neighbour, changed
from skillopt_sleep.publish.adopt import read_live
from skillopt_sleep.records import NightResult, Split, Task
from skillopt_sleep.skilldoc import new_skill

__all__ = ["Companions", "after_night", "companions", "neighbours", "recheck"]


@dataclass(frozen=True)
class Companions:
    neighbours: list[Neighbour]
    retire: list[str]
    seq: int
    """The night's ordinal among the skill's nights (0: its first)."""
    recheck: tuple[str, ...] = ()
    """The neighbours its entries are re-checked against (``night.cross.changed``)."""


def neighbours(archive: Archive, settings: Settings, project: str, skill: str,
               by_skill: dict[str, list[Task]], roots: list[Path]) -> list[Neighbour]:
    """The skills ``skill``'s night checks its edits against (see the module)."""
    if not settings.cross_tasks:
        return []
    together: Counter[str] = co_loaded(archive, project).get(skill, Counter())
    families = {t.family_id for t in by_skill.get(skill, [])}
    found = []
    for other, tasks in sorted(by_skill.items()):
        shared = families & {t.family_id for t in tasks}
        sessions = together.get(other, 0)
        if other == skill or (not shared and sessions < settings.cross_min_sessions):
            continue
        # Its train and validation tasks (this skill never trained on either; its test split
        # stays for the figures): more pairs than validation alone for a small harm.
        # The night samples ``cross_tasks`` of them per edit (``night.cross.focus``).
        val = sorted((t for t in tasks if t.split != Split.TEST.value), key=lambda t: t.id)
        text = read_live(roots, other)[0] or new_skill(other, other)
        why = (f"shares {len(shared)} families" if shared else
               f"loaded together in {sessions} sessions")
        found.append(Neighbour(other, text, tuple(val), why))
    return found


def companions(archive: Archive, settings: Settings, project: str, skill: str, text: str,
               night_id: str, by_skill: dict[str, list[Task]], roots: list[Path]
               ) -> Companions:
    """Neighbours and retirement candidates of tonight's night of ``skill``."""
    seq = archive.count_nights(project, skill)
    retire: list[str] = []
    if usage.retire_night(seq, settings.retire_every):
        retire = usage.stale(archive, project, skill, text, night_id, seq, settings.retire_after)
    near = neighbours(archive, settings, project, skill, by_skill, roots)
    last = archive.last_night(project, skill)
    return Companions(near, retire, seq, recheck(last, skill, text, near))


def recheck(last: NightResult | None, skill: str, text: str,
            near: list[Neighbour]) -> tuple[str, ...]:
    """The neighbours ``skill``'s entries are re-checked against tonight: the ones that
    changed since its ``last`` night (``night.cross.changed``)."""
    return changed(last.neighbours_seen if last else None, near, skill, text)


def after_night(archive: Archive, result: NightResult, tasks: list[Task], seq: int) -> None:
    """Keep tonight's usage and put the entry table and load figures on ``result``."""
    usage.keep(archive, result, tasks, seq)
    loads = skill_loads(archive, result.project).get(result.skill)
    result.loads = dataclasses.asdict(loads) if loads else {}
