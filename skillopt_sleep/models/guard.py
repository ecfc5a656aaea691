"""Knowing when a role's model cannot answer, and saying so in one line with the fix.

A night makes hundreds of calls per role (target, optimizer, judge, miner). One failed call
is a counted outcome: replay records it and the gate leaves it out of its pairs. But a role
whose every call fails makes an empty night that looks like a real one (validation
0.000 → 0.000, "unchanged"). ``CallGuard`` watches each role's calls and raises
``RoleUnavailable`` — which no per-call handler catches — as soon as the role is plainly
down:

- **at once** for a failure no retry can change: no CLI on PATH, credentials refused
  (``AuthError``: not logged in, 401, 403), connection refused, a host that does not
  resolve, a 404 (``Unreachable``);
- **after ``CONSECUTIVE_FAILURES`` calls in a row** that failed for any other reason, each
  after exhausting its own retries (5xx, rate limits, timeouts, empty answers).

Once a role has tripped, its later calls are refused before they are sent, so calls
already queued on an executor drain at once instead of each waiting out its retries.

``HandoffPending`` and ``BudgetExceeded`` are not failures of the model and are never counted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    HandoffPending,
    ModelError,
    RoleUnavailable,
    Unreachable,
)

__all__ = ["CONSECUTIVE_FAILURES", "FAILURE_RATE_WARNING", "CallGuard", "RoleHealth",
           "failure_warnings", "unavailable"]

CONSECUTIVE_FAILURES = 5
"""Calls of one role that may fail in a row, each after all its retries, before the night stops.

Every failed call has already been retried (4 attempts over ~7 s for the SDKs, 2 for the agent
CLIs), so a failure here is persistent for that call. If a healthy backend fails a call
independently with probability p, a run of 5 has probability p⁵: at p = 10 % (the warning
threshold below) that is 1 in 100,000 per call, about 0.7 % over an 800-call night, so a
working backend practically never stops a night. Three in a row would stop ~70 % of such
nights; ten would waste ten full retry cycles (minutes with a CLI at 5–20 s a call) on a
backend that is down. Five is where a false stop is negligible and a real outage costs under
a minute of retries."""

FAILURE_RATE_WARNING = 0.10
"""A role whose failed share of calls exceeds this gets a warning in the run and the report.

After their retries, healthy providers fail well under 1 % of calls, so above 10 % something
is systematically wrong (rate limits, timeouts near the limit, a flaky proxy) even though no
five failed in a row. It also matters to the gate: failed replays are left out of its pairs,
and above one pair in ten the lost evidence is enough to turn a near-miss, and failures that
hit one side more (a longer skill timing out) can tilt the comparison."""

_FLAGS = {"target": "--target", "optimizer": "--optimizer"}
_LOGIN = {
    "claude-code": "log in with `claude` (then /login) or set ANTHROPIC_API_KEY",
    "codex": "run `codex login` or set OPENAI_API_KEY",
    "anthropic": "set ANTHROPIC_API_KEY to a valid key",
    "openai": "set OPENAI_API_KEY to a valid key (a local server takes any non-empty key)",
    "openai-responses": "set OPENAI_API_KEY to a valid key",
}
_INSTALL = {
    "claude": ("install Claude Code (npm install -g @anthropic-ai/claude-code)",
               "anthropic:MODEL"),
    "codex": ("install the Codex CLI (npm install -g @openai/codex)", "openai:MODEL"),
}


def _choose(role: str, spec: str) -> str:
    """How the user picks another model for ``role``."""
    flag = _FLAGS.get(role)
    return f"{flag} {spec}" if flag else f"{role} = \"{spec}\" in config.toml"


def _diagnose(role: str, spec: str, exc: BaseException) -> tuple[str, str]:
    """``(what is wrong, what to do)`` for a failure that stops a role at once."""
    kind = spec.partition(":")[0]
    detail = str(exc).strip()
    if isinstance(exc, AuthError):
        return (f"no valid login or API key ({detail[:200]})",
                _LOGIN.get(kind, "check the backend's credentials"))
    assert isinstance(exc, Unreachable)
    where = exc.where
    if exc.why == "missing-cli":
        install, other = _INSTALL.get(where, (f"install `{where}`", "anthropic:MODEL"))
        return f"`{where}` is not on PATH", f"{install} or choose {_choose(role, other)}"
    if exc.why == "refused":
        return (f"connection refused at {where or 'its base URL'}",
                f"start the server, or correct the {role}'s base URL")
    if exc.why == "unknown-host":
        return (f"the host of {where or 'its base URL'} does not resolve",
                f"correct the {role}'s base URL")
    return (f"{where or 'the server'} answered 404 Not Found",
            f"check the model name in {_choose(role, spec).split(' ')[0]} and the "
            f"{role}'s base URL (OpenAI-compatible servers usually end in /v1)")


def unavailable(role: str, spec: str, reason: str, fix: str) -> RoleUnavailable:
    """The error that stops a night, its message the one line the faces print."""
    message = f"the {role} model {spec} cannot answer: {reason}; {fix}"
    return RoleUnavailable(message, role=role, spec=spec, reason=reason)


@dataclass
class RoleHealth:
    """One role's calls so far: how many, how many failed, the current failed run."""

    calls: int = 0
    failed: int = 0
    in_a_row: int = 0
    down: RoleUnavailable | None = None


