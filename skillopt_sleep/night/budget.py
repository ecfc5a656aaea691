"""The edit budget L_t: how many edits one step may apply (the textual learning rate).

A schedule is a function ``(step, steps, start, end) -> int``; the schedules a night may
use are the rows of ``skillopt_sleep.tables.BUDGET_SCHEDULES``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import StepResult
from skillopt_sleep.tables import BUDGET_SCHEDULES

Schedule = Callable[[int, int, int, int], int]


def cosine(step: int, steps: int, start: int, end: int) -> int:
    """``round(end + (start - end)·cos(π·t / (2·T)))``: with the defaults, the contract's
    ``round(2 + 2·cos(π·t / (2·T)))``."""
    return round(end + (start - end) * math.cos(math.pi * step / (2 * steps)))


def linear(step: int, steps: int, start: int, end: int) -> int:
    frac = step / (steps - 1) if steps > 1 else 0.0
    return round(start + (end - start) * frac)


def constant(step: int, steps: int, start: int, end: int) -> int:
    return start


def edit_budget(
    step: int, steps: int, *, start: int = 4, end: int = 2, schedule: str = "cosine"
) -> int:
    """Budget at ``step`` (0-based) of ``steps``: 4 → 2 by default, cosine-decayed."""
    if steps < 1 or not 0 <= step < steps:
        raise ConfigError(f"step {step} outside a night of {steps} steps")
    chosen: Schedule = BUDGET_SCHEDULES.get(schedule)
    return chosen(step, steps, start, end)


def idle(steps: Sequence[StepResult], patience: int) -> bool:
    """Whether the last ``patience`` steps all accepted nothing (``patience`` 0: never idle).

    A night whose reflections keep proposing what the gate turns down has found what its
    train failures can teach; more steps of it cost calls and, at most, let in a lucky
    neutral edit."""
    if patience < 1 or len(steps) < patience:
        return False
    return not any(d.accepted for s in steps[-patience:] for d in s.decisions)
