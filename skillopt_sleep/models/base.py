"""The ``LLM`` protocol: the one way the engine talks to a model.

Target (answers tasks with the skill in context) and optimizer (reflects and proposes
edits) are two ``LLM`` instances, possibly of different providers. Implementations:
``simulated`` (personas), ``anthropic``, ``openai``, ``openai-responses``, ``claude-code``,
``codex``, ``handoff``; ``ScriptedLLM`` below is the mock tests use. A ``Backend`` is how
one kind of model is built from a spec; ``skillopt_sleep.tables.MODELS`` names them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from skillopt_sleep.models.pricing import FREE, Price
from skillopt_sleep.models.retry import RetryPolicy
from skillopt_sleep.records import SENTINEL, Completion, Message


@runtime_checkable
class LLM(Protocol):
    """A frozen chat model.

    ``complete`` answers ``messages`` (a list of ``{"role", "content"}``; the first
    non-system message starts with the engine's sentinel line). ``seed`` distinguishes
    samples: two calls with the same messages and seeds are the same sample, different
    seeds are different samples (a cache must never collapse them).

    It raises ``ModelError`` (after its own retries) when no answer could be had,
    ``AuthError`` when credentials are refused, ``BudgetExceeded`` at a dollar cap; it never
    returns an empty answer in place of an error. ``name`` is the spec it was built from.
    """

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion: ...


@dataclass(frozen=True)
class BackendOptions:
    """What a backend is built with: the parsed spec and the night's settings for its role."""

    spec: str
    model: str
    """The part after ``backend:`` (empty when the spec names none)."""
    base_url: str | None = None
    price: Price = FREE
    """``FREE`` for a backend that is not priced."""
    persona: str | None = None
    seed: int = 0
    role: str = "target"
    policy: RetryPolicy | None = None
    stream: bool = False


Level = Literal["ok", "warning", "error"]


@dataclass(frozen=True)
class Finding:
    """One thing a backend's check found: ``what`` was looked at (``installed``, ``login``,
    ``endpoint``, ``credentials``…), its ``level``, and ``detail`` — for an error, the
    problem and the fix in one line."""

    what: str
    level: Level
    detail: str


@dataclass(frozen=True)
class Readiness:
    """What a backend's ``check`` found, and what it could not know without a model call."""

    findings: tuple[Finding, ...] = ()
    unknowable: str = ""
    """What only a real call can tell (a quota, whether the model name exists…)."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors


def _nothing_to_check(options: BackendOptions, reach: bool) -> Readiness:
    return Readiness((Finding("backend", "ok", "nothing to install or log in to"),))


@dataclass(frozen=True)
class Backend:
    """One kind of model: how to build it, check it, and whether its calls cost money.

    ``build`` must not call the model: building is cheap and happens before a night starts,
    so a bad spec or a missing credential fails before any work is done.

    ``check(options, reach)`` says whether the backend can work on this machine without a
    model call: the CLI is installed and logged in, credentials are present, and — with
    ``reach`` — the endpoint answers a free request (a model list, never a completion). It
    never raises for what it finds; it returns ``Finding``s. ``endpoint`` names the wire API a
    base URL for this backend must speak (``"anthropic"``, ``"openai"``), or None when the
    backend takes no base URL.
    """

    build: Callable[[BackendOptions], LLM]
    priced: bool = True
    """False: the backend costs nothing and needs no price."""
    cacheable: bool = True
    """False: record/replay does not apply (a handoff's answers come from the user's agent)."""
    check: Callable[[BackendOptions, bool], Readiness] = field(default=_nothing_to_check)
    endpoint: str | None = None
    concurrency: int = 8
    """How many calls a night runs at once by default (config ``concurrency`` overrides).
    An HTTP API takes 8 in flight easily and rate limits are retried; an agent CLI is a
    whole process per call (a Node runtime, its own tool loop), so its kinds say fewer."""


def default_concurrency(spec: str) -> int:
    """The ``concurrency`` of the backend ``spec`` names (``MODELS`` row), 4 if unknown."""
    from skillopt_sleep.tables import MODELS

    found = MODELS.get(spec.split(":", 1)[0]) if spec.split(":", 1)[0] in MODELS else None
    return int(getattr(found, "concurrency", 4))


def tag(prompt: str) -> str:
    """Prefix a prompt with the sentinel so engine sessions are never harvested back."""
    return prompt if prompt.startswith(SENTINEL) else f"{SENTINEL}\n{prompt}"


class ScriptedLLM:
    """Mock ``LLM``: answers from a function of the messages (or a fixed text), records calls."""

    def __init__(
        self, reply: str | Callable[[Sequence[Message], int], str], name: str = "scripted"
    ):
        self.name = name
        self._reply = reply
        self.calls: list[list[Message]] = []

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        self.calls.append(list(messages))
        text = self._reply if isinstance(self._reply, str) else self._reply(messages, seed)
        return Completion(text=text)
