"""How many edits a skill's night typically gates and accepts, from its last night.

Without history the plan takes every step to gate half its edit budget and to accept one
edit (and the slow update one more): a first night's pace, and a bound on a mature skill's,
whose steps mostly gate little and accept nothing. A skill with a night behind it is planned at that
night's pace instead: the edits that reached the gate (accepted, or stopped after it by the
own look or the cross check) and the ones the gate accepted; a pace that accepted none
leaves the skill as it was, whose report needs no after side (its before is its after).
The plan keeps the pace-free count beside it as its bound (``pipeline.plan``:
``target_calls_max``).

A failed or abstaining last night says nothing of the pace; it is not used.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillopt_sleep.records import NightResult

__all__ = ["Pace", "pace_of"]

_PAST_GATE = ("gate", "contradict", "cross")
"""Stages an edit is recorded at once it reached the gate."""


@dataclass(frozen=True)
class Pace:
    """One night's gate traffic for a skill."""

    gated: int
    """Edits compared by the gate, the slow update's included."""
    accepts: int
    """Edits the gate accepted (some then stopped by the own look or the cross check)."""


def pace_of(last: NightResult | None) -> Pace | None:
    """The pace of a skill's ``last`` night (``Archive.last_night``); None without a usable
    one."""
    if last is None or last.failed or last.abstained:
        return None
    reached = [d for d in last.decisions if d.stage in _PAST_GATE]
    accepts = sum(d.accepted or d.stage in ("contradict", "cross") for d in reached)
    return Pace(gated=len(reached), accepts=accepts)
