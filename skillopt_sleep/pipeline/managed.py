"""The managed skill: the one skillopt-sleep creates for the tasks no installed skill covers.

A night trains it like any other; until its first adoption it is not installed, so the
trigger check shows the target its card with the description it will be written with.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MANAGED_DESCRIPTION", "MANAGED_SKILL", "first_description", "new_descriptions"]

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
