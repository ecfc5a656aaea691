"""The managed skill: the one skillopt-sleep creates for the tasks no installed skill covers.

A night trains it like any other; until its first adoption it is not installed, so the
trigger check shows the target its card with the description it will be written with.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Sequence

from skillopt_sleep.records import Task

__all__ = ["MANAGED_DESCRIPTION", "MANAGED_SKILL", "first_description", "group_by_skill",
           "new_descriptions"]

MANAGED_SKILL = "skillopt-sleep-learned"
MANAGED_DESCRIPTION = (
    "Lessons learned from your own coding-agent sessions: recurring tasks "
    "and the corrections you gave. Use for any task in this project."
)


def first_description(skill: str) -> str:
    """The description ``skill``'s document is created with when it is not installed yet."""
    return MANAGED_DESCRIPTION if skill == MANAGED_SKILL else skill


def new_descriptions(skills: Iterable[str]) -> dict[str, str]:
    """``first_description`` of each skill trained tonight."""
    return {s: first_description(s) for s in skills}


def group_by_skill(tasks: Sequence[Task]) -> dict[str, list[Task]]:
    """``tasks`` by the skill each trains; an unrouted task trains the managed skill and is
    named so, since what a night routes, shows the optimizer and samples for its report is
    grouped by the task's skill."""
    by_skill: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        task = task if task.skill else dataclasses.replace(task, skill=MANAGED_SKILL)
        by_skill[task.skill].append(task)
    return by_skill
