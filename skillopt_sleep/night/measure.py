"""Which test tasks a night scores for its report, and how precisely that measures the lift.

The test split holds 7 of every 10 task families (the design's 2 : 1 : 7), and it never
gates: it is scored before and after only for the report's held-out figure. Scored whole,
it is the largest single cost of a night that changed its skill, and it grows with the
history (a year of sessions: hundreds of test tasks, each one call per side), while the
figure's precision grows only with the square root of what it scores. So a night scores a
sample of at most ``NightConfig.test_tasks`` tasks (0: the whole split) and reports the
sample's size and the 95 % interval of the lift beside the figure.

The sample is whole families, in the order of a hash of their ids:

- *Stable.* The same families every night, so night-over-night figures compare, and the
  answers the last night drew for the skill it kept serve tonight's before side
  (``night.carry``). A new family takes its hash's place; only families at the sample's
  end (in hash order) can leave it.
- *Whole families.* A family's tasks are variants of one request and fail or pass
  together; the interval therefore counts families, not tasks: it is the t-interval of the
  mean over families of each family's mean paired difference (after − before, each
  task's first sample of each side). Families are the sample's unit, so it is honest for
  them; with one family there is no interval.
- *Unbiased.* The hash knows nothing of the answers, so the sample's lift estimates the
  whole split's: the gate study's mean lift over seeds is the same figure, noisier per seed.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import mean, stdev
from typing import Any, TypeVar

from scipy.stats import t as student_t

from skillopt_sleep.records import Split, Task

__all__ = ["lift_margin", "measured", "sampled"]

T = TypeVar("T", bound=Task)


def _rank(family_id: str) -> bytes:
    return hashlib.sha256(f"measure\x00{family_id}".encode()).digest()


def measured(tasks: Sequence[T], cap: int) -> list[T]:
    """The tasks of ``tasks`` (one split) a night scores: whole families in hash order while
    fewer than ``cap`` tasks are taken (``cap`` 0: all), in the order given."""
    if cap <= 0:
        return list(tasks)
    size: dict[str, int] = defaultdict(int)
    for task in tasks:
        size[task.family_id] += 1
    kept: set[str] = set()
    taken = 0
    for family in sorted(size, key=_rank):
        if taken >= cap:
            break
        kept.add(family)
        taken += size[family]
    return [t for t in tasks if t.family_id in kept]


def sampled(tasks: Sequence[T], cap: int) -> list[T]:
    """``tasks`` (every split, of one skill or several) with each skill's test tasks cut to
    its sample, in order: the samples every night of a run scores and routes alike."""
    test = Split.TEST.value
    by_skill: dict[str, list[T]] = defaultdict(list)
    for task in tasks:
        if task.split == test:
            by_skill[task.skill].append(task)
    kept = {id(t) for group in by_skill.values() for t in measured(group, cap)}
    return [t for t in tasks if t.split != test or id(t) in kept]


def lift_margin(tasks: Iterable[Task], evidence: Iterable[Mapping[str, Any]]) -> float | None:
    """The half-width of the 95 % interval of the lift over the families of ``tasks`` with
    a row in ``evidence`` (``night.evidence``: each task's first sample, before and after;
    see the module docstring); ``None`` with fewer than two such families."""
    family = {t.id: t.family_id for t in tasks}
    deltas: dict[str, list[float]] = defaultdict(list)
    for row in evidence:
        if row["task_id"] in family:
            deltas[family[row["task_id"]]].append(row["after_score"] - row["before_score"])
    means = [mean(d) for d in deltas.values()]
    if len(means) < 2:
        return None
    return float(student_t.ppf(0.975, len(means) - 1)) * stdev(means) / math.sqrt(len(means))
