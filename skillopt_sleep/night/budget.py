"""The edit budget L_t: how many edits one step may apply (the textual learning rate)."""

from __future__ import annotations

import math

from skillopt_sleep.errors import ConfigError


def edit_budget(
    step: int, steps: int, *, start: int = 4, end: int = 2, schedule: str = "cosine"
) -> int:
    """Budget at ``step`` (0-based) of ``steps``: 4 → 2 by default, cosine-decayed.

    The cosine schedule is ``round(end + (start - end)·cos(π·t / (2·T)))``, which with the
    defaults is the contract's ``round(2 + 2·cos(π·t / (2·T)))``.
    """
    if steps < 1 or not 0 <= step < steps:
        raise ConfigError(f"step {step} outside a night of {steps} steps")
    if schedule == "constant":
        return start
    if schedule == "linear":
        frac = step / (steps - 1) if steps > 1 else 0.0
        return round(start + (end - start) * frac)
    if schedule == "cosine":
        return round(end + (start - end) * math.cos(math.pi * step / (2 * steps)))
    raise ConfigError(f"unknown budget schedule {schedule!r} (constant, linear, cosine)")
