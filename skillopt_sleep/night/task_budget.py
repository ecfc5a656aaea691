"""The task budget: how many of a project's mined tasks one night replays, and which.

A year of history mines into thousands of tasks; a night's model calls grow with the tasks
it is given (the gate's validation pairs, the test split scored before and after), so
without a bound only the dollar caps would stop it. The budget caps the tasks per skill
(``max_tasks_per_skill``) and per night (``max_tasks_per_night``, shared out among the
skills), and chooses them by one policy:

1. **Every split represented.** The budget is shared among train, validation and test in
   proportion to what each holds, and each split keeps at least ``MIN_PER_SPLIT`` tasks
   (or all it has): a gate without validation tasks abstains, a report without test tasks
   measures nothing.
2. **Families balanced.** Within a split, families take turns: every chosen family gives
   its first task before any gives a second, so one family asked a thousand times cannot
   crowd out the rest. A family's real requests come before its synthetic paraphrases.
3. **Corrected, then recent work first.** Families are ranked by whether the user corrected
   the agent on them (or a structured failure signal says it went wrong), then by how
   recently they were asked (the newest member's arrival order in the archive), then by id,
   so the choice is the same for the same history.

When everything fits, every task is kept, in its mined order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.records import Split, Task

__all__ = ["MIN_PER_SPLIT", "Choice", "TaskBudget", "apply", "choose", "share_night"]

MIN_PER_SPLIT = 6
"""The fewest tasks a split keeps under a budget (all of them when it has fewer): the
contract's smallest validation split."""


@dataclass(frozen=True)
class TaskBudget:
    per_skill: int = 120
    per_night: int = 300


@dataclass
class Choice:
    """What the budget kept of one skill's tasks."""

    skill: str
    available: int
    chosen: list[Task] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        by_split = {s.value: sum(1 for t in self.chosen if t.split == s.value) for s in Split}
        return {"skill": self.skill, "available": self.available, "chosen": len(self.chosen),
                "families": len({t.family_id for t in self.chosen}), "by_split": by_split}


def share_night(sizes: Mapping[str, int], budget: TaskBudget) -> dict[str, int]:
    """Each skill's limit: at most ``per_skill``, and together at most ``per_night``.

    The night's budget is shared evenly; a skill that needs less than its share leaves the
    rest to the others (smallest first, then by name, so the shares are deterministic).
    """
    limits: dict[str, int] = {}
    left = budget.per_night
    order = sorted(sizes, key=lambda s: (min(sizes[s], budget.per_skill), s))
    for i, skill in enumerate(order):
        fair = left // (len(order) - i)
        limits[skill] = min(sizes[skill], budget.per_skill, fair)
        left -= limits[skill]
    return limits


def apply(
    by_skill: Mapping[str, Sequence[Task]], budget: TaskBudget,
    recency: Mapping[str, int] | None = None,
) -> tuple[dict[str, list[Task]], list[dict[str, Any]]]:
    """Every skill's tasks cut to its share of the night (``share_night``, then ``choose``);
    returns them with one row per skill saying what was kept (``Choice.to_dict``)."""
    limits = share_night({skill: len(tasks) for skill, tasks in by_skill.items()}, budget)
    choices = [choose(skill, by_skill[skill], limits[skill], recency)
               for skill in sorted(by_skill)]
    return {c.skill: c.chosen for c in choices}, [c.to_dict() for c in choices]


def choose(
    skill: str, tasks: Sequence[Task], limit: int, recency: Mapping[str, int] | None = None
) -> Choice:
    """At most ``limit`` of ``tasks`` by the module's policy. ``recency`` maps a family id
    to its newest member's arrival order (larger: more recent); missing counts as oldest."""
    choice = Choice(skill, len(tasks))
    if len(tasks) <= limit:
        choice.chosen = list(tasks)
        return choice
    splits: dict[str, list[Task]] = {}
    for task in tasks:
        splits.setdefault(task.split, []).append(task)
    quotas = _quotas({s: len(ts) for s, ts in splits.items()}, limit)
    ranked = _family_rank(tasks, recency or {})
    picked: set[str] = set()
    for split, split_tasks in splits.items():
        picked.update(t.id for t in _round_robin(split_tasks, quotas[split], ranked))
    # Kept in the mined order: the night's seeded minibatches see the same order as before.
    choice.chosen = [t for t in tasks if t.id in picked]
    return choice


def _quotas(sizes: dict[str, int], limit: int) -> dict[str, int]:
    """Each split's share of ``limit``: proportional (largest remainder), with a floor."""
    # A night's share can be smaller than every split's floor together: then the floors shrink.
    floor = min(MIN_PER_SPLIT, limit // len(sizes))
    floors = {s: min(n, floor) for s, n in sizes.items()}
    room = max(limit - sum(floors.values()), 0)
    rest = {s: n - floors[s] for s, n in sizes.items()}
    total_rest = sum(rest.values())
    if total_rest == 0:
        return floors
    exact = {s: room * r / total_rest for s, r in rest.items()}
    quotas = {s: floors[s] + min(int(exact[s]), rest[s]) for s in sizes}
    spare = min(limit, sum(sizes.values())) - sum(quotas.values())
    for s in sorted(sizes, key=lambda s: (-(exact[s] - int(exact[s])), s)):
        if spare <= 0:
            break
        if quotas[s] < sizes[s]:
            quotas[s] += 1
            spare -= 1
    return quotas


def _corrected(task: Task) -> bool:
    outcomes = task.meta.get("outcomes") or {}
    return bool(task.meta.get("corrections")) or bool(outcomes.get("failure"))


def _family_rank(tasks: Sequence[Task], recency: Mapping[str, int]) -> dict[str, int]:
    """Each family's place in the queue: corrected first, then most recent, then by id."""
    corrected: dict[str, bool] = {}
    for task in tasks:
        corrected[task.family_id] = corrected.get(task.family_id, False) or _corrected(task)
    order = sorted(corrected, key=lambda f: (not corrected[f], -recency.get(f, -1), f))
    return {family: rank for rank, family in enumerate(order)}


def _round_robin(tasks: Sequence[Task], quota: int, rank: Mapping[str, int]) -> list[Task]:
    """``quota`` tasks, one per family per round, families in ``rank`` order."""
    families: dict[str, list[Task]] = {}
    for task in tasks:
        families.setdefault(task.family_id, []).append(task)
    queues = [sorted(ts, key=lambda t: t.synthetic)  # real wordings before paraphrases
              for _, ts in sorted(families.items(), key=lambda kv: rank[kv[0]])]
    out: list[Task] = []
    depth = 0
    while len(out) < quota:
        row = [q[depth] for q in queues if depth < len(q)]
        if not row:
            break
        out += row[: quota - len(out)]
        depth += 1
    return out
