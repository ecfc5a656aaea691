"""The slow update: yesterday's skill against today's, and durable guidance from the gap.

At the end of a night both skills answer the same train tasks. Tasks are sorted into
improved, regressed, persistent failures and stable successes; the optimizer sees the
comparison and the persistent failures and proposes entries for the protected slow region,
which step edits cannot touch. Each proposal passes the same firewall and gate.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillopt_sleep.records import Rollout, Task


def compare(
    tasks: Sequence[Task], before: Sequence[Rollout], after: Sequence[Rollout], metric: str
) -> tuple[dict[str, list[str]], list[tuple[Task, Rollout]]]:
    """Task ids by category, and the persistent failures with today's rollout."""
    by_task = {t.id: t for t in tasks}
    old = {(r.task_id, r.sample): r for r in before if r.usable}
    groups: dict[str, list[str]] = {
        "improved": [],
        "regressed": [],
        "persistent_failures": [],
        "stable_successes": [],
    }
    persistent: list[tuple[Task, Rollout]] = []
    for r in after:
        o = old.get((r.task_id, r.sample))
        if o is None or not r.usable:
            continue
        a, b = o.score.metric(metric), r.score.metric(metric)
        if b > a:
            groups["improved"].append(r.task_id)
        elif b < a:
            groups["regressed"].append(r.task_id)
        elif r.score.hard < 1.0:
            groups["persistent_failures"].append(r.task_id)
            persistent.append((by_task[r.task_id], r))
        else:
            groups["stable_successes"].append(r.task_id)
    return groups, persistent


def summary(groups: dict[str, list[str]]) -> str:
    return "\n".join(f"{name}: {len(ids)} ({', '.join(ids[:8])})" for name, ids in groups.items())