class CallGuard:
    """Per-role failure tracking for one run; thread-safe (replays run on executors)."""

    def __init__(self, limit: int = CONSECUTIVE_FAILURES):
        self.limit = max(1, limit)
        self._lock = threading.Lock()
        self.roles: dict[str, RoleHealth] = {}

    def _health(self, role: str) -> RoleHealth:
        return self.roles.setdefault(role, RoleHealth())

    def check(self, role: str) -> None:
        """Refuse a call of a role that is already down (before anything is sent)."""
        with self._lock:
            down = self._health(role).down
        if down is not None:
            raise _again(down)

    def answered(self, role: str) -> None:
        with self._lock:
            health = self._health(role)
            health.calls += 1
            health.in_a_row = 0

    def failed(self, role: str, spec: str, exc: ModelError) -> None:
        """Count a failed call; raise ``RoleUnavailable`` when the role is plainly down."""
        if isinstance(exc, HandoffPending | BudgetExceeded):
            return
        with self._lock:
            health = self._health(role)
            health.calls += 1
            health.failed += 1
            health.in_a_row += 1
            if health.down is None:
                health.down = self._verdict(role, spec, exc, health.in_a_row)
            down = health.down
        if down is not None:
            raise _again(down) from exc

    def _verdict(self, role: str, spec: str, exc: ModelError,
                 in_a_row: int) -> RoleUnavailable | None:
        if isinstance(exc, AuthError | Unreachable):
            return unavailable(role, spec, *_diagnose(role, spec, exc))
        if in_a_row < self.limit:
            return None
        return unavailable(
            role, spec,
            f"{in_a_row} calls in a row failed after all their retries (last: "
            f"{str(exc).strip()[:200]})",
            "check the provider's status and your rate limits, then run again")


def _again(down: RoleUnavailable) -> RoleUnavailable:
    """A fresh copy to raise: one instance raised in several threads would share a traceback."""
    return RoleUnavailable(str(down), role=down.role, spec=down.spec, reason=down.reason)


def failure_warnings(rows: Sequence[tuple[str, int, int]],
                     threshold: float = FAILURE_RATE_WARNING) -> list[str]:
    """One warning per ``(role, calls, failed)`` whose failed share is above ``threshold``."""
    return [
        f"{failed} of {calls} {role} calls failed ({failed / calls:.0%}, above "
        f"{threshold:.0%}): the gate had less evidence than planned"
        for role, calls, failed in rows
        if calls and failed / calls > threshold
    ]
