"""The trigger check's setup for a pipeline night: which skills are installed beside the
one being trained, and which tasks belong to them.

The cards are every skill in the run's skill roots (the user's roots, and the project's
when configured; the first root holding a folder wins), plus every skill tonight trains
that is not installed yet (the managed ``skillopt-sleep-learned`` skill among them, with
the description it will be written with). Foreign tasks are the tasks routed to the other
skills tonight, so false triggers are measured on real work of theirs. ``answers`` is the
run's store of routing replies, shared by every skill's night (``trigger.RouteAnswers``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from skillopt_sleep.mine.skills import discover_skills
from skillopt_sleep.night.describe import TriggerSetup
from skillopt_sleep.night.trigger import RouteAnswers, SkillCard
from skillopt_sleep.records import Task


def trigger_setup(skill: str, by_skill: Mapping[str, Sequence[Task]], roots: list[Path],
                  new_description: Mapping[str, str],
                  answers: RouteAnswers | None = None) -> TriggerSetup:
    """The other installed skills' cards and tasks for the night of ``skill`` (a folder).

    ``new_description`` gives, per skill trained tonight, the description its document
    would be created with when it is not installed yet."""
    cards: dict[str, SkillCard] = {}
    for info in discover_skills(roots):
        if info.folder != skill:
            cards.setdefault(info.folder, SkillCard(info.name, info.description))
    for other, description in new_description.items():
        if other != skill:
            cards.setdefault(other, SkillCard(other, description))
    foreign = [t for other, tasks in sorted(by_skill.items()) if other != skill for t in tasks]
    return TriggerSetup(others=list(cards.values()), foreign_tasks=foreign, answers=answers)
