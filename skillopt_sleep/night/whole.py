"""The proposal as a whole, before it leaves the night: the firewall's check of the whole
text (``refused``) and the last look (``worse``). Either keeps the skill as it was.

*The firewall.* Each edit passed the firewall alone; the whole can still change the
frontmatter or the user's own words, or hold learned text only the whole shows. It is the
same check adoption makes.

*The last look* (``last_look``): the skill the night's gated edits made against the one
they started from, one unselected answer of every validation task each. (A withdrawal, a
retirement or a new description made before the steps stands on its own test.)

*Why.* The gate compares an edit on the validation tasks it touches first, every sample of
them, so an edit can be accepted before a task it does not touch is drawn at all
(``night.scoring``). An edit that makes the answers checked for a changelog better and
every other answer worse would pass on the first and never meet the second; so would
several edits that each cost a little where they were not looked at. Here every validation
task counts once, so a harm the gate's order hid shows.

*The test.* The gate's own paired test with the two sides swapped (``cross.dropped``), at
the gate's α, each task's answers paired: a significant drop (beyond the margin) keeps the
skill as it was, and the night's accepted edits go to the buffer with the reason. Were the
edits' skill no better and no worse than the one they started from, a night would be held
back at most α of the time; a night whose edits help, as the gate found, far less often.

*The answers.* The ending skill's on the first sample no comparison selected it on
(``Night._clean``): the round the report scores and the next night starts from
(``night.carry``), so what this look draws a changed night needed anyway. The starting
skill's earliest unselected one from the steps' first sample: carried from its last
night, or drawn by a comparison; a task with none is drawn. Answers of different samples
of one task pair up: under "no change" both are draws from the same law.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, NamedTuple

from skillopt_sleep.errors import BudgetExceeded
from skillopt_sleep.firewall import Context, check_proposal
from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import dropped
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.records import Rollout, Split, Task
from skillopt_sleep.secrets import redact
from skillopt_sleep.skilldoc import SkillDoc

__all__ = ["Held", "last_look", "refused", "worse"]


class Held(NamedTuple):
    """Why a proposal is held back: the stage and reason its accepted edits are buffered
    with, and the report's warning."""

    stage: Literal["firewall", "gate"]
    reason: str
    warning: str


def refused(before: SkillDoc, after: SkillDoc, firewall: Context) -> Held | None:
    """The firewall's findings on the whole proposal, if any."""
    findings = check_proposal(before.text, after.text, firewall)
    if not findings:
        return None
    reason = "; ".join(f"{f.rule}: {redact(f.excerpt)[0]}" for f in findings)
    return Held("firewall", f"part of a refused proposal: {reason}",
                f"the proposal was refused by the firewall ({reason})")


def worse(scorer: Scorer, before: SkillDoc, after: SkillDoc, *, before_first: int,
          after_first: int, cfg: NightConfig, test: gate.GateTest,
          notes: list[str]) -> Held | None:
    """The last look's drop, if significant; a look the cost cap cuts holds nothing back
    (a note says so)."""
    try:
        look = last_look(scorer, before, after, before_first=before_first,
                         after_first=after_first, cfg=cfg, test=test)
    except BudgetExceeded as exc:
        notes.append(f"the last look was cut by the cost cap ({exc})")
        return None
    if not look.accepted:
        return None
    why = f"the night's skill did worse on every validation task once: {look.reason}"
    return Held("gate", f"part of a night held back: {why}", why)


def last_look(scorer: Scorer, before: SkillDoc, after: SkillDoc, *, before_first: int,
              after_first: int, cfg: NightConfig, test: gate.GateTest) -> gate.Verdict:
    """Did the night's skill ``after`` do significantly worse than ``before`` on one
    answer of every validation task? (``accepted``: it did.)"""
    tasks = scorer.splits[Split.VALIDATION.value]
    start = _one_each(scorer, tasks, before, before_first)
    end = scorer.tasks(after, [(t, after_first) for t in tasks])
    return dropped(_aligned(start), _aligned(end), cfg=cfg, test=test)


def _one_each(scorer: Scorer, tasks: Sequence[Task], doc: SkillDoc,
              first: int) -> list[Rollout]:
    """``doc``'s earliest unselected answer of each task from sample ``first``; a task with
    none held is drawn at ``first``."""
    held: dict[str, Rollout] = {}
    for r in scorer.drawn(Split.VALIDATION.value, doc, first):  # in sample order
        if r.usable:
            held.setdefault(r.task_id, r)
    missing = [(t, first) for t in tasks if t.id not in held]
    drawn = {r.task_id: r for r in scorer.tasks(doc, missing)} if missing else {}
    return [held.get(t.id) or drawn[t.id] for t in tasks]


def _aligned(rollouts: Sequence[Rollout]) -> list[Rollout]:
    """One answer per task, numbered alike so the two sides pair by task."""
    return [replace(r, sample=0) for r in rollouts]
