"""Counting every model call, and stopping before a dollar cap is crossed.

A ``Ledger`` is shared by the night's models (target, optimizer, judge); each is wrapped
in a ``MeteredLLM`` that records one ``CallRecord`` per call, failed calls included. A
cap is a promise, not a trigger: a call is refused (``BudgetExceeded``, before it is
sent) when its worst case — the prompt plus ``max_tokens`` of output at the model's
price — could take the spend past the per-night or per-skill cap. Replays from the
cache are free and never refused.

Calls run concurrently (a night's replays go through an executor), so the check and the
spend must be one step: a call *reserves* its worst case in the ledger before it is sent
(checked and held under the ledger's lock, against what is spent plus what calls in flight
hold) and *settles* when it returns — its hold released and its real cost recorded in one
step. However many calls are in flight, the spend never passes a cap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from skillopt_sleep.errors import BudgetExceeded, ModelError
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.guard import CallGuard
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.records import Completion, Message, Usage

if TYPE_CHECKING:
    from skillopt_sleep.archive.db import Archive

CHARS_PER_TOKEN = 4
"""Rough prompt size before a call (real counts come back in the usage)."""


@dataclass
class CallRecord:
    role: str
    spec: str
    skill: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    cached: bool = False
    error: str = ""
    at: float = field(default_factory=time.time)
    cache_write_tokens: int = 0
    """Prompt tokens written to the provider's cache (Anthropic's cache creation)."""


class Ledger:
    """Every call of a run, thread-safe. ``skill_scope`` tags calls for the per-skill cap;
    ``guard``, when given, is told of every call (see ``models.guard``)."""

    def __init__(self, guard: CallGuard | None = None) -> None:
        self._lock = threading.Lock()
        self._calls: list[CallRecord] = []
        self._held: dict[int, tuple[str, float]] = {}
        self._next_hold = 0
        self.skill = ""
        self.guard = guard

    @contextmanager
    def skill_scope(self, skill: str) -> Iterator[None]:
        """Calls made inside count towards ``skill``'s spend (skills are trained one by one)."""
        previous, self.skill = self.skill, skill
        try:
            yield
        finally:
            self.skill = previous

    def record(self, call: CallRecord) -> None:
        with self._lock:
            self._calls.append(call)

    def reserve(self, usd: float, skill: str, caps: Sequence[tuple[str, float, bool]],
                what: str) -> int:
        """Hold ``usd`` for a call about to be sent, or raise ``BudgetExceeded`` if that could
        take a cap past its limit; returns the hold's id for ``settle``. ``caps`` are
        ``(scope, limit, per_skill)``: a per-skill cap counts ``skill``'s spend and holds only."""
        with self._lock:
            for scope, cap, per_skill in caps:
                spent = sum(c.cost_usd for c in self._calls if not per_skill or c.skill == skill)
                held = sum(v for s, v in self._held.values() if not per_skill or s == skill)
                if spent >= cap or spent + held + usd > cap:
                    in_flight = f", ${held:.4f} held by calls in flight" if held else ""
                    raise BudgetExceeded(
                        f"the {scope} budget of ${cap:.2f} is reached: ${spent:.4f} spent"
                        f"{in_flight}, the next {what} could cost up to ${usd:.4f}")
            self._next_hold += 1
            self._held[self._next_hold] = (skill, usd)
            return self._next_hold

    def settle(self, hold: int | None, call: CallRecord) -> None:
        """Release a hold and record the call it was for, in one step."""
        with self._lock:
            if hold is not None:
                self._held.pop(hold, None)
            self._calls.append(call)

    def release(self, hold: int | None) -> None:
        """Drop a hold whose call never happened (nothing is recorded)."""
        if hold is not None:
            with self._lock:
                self._held.pop(hold, None)

    @property
    def held_usd(self) -> float:
        """What calls in flight hold against the caps."""
        with self._lock:
            return sum(v for _, v in self._held.values())

    @property
    def calls(self) -> list[CallRecord]:
        with self._lock:
            return list(self._calls)

    @property
    def total_usd(self) -> float:
        return sum(c.cost_usd for c in self.calls)

    def skill_usd(self, skill: str) -> float:
        return sum(c.cost_usd for c in self.calls if c.skill == skill)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for c in self.calls:
            total = total + Usage(c.input_tokens, c.output_tokens, c.cache_read_tokens,
                                  c.cache_write_tokens)
        return total

    def by_role(self) -> dict[str, dict[str, Any]]:
        """Per role: calls, errors, cached replays, tokens, dollars and seconds."""
        roles: dict[str, dict[str, Any]] = {}
        for c in self.calls:
            row = roles.setdefault(c.role, {
                "calls": 0, "errors": 0, "cached": 0, "input_tokens": 0, "output_tokens": 0,
                "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.0,
                "latency_s": 0.0})
            row["calls"] += 1
            row["errors"] += bool(c.error)
            row["cached"] += c.cached
            row["input_tokens"] += c.input_tokens
            row["output_tokens"] += c.output_tokens
            row["cache_read_tokens"] += c.cache_read_tokens
            row["cache_write_tokens"] += c.cache_write_tokens
            row["cost_usd"] += c.cost_usd
            row["latency_s"] += c.latency_s
        return roles

    def cost_by_role(self) -> dict[str, float]:
        return {role: row["cost_usd"] for role, row in self.by_role().items()}

    def to_rows(self) -> list[dict[str, Any]]:
        return [asdict(c) for c in self.calls]


