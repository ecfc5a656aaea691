"""Retirement: deleting learned entries that no task has exercised for a while.

The caller (``night.usage``) names the entries no task exercised for N nights; on a
retirement night each is tried as a ``delete`` edit, replayed on the night's validation
tasks against the incumbent with the gate's paired statistics. The burden of proof is the
other way round from a new edit's: the entry once earned its place on evidence that no
longer occurs, and it costs context on every task, so the deletion is kept unless the skill
without it is significantly worse (``cross.dropped``: the gate's own paired test at the
gate's ``alpha``, the two sides swapped). Deletions are gated one at a time, each against
the skill left by the last.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import dropped
from skillopt_sleep.records import Edit, GateDecision, Rollout
from skillopt_sleep.skilldoc import SkillDoc, apply_edit

__all__ = ["retire"]

Pairs = Callable[[SkillDoc], Sequence[Rollout]]
"""A skill's validation rollouts, the same (task, sample) pairs for every skill."""


def retire(
    doc: SkillDoc,
    entries: Sequence[str],
    pairs: Pairs,
    cfg: NightConfig,
    test: gate.GateTest,
) -> tuple[SkillDoc, list[GateDecision]]:
    """Try deleting each of ``entries`` from ``doc``; the skill left and every decision."""
    decisions = []
    for entry in entries:
        edit = Edit(op="delete", anchor=entry, origin="retire",
                    rationale="no task exercised this entry for the configured nights")
        candidate, outcome = apply_edit(doc, edit)
        if outcome.value != "applied":
            decisions.append(GateDecision(edit, False, f"edit not applied: {outcome.value}",
                                          stage="retire"))
            continue
        verdict = dropped(pairs(doc), pairs(candidate), cfg=cfg, test=test)
        c = verdict.comparison
        if verdict.accepted or not c.n_pairs:
            why = (f"still earns its place: {verdict.reason}" if c.n_pairs else
                   "no usable validation pairs to show the skill does without it")
            accepted = False
        else:
            why, accepted = (f"retired: no significant drop without it ({c.mean_delta:+.3f} "
                             f"over {c.n_pairs} pairs)"), True
            doc = candidate
        decisions.append(gate.decision(edit, accepted, why, c, metric=cfg.metric, stage="retire"))
    return doc, decisions
