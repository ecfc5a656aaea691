"""The looks after the gate: an edit the gate accepted is kept only if nothing it would
break shows.

First the optimizer reads it beside the skill's own demands (``night.demands``: one call);
then, when it passes, beside the documents of the skills loaded with it (``night.cross``'s
text-level read). Either holds it back as a ``Contradiction``, reported for the user and
never resolved by the night. The neighbours' replays come once, at the night's end
(``night.settle``), for every entry the night leaves at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillopt_sleep.night import gate
from skillopt_sleep.night.cross import CrossCheck, rejection
from skillopt_sleep.night.demands import OwnLook
from skillopt_sleep.records import Contradiction, Edit

__all__ = ["Held", "Looks"]


@dataclass(frozen=True)
class Held:
    """What the looks made of one verdict."""

    verdict: gate.Verdict
    stage: gate.Stage = "gate"
    """``gate`` when no look held the edit back (or the gate had not accepted it)."""
    found: tuple[Contradiction, ...] = ()


@dataclass(frozen=True)
class Looks:
    """A night's looks after its gate, in the order they run."""

    own: OwnLook
    cross: CrossCheck

    def after(self, verdict: gate.Verdict, incumbent: str, candidate: str, edit: Edit) -> Held:
        """``verdict`` as the looks leave it: a rejection when one of them holds ``edit``
        (which turns ``incumbent`` into ``candidate``) back."""
        if not verdict.accepted:
            return Held(verdict)
        if found := self.own.check(edit):
            return Held(rejection(verdict, found), "contradict", tuple(found))
        if found := self.cross.check(incumbent, candidate, edit, replay=False):
            return Held(rejection(verdict, found), "cross", tuple(found))
        return Held(verdict)