def live_and_cached(ledgers: Sequence[Ledger]) -> dict[str, int]:
    """``live_calls`` (a model was asked, failed calls included) and ``cached_calls``
    (answered from the record/replay cache, no model asked) over ``ledgers``."""
    calls = [c for ledger in ledgers for c in ledger.calls]
    cached = sum(1 for c in calls if c.cached)
    return {"live_calls": len(calls) - cached, "cached_calls": cached}


def save_calls(archive: Archive, night_id: str, ledger: Ledger) -> int:
    """Append the ledger's calls to the archive's ``model_calls`` log; returns how many.
    The log has no column for cache writes: they are logged among the input tokens (the
    logged cost is the call's own, at the write price)."""
    # Imported here (``Archive`` only for type checks): metering loads no archive module.
    from skillopt_sleep.archive.calls import LoggedCall, add_calls

    return add_calls(archive, night_id, [
        LoggedCall(c.role, c.spec, c.skill, c.input_tokens + c.cache_write_tokens,
                   c.output_tokens,
                   c.cache_read_tokens, c.latency_s, c.cost_usd, c.cached, c.error, c.at)
        for c in ledger.calls])


def load_calls(archive: Archive, night_id: str) -> Ledger:
    """The calls of one night, as a ``Ledger`` (for reports and ``status``)."""
    from skillopt_sleep.archive.calls import night_calls

    ledger = Ledger()
    for c in night_calls(archive, night_id):
        ledger.record(CallRecord(c.role, c.spec, c.skill, c.input_tokens, c.output_tokens,
                                 c.cache_read_tokens, c.latency_s, c.cost_usd, c.cached,
                                 c.error, c.at))
    return ledger


def worst_case_usd(price: Price | None, messages: Sequence[Message], max_tokens: int) -> float:
    """What a call could cost at most: its prompt (at the dearer of the input and the cache
    write price: a prompt cache may write it) plus every allowed output token."""
    if price is None:
        return 0.0
    prompt_chars = sum(len(m.get("content", "")) for m in messages)
    prompt = Usage(input_tokens=prompt_chars // CHARS_PER_TOKEN + 1, output_tokens=max_tokens)
    written = Usage(cache_write_tokens=prompt.input_tokens, output_tokens=max_tokens)
    return max(price.cost(prompt), price.cost(written))


@dataclass(frozen=True)
class OpenCall:
    """A call ``MeteredLLM.open_call`` began: its hold on the caps, skill and start time."""

    hold: int | None
    skill: str
    started: float


class MeteredLLM:
    """An ``LLM`` that records each call in a ``Ledger`` and enforces the dollar caps."""

    def __init__(self, llm: LLM, role: str, ledger: Ledger,
                 max_usd_per_night: float | None = None,
                 max_usd_per_skill: float | None = None):
        self.inner = llm
        self.role = role
        self.ledger = ledger
        self.name = llm.name
        self.price: Price | None = getattr(llm, "price", None)
        self.max_usd_per_night = max_usd_per_night
        self.max_usd_per_skill = max_usd_per_skill

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature,
                                  "seed": seed, "tools": tools}
        call = self.open_call(messages, params)
        try:
            completion = self.inner.complete(messages, **params)
        except ModelError as exc:
            self.close_call(call, error=exc)
            raise
        except BaseException:
            self.ledger.release(call.hold)  # not a model's answer (a bug, an interrupt): no record
            raise
        self.close_call(call, completion=completion)
        return completion

    def open_call(self, messages: Sequence[Message], params: dict[str, Any]) -> OpenCall:
        """Check the role is up and hold the call's worst case against the caps.

        ``complete`` is ``open_call``, the inner call, ``close_call``; a caller that makes the
        inner call elsewhere (another process, a cluster's worker) uses the two halves here,
        so the caps and the tally stay in this process."""
        guard = self.ledger.guard
        if guard is not None:
            guard.check(self.role)
        skill = self.ledger.skill
        return OpenCall(self._reserve(messages, params, skill), skill, time.monotonic())

    def close_call(self, call: OpenCall, *, completion: Completion | None = None,
                   error: ModelError | None = None) -> None:
        """Record the answer (or the failure) of a call ``open_call`` began."""
        guard = self.ledger.guard
        if completion is None:
            failure = error or ModelError("no answer")
            self.ledger.settle(call.hold, CallRecord(
                self.role, self.name, call.skill, error=str(failure)[:500] or
                type(failure).__name__, latency_s=time.monotonic() - call.started))
            if guard is not None:
                guard.failed(self.role, self.name, failure)
            return
        if guard is not None:
            guard.answered(self.role)
        u = completion.usage
        self.ledger.settle(call.hold, CallRecord(
            self.role, self.name, call.skill, u.input_tokens, u.output_tokens,
            u.cache_read_tokens, completion.latency_s or time.monotonic() - call.started,
            completion.cost_usd, completion.cached, cache_write_tokens=u.cache_write_tokens))

    def _reserve(self, messages: Sequence[Message], params: dict[str, Any],
                 skill: str) -> int | None:
        """Hold the call's worst case against the caps (``None``: no cap, or a cached reply)."""
        caps = [("night", self.max_usd_per_night, False)]
        if skill:
            caps.append((f"skill {skill!r}", self.max_usd_per_skill, True))
        live = [(scope, cap, per_skill) for scope, cap, per_skill in caps if cap is not None]
        if not live:
            return None  # a tally only (the night's own count of its calls)
        has = getattr(self.inner, "has", None)
        if callable(has) and has(messages, **params):
            return None
        worst = worst_case_usd(self.price, messages, params["max_tokens"])
        return self.ledger.reserve(worst, skill, live, f"{self.role} call ({self.name})")


