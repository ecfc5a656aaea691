"""Retries with backoff around one model call, and the sorting of what went wrong.

Every backend calls its provider through ``call_with_retries``: rate limits, overload,
5xx, timeouts and dropped connections are retried with exponential backoff (honouring
``Retry-After``); refused credentials become ``AuthError`` at once; a backend that cannot be
reached at all (connection refused, a host name that does not resolve, 404) becomes
``Unreachable`` at once, since no retry can change it; anything else, or a transient failure
that outlasts the attempts, becomes ``ModelError``. The SDKs' own retry
loops are switched off so there is one policy, and tests can make it fast.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from skillopt_sleep.errors import AuthError, ModelError, Unreachable
from skillopt_sleep.records import Completion

if TYPE_CHECKING:
    from tenacity import RetryCallState

T = TypeVar("T")
Kind = Literal["auth", "transient", "unreachable", "fatal"]

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


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from (SDK → httpx → httpcore → OSError)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def unreachable_why(exc: BaseException) -> str:
    """``refused``, ``unknown-host`` or ``not-found`` when ``exc`` says nothing answers the
    base URL (no retry can help), else ``""``."""
    for link in _chain(exc):
        if isinstance(link, ConnectionRefusedError):
            return "refused"
        # EAI_NONAME: the name does not exist; EAI_AGAIN (a flaky resolver) stays transient.
        if isinstance(link, socket.gaierror) and link.errno == socket.EAI_NONAME:
            return "unknown-host"
    if getattr(exc, "status_code", None) == 404:
        return "not-found"
    return ""


def request_url(exc: BaseException) -> str:
    """The URL a failed request went to, when the SDK's exception carries it."""
    for link in _chain(exc):
        request = getattr(link, "request", None)
        if request is None:
            request = getattr(getattr(link, "response", None), "request", None)
        url = getattr(request, "url", None)
        if url is not None:
            return str(url)
    return ""


def classify(exc: BaseException, transient_types: tuple[type[BaseException], ...] = ()) -> Kind:
    """Sort an SDK or transport exception into auth / transient / unreachable / fatal."""
    if isinstance(exc, AuthError):
        return "auth"
    if isinstance(exc, Unreachable) or (not isinstance(exc, ModelError) and unreachable_why(exc)):
        return "unreachable"
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


_UNREACHABLE = {"refused": "connection refused at", "unknown-host": "cannot resolve the host of",
                "not-found": "404 Not Found at"}


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
    # Imported at the first call: tenacity loads asyncio (and tornado's adapter when tornado
    # is installed), which a command that builds no model, a nothing-new night, never needs.
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

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
        if kind == "unreachable":
            why, url = unreachable_why(exc), request_url(exc)
            raise Unreachable(f"{what}: {_UNREACHABLE[why]} {url} ({detail})".replace("  ", " "),
                              why=why, where=url) from exc
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
