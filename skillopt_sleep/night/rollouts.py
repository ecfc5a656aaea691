"""A replay's rollout from what the target said: an answer judged, or a failure counted.

Shared by the replays run in this process (``night.replay``) and those whose answers come
back from other processes (``night.remote``).
"""

from __future__ import annotations

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    HandoffPending,
    ModelError,
    RoleUnavailable,
)
from skillopt_sleep.judges.build import JudgeFor
from skillopt_sleep.records import Completion, Rollout, Score, Task, sha256_text

__all__ = ["failed", "scored"]


def failed(task: Task, sample: int, skill: str, exc: ModelError) -> Rollout:
    """The rollout of a call that failed: counted, never scored as a wrong answer."""
    return Rollout(task.id, sample, sha256_text(skill), error=f"model call failed: {exc}")


def scored(task: Task, sample: int, skill: str, done: Completion,
           judge_for: JudgeFor) -> Rollout:
    """The rollout of an answer, judged."""
    try:
        score = judge_for(task).score(task, done.text, done.tool_calls)
    except (RoleUnavailable, AuthError, BudgetExceeded, HandoffPending):
        raise  # a judge's stoppers stop the night as the target's do
    except Exception as exc:  # a judge must not end the night; record why instead
        score = Score(failed=True, rationale=f"judge error: {type(exc).__name__}: {exc}")
    return Rollout(
        task.id,
        sample,
        sha256_text(skill),
        response=done.text,
        score=score,
        tool_calls=list(done.tool_calls),
        usage=done.usage,
        cost_usd=done.cost_usd,
    )
