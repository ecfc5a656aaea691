"""A night sized to its caps before its first call.

The plan (``pipeline.plan``) says what tonight's nights would cost at the backends' prices.
When that is over ``max_usd_per_skill`` or ``max_usd_per_night``, ``fit`` shrinks the night
one rung at a time, re-planning after each, until it fits or the ladder is spent; stopping
at a cap mid-night stays the last resort. The rungs go in the order of what they cost in
lift, measured on first nights (``experiments/gate_study.py --seeds 8 --nights 1 --set
KEY=VALUE``, the five personas, at 1354e91):

1. the report's test sample (``test_tasks``, halved down to ``TEST_FLOOR``): it never gates
   an edit, so it costs no lift at all, only a wider interval in the report; on a first
   night it is the larger part of the target's replays (scored before and after);
2. the validation samples per task (``val_repeats``, 3 → 2): lift +0.216 either way, calls
   460 → 411 a run (the sequential gate stops early, and draws what ``min_val_pairs``
   needs when tasks are few);
3. the night's steps (``steps``, down to 1): 3 → 2 lifts +0.180 instead of +0.216 for 430
   calls; 1 step +0.128 for 385.

Whatever was shrunk is said (``left_out``: one line per rung, with what it costs), in the
dry run's plan and in the run's progress. The settings a night fingerprints stay the ones
configured: a fitted night is the configured night at tonight's prices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.config import Settings

__all__ = ["TEST_FLOOR", "Fitted", "fit", "within_caps"]

TEST_FLOOR = 8
"""The smallest test sample a fitted night keeps: below it the report's lift says little."""
MIN_VAL_REPEATS = 2

Plan = dict[str, Any]


@dataclass
class Fitted:
    """The settings a night runs with, its plan, and what fitting left out."""

    settings: Settings
    plan: Plan
    left_out: list[str] = field(default_factory=list)


def within_caps(plan: Plan, settings: Settings) -> bool:
    """The plan's estimate is within both caps (each skill's and the night's)."""
    return plan["estimated_usd"] <= settings.max_usd_per_night and not any(
        s["estimated_usd"] > settings.max_usd_per_skill for s in plan["skills"])


def _test_sample(plan: Plan, s: Settings) -> Settings | None:
    scored = max((row["test_scored"] for row in plan["skills"]), default=0)
    current = s.test_tasks or scored
    smaller = max(TEST_FLOOR, min(current, scored) // 2)
    return dataclasses.replace(s, test_tasks=smaller) if smaller < min(current, scored) else None


def _steps(_plan: Plan, s: Settings) -> Settings | None:
    return dataclasses.replace(s, steps=s.steps - 1) if s.steps > 1 else None


def _val_repeats(_plan: Plan, s: Settings) -> Settings | None:
    if s.val_repeats <= MIN_VAL_REPEATS:
        return None
    return dataclasses.replace(s, val_repeats=s.val_repeats - 1)


@dataclass(frozen=True)
class _Rung:
    key: str
    shrink: Callable[[Plan, Settings], Settings | None]
    what: str


LADDER = (
    _Rung("test_tasks", _test_sample, "test sample {0} → {1} tasks (the report's interval "
          "widens; it never gates)"),
    _Rung("val_repeats", _val_repeats, "validation samples per task {0} → {1} (the gate "
          "draws more pairs only where tasks are few)"),
    _Rung("steps", _steps, "steps {0} → {1} (fewer rounds of edits tonight: a rule may wait "
          "for another night)"),
)


def fit(settings: Settings, plan_of: Callable[[Settings], Plan]) -> Fitted:
    """``settings`` shrunk rung by rung until ``plan_of`` says the night fits its caps."""
    current, plan = settings, plan_of(settings)
    left_out: list[str] = []
    for rung in LADDER:
        before = _shown(rung.key, current, plan)
        while not within_caps(plan, settings):
            smaller = rung.shrink(plan, current)
            if smaller is None:
                break
            current, plan = smaller, plan_of(smaller)
        after = _shown(rung.key, current, plan)
        if after != before:
            left_out.append(rung.what.format(before, after))
    plan["fitted"] = left_out
    return Fitted(current, plan, left_out)


def _shown(key: str, settings: Settings, plan: Plan) -> int:
    """A rung's value as the user sees it (the test sample: the tasks it scores)."""
    if key == "test_tasks":
        return max((row["test_scored"] for row in plan["skills"]), default=0)
    return int(getattr(settings, key))
