"""Replay: the target answers tasks with a skill in context; judges score the answers.

A failed model call (after the backend's own retries) becomes a ``Rollout`` with ``error``
set: counted and excluded from the gate's pairing, never scored as a wrong answer.
Credential and budget errors stop the night instead: they would fail every call alike, and
so does ``RoleUnavailable`` (the run's guard saw a role go down), from a judge too.

``HandoffPending`` (the ``handoff`` backend wrote a prompt for the user's agent) stops the
night too, but only once every rollout of the batch has been tried: the batch's calls do
not depend on each other, so one run writes all of their prompts whatever the concurrency,
and the user answers them in one go instead of one prompt per run.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    HandoffPending,
    ModelError,
)
from skillopt_sleep.judges.build import JudgeFor, default_judge_for
from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.night.remote import remote_replays, shares_memory
from skillopt_sleep.night.rollouts import failed, scored
from skillopt_sleep.records import Rollout, Task

__all__ = ["JudgeFor", "default_judge_for", "failed", "mean_score", "replay", "replay_jobs",
           "replay_one", "scored"]


def replay_one(
    task: Task,
    sample: int,
    skill: str,
    target: LLM,
    judge_for: JudgeFor,
    *,
    max_tokens: int,
    temperature: float,
) -> Rollout:
    try:
        done = target.complete(
            replay_messages(skill, task),
            max_tokens=max_tokens,
            temperature=temperature,
            seed=sample,
        )
    except (AuthError, BudgetExceeded, HandoffPending):
        raise
    except ModelError as exc:
        return failed(task, sample, skill, exc)
    return scored(task, sample, skill, done, judge_for)


def replay(
    tasks: Sequence[Task],
    skill: str,
    target: LLM,
    *,
    samples: int,
    executor: Executor,
    first_sample: int = 0,
    judge_for: JudgeFor = default_judge_for,
    max_tokens: int = 1024,
    temperature: float = 0.7,
) -> list[Rollout]:
    """All (task, sample) rollouts, in task-then-sample order, run through ``executor``.

    Samples are numbered from ``first_sample``: the same number is the same sample (seed)."""
    last = first_sample + samples
    jobs = [(t, s) for t in tasks for s in range(first_sample, last)]
    return replay_jobs(
        jobs,
        skill,
        target,
        executor=executor,
        judge_for=judge_for,
        max_tokens=max_tokens,
        temperature=temperature,
    )


def _replay_or_wait(task: Task, sample: int, **kwargs: object) -> Rollout | HandoffPending:
    """``replay_one``, with a pending hand-off returned instead of raised."""
    try:
        return replay_one(task, sample, **kwargs)  # type: ignore[arg-type]
    except HandoffPending as exc:
        return exc


def replay_jobs(
    jobs: Iterable[tuple[Task, int]],
    skill: str,
    target: LLM,
    *,
    executor: Executor,
    judge_for: JudgeFor = default_judge_for,
    max_tokens: int = 1024,
    temperature: float = 0.7,
    window: int = 8,
) -> list[Rollout]:
    """The rollouts of the given (task, sample) jobs, in their order, run through ``executor``.

    Each rollout depends only on its task, sample and skill, never on which worker ran it or
    when, so the result is the same for any executor and any number of workers. An executor
    whose workers are other processes (``night.remote``) has at most ``window`` in flight."""
    run = functools.partial(
        _replay_or_wait,
        skill=skill,
        target=target,
        judge_for=judge_for,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    listed = list(jobs)
    # The first call goes alone: it writes the skill's block to the provider's prompt cache
    # (``models.caching``), which the rest then read at a tenth of the price; sent together,
    # each of the first round would miss and pay the write (1.25x the input price).
    head, rest = listed[:1], listed[1:]
    done: list[Rollout | HandoffPending]
    if shares_memory(executor):
        done = [run(t, s) for t, s in head] + list(
            executor.map(run, [t for t, _ in rest], [s for _, s in rest]))
    else:  # its workers are other processes: the caps and the tally stay here
        ask = functools.partial(remote_replays, skill=skill, target=target, executor=executor,
                                judge_for=judge_for, max_tokens=max_tokens,
                                temperature=temperature, window=window)
        done = ask(head) + ask(rest)
    waiting = [r for r in done if isinstance(r, HandoffPending)]
    if waiting:
        raise waiting[-1]  # the run recounts the unanswered prompts when it stops
    return [r for r in done if isinstance(r, Rollout)]


def mean_score(rollouts: Sequence[Rollout], metric: str) -> float | None:
    usable = [r.score.metric(metric) for r in rollouts if r.usable]
    return sum(usable) / len(usable) if usable else None
