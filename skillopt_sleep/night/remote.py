"""Replays on an executor whose workers are other processes: a process pool, a Dask cluster.

The caps and the night's tally are this process's state: every ``MeteredLLM`` of the
target's chain holds a ``Ledger`` (and the run's ``CallGuard``), and a worker process would
get a copy of them, spend against the copy, and lose what it counted. An LLM judge is metered
the same way. So with such an executor only the target's answer is asked elsewhere: each
replay's call is opened on every meter of the chain before it is submitted, the worker gets
the chain below the meters (the model and its record/replay cache) and returns the
completion, and the call is closed here, on every meter, when it comes back; the answer is
judged here too, in a few threads. At most ``window`` answers are in flight, so the caps
hold no more at once than a thread pool of that size would.

What a worker needs, therefore, is picklable: the task, the skill text and the model below
the meters (an SDK model ships its spec, URL and key, never its client, and builds the client
on first use; the record/replay cache ships its path, so the workers must reach that file).

A ``ThreadPoolExecutor`` shares this process's memory, so the night hands it the metered
model and the judges directly, as it always has.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from typing import Any

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    HandoffPending,
    ModelError,
    RoleUnavailable,
)
from skillopt_sleep.judges.build import JudgeFor
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.meter import MeteredLLM, OpenCall
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.night.rollouts import failed, scored
from skillopt_sleep.records import Completion, Message, Rollout, Task

__all__ = ["answer", "remote_replays", "shares_memory"]

Answer = Completion | ModelError | RoleUnavailable
Meters = Sequence[tuple[MeteredLLM, OpenCall]]


def shares_memory(executor: Executor) -> bool:
    """Whether ``executor`` runs its work in this process (so it may be handed a meter)."""
    return isinstance(executor, ThreadPoolExecutor)


def meters_of(llm: LLM) -> tuple[list[MeteredLLM], LLM]:
    """The meters wrapped around ``llm``, outermost first, and the model below them."""
    meters: list[MeteredLLM] = []
    while isinstance(llm, MeteredLLM):
        meters.append(llm)
        llm = llm.inner
    return meters, llm


def answer(task: Task, sample: int, *, skill: str, model: LLM, max_tokens: int,
           temperature: float) -> Answer:
    """The model's answer to one replay, asked where the executor puts it (it must pickle)."""
    try:
        return model.complete(replay_messages(skill, task), max_tokens=max_tokens,
                              temperature=temperature, seed=sample)
    except (ModelError, RoleUnavailable) as exc:
        return exc  # returned, not raised: it is metered here before it counts or stops


def remote_replays(jobs: Iterable[tuple[Task, int]], skill: str, target: LLM, *,
                   executor: Executor, judge_for: JudgeFor, max_tokens: int,
                   temperature: float, window: int) -> list[Rollout | HandoffPending]:
    """The rollouts of ``jobs`` in their order: asked on ``executor``, metered and judged here."""
    meters, model = meters_of(target)
    ask = functools.partial(answer, skill=skill, model=model, max_tokens=max_tokens,
                            temperature=temperature)
    params = {"max_tokens": max_tokens, "temperature": temperature, "tools": None}
    listed = list(jobs)
    done: list[Future[Rollout | HandoffPending] | None] = [None] * len(listed)
    flying: dict[Future[Answer], tuple[int, Meters]] = {}
    pending = iter(enumerate(listed))
    with ThreadPoolExecutor(max_workers=max(1, window)) as judges:
        try:
            while True:
                while len(flying) < max(1, window) and (item := next(pending, None)):
                    index, (task, sample) = item
                    opened = _open(meters, replay_messages(skill, task),
                                   {**params, "seed": sample})
                    flying[executor.submit(ask, task, sample)] = (index, opened)
                if not flying:
                    break
                finished, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in finished:
                    index, opened = flying.pop(future)
                    task, sample = listed[index]
                    got = _close(opened, future)
                    done[index] = judges.submit(_rollout, task, sample, skill, got, judge_for)
        finally:
            for future, (_, opened) in flying.items():  # a stopper raised: free what is held
                future.cancel()
                _release(opened)
        return [f.result() for f in done if f is not None]


def _rollout(task: Task, sample: int, skill: str, got: Completion | ModelError,
             judge_for: JudgeFor) -> Rollout | HandoffPending:
    if isinstance(got, HandoffPending):
        return got
    if isinstance(got, ModelError):
        return failed(task, sample, skill, got)
    return scored(task, sample, skill, got, judge_for)


def _open(meters: Sequence[MeteredLLM], messages: Sequence[Message],
          params: dict[str, Any]) -> Meters:
    opened: list[tuple[MeteredLLM, OpenCall]] = []
    try:
        for meter in meters:
            opened.append((meter, meter.open_call(messages, params)))
    except BaseException:
        _release(opened)
        raise
    return opened


def _close(opened: Meters, future: Future[Answer]) -> Completion | ModelError:
    """Close the call on every meter, innermost first as nested calls would; raise a stopper."""
    inward = list(opened)[::-1]
    try:
        got = future.result()
    except BaseException:
        _release(inward)
        raise
    if isinstance(got, RoleUnavailable):  # the model was never asked (a replay-only miss)
        _release(inward)
        raise got
    for closed, (meter, call) in enumerate(inward):
        try:
            if isinstance(got, Completion):
                meter.close_call(call, completion=got)
            else:
                meter.close_call(call, error=got)
        except BaseException:
            _release(inward[closed + 1:])  # the role went down: the outer meters hold nothing
            raise
    if isinstance(got, AuthError | BudgetExceeded):
        raise got
    return got


def _release(opened: Meters) -> None:
    for meter, call in opened:
        meter.ledger.release(call.hold)
