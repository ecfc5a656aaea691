"""What reflection is shown of a failure: the checks the skill does not meet yet, first.

A failed answer's rationale names every check it failed (``failed: <check>; <check>``). Some
of those checks the skill already gets right most of the time: a rule it states, missed on
this answer because the target follows it only so often. A weak optimizer reads every named
check as something to fix, so it spends its few proposals restating what the skill says
(the merge then drops them as restatements) and the rules it lacks go unproposed.

So with ``NightConfig.focus`` on (off by default; ``docs/gate.md`` has what it cost and
bought), before reflection each failed check is looked up in the incumbent's own train
answers the night holds: a check those answers pass at least ``MET`` of the time (seen at least
``MIN_SEEN`` times) is *mostly met*. A failure's rationale keeps the checks that are not;
the mostly met ones move to the item's ``mostly_met`` field with their pass rate, so a
reader still sees them, as what the skill already gets right. A failure whose every failed
check is mostly met keeps its rationale as it was. This reads answers, never the skill's or
the edit's words, and only the train split: the gate's validation pairs are untouched, so
its error rates stand.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.night.usage import failed_checks
from skillopt_sleep.records import Rollout, Task

MET = 0.5
"""A check the incumbent's train answers pass this often is mostly met: a stated rule is
followed far more often than not, an unstated one met by chance far less."""
MIN_SEEN = 3
"""Answers judged on a check before its pass rate is read."""


def pass_rates(held: Iterable[tuple[Task, Rollout]]) -> dict[str, float]:
    """Per check (as the judge describes it): the share of the answers judged on it that
    passed it, for the checks judged at least ``MIN_SEEN`` times."""
    seen: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for task, rollout in held:
        if not rollout.usable or task.judge.kind != "rules":
            continue
        missed = failed_checks([rollout.score.rationale])
        for check in {describe(c) for c in task.judge.checks}:
            seen[check] += 1
            failed[check] += check in missed
    return {c: 1 - failed[c] / n for c, n in seen.items() if n >= MIN_SEEN}


def focused(scored: Sequence[tuple[Task, Rollout]], rates: dict[str, float]
            ) -> tuple[list[tuple[Task, Rollout]], dict[str, dict[str, float]]]:
    """``scored`` with each failure's rationale cut to the checks not mostly met, and per
    task id the mostly met checks taken out, with their pass rates (see the module)."""
    out: list[tuple[Task, Rollout]] = []
    met: dict[str, dict[str, float]] = {}
    for task, rollout in scored:
        rationale = rollout.score.rationale
        if not rationale.startswith("failed: "):
            out.append((task, rollout))
            continue
        checks = rationale.removeprefix("failed: ").split("; ")
        mostly = [c for c in checks if rates.get(c, 0.0) >= MET]
        if not mostly or len(mostly) == len(checks):
            out.append((task, rollout))
            continue
        rest = "failed: " + "; ".join(c for c in checks if c not in mostly)
        score = dataclasses.replace(rollout.score, rationale=rest)
        out.append((task, dataclasses.replace(rollout, score=score)))
        met[task.id] = {c: round(rates[c], 2) for c in mostly}
    return out, met


def shown(train: Sequence[Rollout], by_id: Mapping[str, Task], held: Iterable[Rollout],
          on: bool = True) -> tuple[list[tuple[Task, Rollout]], dict[str, dict[str, float]]]:
    """What reflection is shown of this step's ``train`` answers, the pass rates read from
    the incumbent's ``held`` answers of the train tasks (``on`` False: as they are)."""
    scored = [(by_id[r.task_id], r) for r in train]
    if not on:
        return scored, {}
    return focused(scored, pass_rates((by_id[r.task_id], r) for r in held if r.task_id in by_id))
