"""The cross check's replays, once at the night's end.

Edit by edit (the way until the release that brought this module), every edit the gate
accepted was replayed against every neighbour, and before the steps each of the skill's
entries was replayed against the neighbours that changed since its last night. On the
three-skill persona that was four calls in ten of a run (``experiments/multi_calls.py``).
At the night's end one comparison per neighbour covers both: the skill as the night leaves
it against the skill with no entry at all (``bare``), on the neighbour's tasks. Only
against a neighbour that this finds lowered is each entry tried alone (``cross.withdraw``:
the skill with it against the skill without it, at ``alpha``, as at acceptance), and an
entry that lowers it is taken out.

Why the guarantees stand: the joint comparison is a screen, as the check's first look
is. It tests nothing and withdraws nothing; it can only end the check of a neighbour that
no entry lowers as a whole, and every withdrawal is still ``withdraw``'s own test of one
entry. What it can cost is power against a harm that other entries' help to the same
neighbour masks. A skill's entries speak of its own work, and a shorter document is
followed better, so the joint comparison leans towards finding a drop, not away from it.
The optimizer's read of each edit beside the neighbours' documents (``night.contradict``)
still comes at acceptance, so a harm plain in the text never enters the night's skill.

It runs after the last look (``night.whole``), so a withdrawal stands on its own test.
An entry accepted tonight that is withdrawn counts as rejected at stage ``cross`` (and goes
to the buffer, so it is not proposed again); an older one as withdrawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Literal

from skillopt_sleep.errors import BudgetExceeded
from skillopt_sleep.night.cross import CrossCheck, withdraw
from skillopt_sleep.records import Edit, GateDecision, NightResult
from skillopt_sleep.skilldoc import SkillDoc, apply_edit

__all__ = ["against", "bare", "night_end", "settle", "tonight"]


def bare(doc: SkillDoc) -> SkillDoc:
    """``doc`` without any entry of its managed regions: the user's words alone."""
    regions: tuple[Literal["learned", "slow"], ...] = ("learned", "slow")
    for region in regions:
        for entry in doc.entries(region):
            doc = apply_edit(doc, Edit(op="delete", anchor=entry, region=region),
                             allow_slow=region == "slow")[0]
    return doc


def settle(check: CrossCheck, doc: SkillDoc, neighbours: Sequence[str]
           ) -> tuple[SkillDoc, list[GateDecision]]:
    """``doc`` against each of ``neighbours``: every entry at once, then entry by
    entry (``withdraw``) only against a neighbour that comparison finds lowered (see the
    module)."""
    found = entries(doc)
    if not (check and neighbours and found):
        return doc, []
    words = Edit(op="append", text=" ".join(found))
    hurt = [c.other_skill for c in check.check(bare(doc).text, doc.text, words, read=False,
                                               only=neighbours)]
    return withdraw(check, doc, hurt) if hurt else (doc, [])


def tonight(lists: Sequence[list[GateDecision]], gone: Sequence[GateDecision]
            ) -> tuple[list[GateDecision], list[GateDecision]]:
    """Sorts ``settle``'s withdrawals: those of an entry an accepted decision of tonight's
    (in ``lists``) added are turned into rejections at stage ``cross``, in place, and
    returned second; the others (entries of earlier nights) are returned first."""
    old, rejected = [], []
    for g in gone:
        entry = " ".join(g.edit.anchor.split())
        spot = next(((ds, i) for ds in lists for i, d in enumerate(ds)
                     if d.accepted and " ".join(d.edit.text.split()) == entry), None)
        if spot is None:
            old.append(g)
            continue
        ds, i = spot
        ds[i] = dataclasses.replace(ds[i], accepted=False, stage="cross", reason=g.reason)
        rejected.append(ds[i])
    return old, rejected


def entries(doc: SkillDoc) -> tuple[str, ...]:
    return (*doc.entries("learned"), *doc.entries("slow"))


def against(check: CrossCheck, before: SkillDoc, after: SkillDoc,
            changed: Sequence[str]) -> list[str]:
    """The neighbours the night's end checks: every one when the night changed the entries
    (``before`` → ``after``), else those that changed since the skill's last night."""
    if entries(after) != entries(before):
        return [n.skill for n in check.neighbours]
    return list(changed)


def night_end(check: CrossCheck, result: NightResult, before: SkillDoc, doc: SkillDoc,
              changed: Sequence[str], reject: Callable[[GateDecision], None]) -> SkillDoc:
    """``doc`` as the night's end check leaves it (``before``: the night's first skill,
    ``changed``: the neighbours that changed since its last night), with ``result`` told
    what was withdrawn and ``reject`` given tonight's entries taken out. At the cost cap
    the skill stays as ``before``: nothing unchecked leaves the night."""
    try:
        doc, gone = settle(check, doc, against(check, before, doc, changed))
    except BudgetExceeded as exc:
        result.stopped = result.stopped or f"stopped at the cost cap: {exc}"
        return before
    result.contradictions += check.found
    old, rejected = tonight([s.decisions for s in result.steps] + [result.slow_updates], gone)
    result.withdrawn += old
    for d in rejected:
        reject(d)
    return doc
