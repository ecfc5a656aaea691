"""The checks beside a night's own tasks, for the plan (``pipeline.plan``): counted in the
same calls per role.

- *the trigger check* (``night.describe``), counted as a typical night makes it: one round
  that asks, with one short routing call per own and other skill's train task,
  ``val_repeats`` per own validation task for the incumbent description, one optimizer
  call, each of ``proposals`` candidates screened on one sample of the skill's own
  validation tasks, and the typical share past the screen (``describe.PAST_SCREEN``)
  compared on every sample of the own validation tasks (the other skills' are routed only
  for a candidate whose recall passes); then the report's before and after on the test sample
  (``test_repeats`` each; as many fresh validation samples when the night does not score
  the test split). A second round follows only an accept. The incumbent descriptions' picks (train,
  validation, the report's before) are the same calls in every skill's night of a run while
  no description changes, so only the run's first night counts them (``NightCalls.sharing``).
  ``routing_max`` is the bound beside it: every round looks at one sample of every
  validation task, asks, and compares every candidate in full, and every night asks its
  own picks. Routing calls the project's earlier runs
  already asked are not counted, and a check whose stored picks are all right is counted
  at no call (``pipeline.plan_routing``);
- *the cross check* (``night.cross``, ``night.settle``), when the skill has neighbours: one
  optimizer call for each edit the gate accepts (the text-level look, all neighbours at
  once; taken to be one a step and one for the slow update), and the replays once, at the
  night's end: per neighbour to check (every one when the night accepts an edit, else,
  when the skill holds learned entries, those that changed since its last night:
  ``companions.recheck``, as if every one had without the archive), ``cross_tasks`` of its
  tasks with the skill as the night leaves it and with the skill without its entries, each
  sampled once for the first screen and once more for each typical share of checks that
  goes past a screen (``cross.typical_samples``), up to ``val_repeats`` times in all. The
  grey zone's further looks and the entry-by-entry test that follows a drop are not
  counted (a night that finds none makes neither).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import typical_samples
from skillopt_sleep.night.describe import PAST_SCREEN as PAST_DESCRIBE
from skillopt_sleep.night.measure import sampled
from skillopt_sleep.records import Split, Task

__all__ = ["NONE", "Checks", "cross_calls", "routing_calls"]


@dataclass(frozen=True)
class Checks:
    """What a skill's night checks beside its own tasks (see the module docstring)."""

    foreign: Sequence[Task] = ()
    """The other skills' tasks the trigger check routes; empty: no trigger check."""
    trigger: bool = False
    proposals: int = 3
    rounds: int = 2
    neighbours: int = 0
    cross_tasks: int = 12
    entries: int = 0
    """Learned entries the cross check would re-check."""
    recheck: int | None = None
    """How many neighbours they are re-checked against (None: every one)."""



def routing_calls(cfg: NightConfig, own: dict[str, int], checks: Checks) -> tuple[int, int, int]:
    """The trigger check's routing calls: as a typical night makes them, at most, and the
    incumbent's picks every night of the run shares."""
    if not checks.trigger:
        return 0, 0, 0
    other = {s.value: sum(t.split == s.value for t in checks.foreign) for s in Split}
    other["test"] = sum(t.split == "test" for t in sampled(checks.foreign, cfg.test_tasks))
    both = {s: own[s] + other[s] for s in own}
    val = both["validation"] * cfg.val_repeats
    own_val = own["validation"] * cfg.val_repeats
    report = (both["test"] if cfg.score_test else both["validation"]) * cfg.test_repeats
    # A round looks at one sample of every validation task when the train picks show
    # nothing wrong (``Describer._wrong``); the bound counts it in every round.
    bound = checks.rounds * (both["train"] + both["validation"]
                             + val * (1 + checks.proposals)) + 2 * report
    # One round that asks: the picks, each proposal's screen on one sample of the own
    # validation tasks, and the typical share past it compared on the own tasks with the
    # incumbent's picks (the other skills' tasks are routed only for a candidate whose
    # recall passes, which a typical round does not reach).
    screens = checks.proposals * own["validation"]
    typical = (both["train"] + own_val + screens
               + round(checks.proposals * PAST_DESCRIBE * own_val))
    shared = both["train"] + both["validation"] + report
    return min(typical + 2 * report, bound), bound, shared


def cross_calls(checks: Checks, accepts: int, val_repeats: int) -> tuple[int, int]:
    """The cross check's replays and text-level looks (see the module docstring)."""
    if not checks.neighbours:
        return 0, 0
    if accepts:
        against = checks.neighbours
    elif checks.entries:
        against = checks.neighbours if checks.recheck is None else checks.recheck
    else:
        against = 0  # nothing learned, nothing that could lower a neighbour
    # Both sides are the night's own: the skill as it leaves it, and without its entries.
    samples = typical_samples(val_repeats)
    return math.ceil(against * 2 * checks.cross_tasks * samples), accepts


NONE = Checks()
"""No check beside the night's own."""
