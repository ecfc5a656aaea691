"""Retries with backoff around one model call, and the sorting of what went wrong.

Every backend calls its provider through ``call_with_retries``: rate limits, overload,
5xx, timeouts and dropped connections are retried with exponential backoff (honouring
``Retry-After``); refused credentials become ``AuthError`` at once; anything else, or a
transient failure that outlasts the attempts, becomes ``ModelError``. The SDKs' own retry
loops are switched off so there is one policy, and tests can make it fast.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from skillopt_sleep.errors import AuthError, ModelError
from skillopt_sleep.records import Completion

T = TypeVar("T")
Kind = Literal["auth", "transient", "fatal"]

_TRANSIENT_STATUS = {408, 409, 425, 429}
_AUTH_STATUS = {401, 403}


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try one call. ``timeout_s`` bounds each attempt."""

    attempts: int = 4
    initial_wait_s: float = 1.0
    max_wait_s: float = 30.0
    timeout_s: float = 120.0


FAST = RetryPolicy(attempts=3, initial_wait_s=0.01, max_wait_s=0.05, timeout_s=2.0)
"""For tests against a local fake server."""


def classify(exc: BaseException, transient_types: tuple[type[BaseException], ...] = ()) -> Kind:
    """Sort an SDK or transport exception into auth / transient / fatal."""
    if isinstance(exc, AuthError):
        return "auth"
    if transient_types and isinstance(exc, transient_types):
        return "transient"
    if isinstance(exc, ModelError):
        return "fatal"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status in _AUTH_STATUS:
            return "auth"
        if status in _TRANSIENT_STATUS or status >= 500:
            return "transient"
        return "fatal"
    if isinstance(exc, TimeoutError | ConnectionError):
        return "transient"
    return "fatal"


def _retry_after(exc: BaseException | None) -> float:
    response: Any = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return 0.0
    try:
        return max(0.0, float(headers.get("retry-after", 0) or 0))
    except (TypeError, ValueError):
        return 0.0


def call_with_retries(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    what: str,
    transient_types: tuple[type[BaseException], ...] = (),
) -> T:
    """Run ``fn`` under ``policy``; raise ``AuthError`` or ``ModelError``, never return junk."""
    backoff = wait_exponential_jitter(multiplier=policy.initial_wait_s, max=policy.max_wait_s,
                                      jitter=policy.initial_wait_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return min(policy.max_wait_s, max(backoff(state), _retry_after(exc)))

    retrying = Retrying(
        stop=stop_after_attempt(max(1, policy.attempts)),
        wait=wait,
        retry=retry_if_exception(lambda e: classify(e, transient_types) == "transient"),
        reraise=True,
    )
    try:
        return retrying(fn)
    except ModelError:
        raise
    except Exception as exc:
        kind = classify(exc, transient_types)
        detail = f"{type(exc).__name__}: {exc}"
        if kind == "auth":
            raise AuthError(f"{what}: credentials refused ({detail})") from exc
        if kind == "transient":
            raise ModelError(f"{what}: failed after {policy.attempts} attempts ({detail})") from exc
        raise ModelError(f"{what}: {detail}") from exc


def timed_call(
    fn: Callable[[], Completion],
    *,
    policy: RetryPolicy,
    what: str,
    transient_types: tuple[type[BaseException], ...] = (),
) -> Completion:
    """``call_with_retries`` for one model call; its latency spans every attempt and wait."""
    started = time.monotonic()
    completion = call_with_retries(fn, policy=policy, what=what, transient_types=transient_types)
    completion.latency_s = time.monotonic() - started
    return completion