@dataclass
class NightShape:
    """The calls one night makes per role and their typical sizes, for a pre-flight estimate.

    The call counts come from the night's own pattern (``pipeline.plan.night_calls`` reads
    the ``NightConfig``); this module only prices them.
    """

    target_calls: int
    optimizer_calls: int
    judge_calls: int = 0
    prompt_tokens: int = 1500
    answer_tokens: int = 600
    reflect_prompt_tokens: int = 8000
    reflect_output_tokens: int = 1500
    judge_prompt_tokens: int = 1200
    judge_output_tokens: int = 150
    route_calls: int = 0
    """Target calls of the trigger check (beside ``target_calls``): short routing prompts."""
    route_prompt_tokens: int = 400
    route_answer_tokens: int = 32
    cached_prompt_tokens: int = 0
    """Of ``prompt_tokens``: the prefix a prompt cache serves (the skill's system block)."""
    cache_writes: int = 0
    """Of ``target_calls``: those that write that prefix to the cache; the rest read it."""


@dataclass
class NightEstimate:
    total_usd: float
    usd_by_role: dict[str, float]
    calls_by_role: dict[str, int]


def estimate_night(shape: NightShape, *, target: Price, optimizer: Price,
                   judge: Price | None = None) -> NightEstimate:
    """What ``shape``'s calls cost at these prices (the target's replays with their cached
    prefix, ``cached_prompt_tokens``, read or written as the shape says; the judge defaults to
    the optimizer's price, as the judge defaults to the optimizer's model)."""
    s = shape
    cached, writes = s.cached_prompt_tokens, min(s.cache_writes, s.target_calls)
    replay = Usage(s.prompt_tokens - cached, s.answer_tokens)
    usd = {
        "target": s.target_calls * target.cost(replay)
        + writes * target.cost(Usage(cache_write_tokens=cached))
        + (s.target_calls - writes) * target.cost(Usage(cache_read_tokens=cached))
        + s.route_calls * target.cost(Usage(s.route_prompt_tokens, s.route_answer_tokens)),
        "optimizer": s.optimizer_calls * optimizer.cost(
            Usage(s.reflect_prompt_tokens, s.reflect_output_tokens)),
        "judge": s.judge_calls * (judge or optimizer).cost(
            Usage(s.judge_prompt_tokens, s.judge_output_tokens)),
    }
    calls = {"target": s.target_calls + s.route_calls, "optimizer": s.optimizer_calls,
             "judge": s.judge_calls}
    return NightEstimate(sum(usd.values()), usd, calls)


def estimate_night_usd(shape: NightShape, *, target: Price, optimizer: Price,
                       judge: Price | None = None) -> float:
    return estimate_night(shape, target=target, optimizer=optimizer, judge=judge).total_usd
