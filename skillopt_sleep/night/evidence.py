"""What a night leaves as evidence: each held-out task's answer before and after tonight
(for the report), and how many decisions ended at each stage (``NightResult.counts``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillopt_sleep.records import NightResult, Rollout, Task


def evidence_rows(
    tasks: Sequence[Task],
    split: str,
    metric: str,
    before: Sequence[Rollout],
    after: Sequence[Rollout],
) -> list[dict[str, Any]]:
    """One row per task scored both ways (each side's first sample), in task order."""
    old = _first_samples(before)
    new = _first_samples(after)
    rows = []
    for task in tasks:
        a, b = old.get(task.id), new.get(task.id)
        if a is None or b is None:
            continue
        rows.append(
            {
                "task_id": task.id,
                "split": split,
                "intent": task.intent,
                "before_score": a.score.metric(metric),
                "after_score": b.score.metric(metric),
                "before_answer": a.response[:2000],
                "after_answer": b.response[:2000],
                "before_rationale": a.score.rationale,
                "after_rationale": b.score.rationale,
            }
        )
    return rows


def _first_samples(rollouts: Sequence[Rollout]) -> dict[str, Rollout]:
    found: dict[str, Rollout] = {}
    for r in rollouts:
        if r.task_id not in found or r.sample < found[r.task_id].sample:
            found[r.task_id] = r
    return found


def decision_counts(r: NightResult) -> dict[str, int]:
    """Edits proposed, accepted and rejected per stage; entries retired and withdrawn."""
    counts: dict[str, int] = {"proposed": sum(s.proposed for s in r.steps)}
    for d in r.decisions:
        key = "accepted" if d.accepted else f"rejected_{d.stage}"
        counts[key] = counts.get(key, 0) + 1
    if r.retired:
        counts["retired"] = sum(d.accepted for d in r.retired)
    if r.withdrawn:
        counts["withdrawn"] = len(r.withdrawn)
    return counts
