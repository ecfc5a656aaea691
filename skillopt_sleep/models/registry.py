"""Model specs to ``LLM`` instances: the one place a spec string is interpreted.

Specs are ``NAME``, ``NAME:MODEL`` or ``NAME[:MODEL]`` as ``skillopt_sleep.tables.MODELS``
writes them (``simulated``, ``anthropic:MODEL``, ``openai:MODEL`` (Chat Completions),
``openai-responses:MODEL`` (Responses API), ``claude-code[:MODEL]``, ``codex[:MODEL]``,
``handoff``, and any backend a plugin registers). An unknown backend, or a spec that names
a model where none is taken (or none where one is needed), is an ``UnknownModelError``
that lists the valid backends: there is no silent fallback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillopt_sleep.errors import ConfigError, UnknownModelError
from skillopt_sleep.models.base import LLM, Backend, BackendOptions
from skillopt_sleep.models.cache import Cache, CachedLLM
from skillopt_sleep.models.pricing import FREE, price_for
from skillopt_sleep.models.retry import RetryPolicy
from skillopt_sleep.tables import MODELS

ROLES = ("target", "optimizer", "judge")


def valid_backends() -> str:
    return MODELS.describe()


def parse_spec(spec: str) -> tuple[str, str]:
    """``(backend, model)``; ``UnknownModelError`` for a backend ``MODELS`` does not know."""
    backend, _, model = spec.strip().partition(":")
    problem = ""
    if backend not in MODELS:
        problem = f"unknown model backend {backend!r} in spec {spec!r}"
    else:
        usage = MODELS.row(backend).shown
        if usage.endswith(":MODEL") and not model:
            problem = f"model spec {spec!r} names no model (use {backend}:MODEL)"
        elif ":" not in usage and model:
            problem = f"model spec {spec!r}: {backend} takes no model name"
    if problem:
        raise UnknownModelError(f"{problem}; valid backends:\n{valid_backends()}")
    return backend, model


def backend(name: str) -> Backend:
    """The ``Backend`` registered as ``name``."""
    found = MODELS.get(name)
    if not isinstance(found, Backend):
        raise ConfigError(f"model backend {name!r} is not a Backend: {found!r}")
    return found


def build_llm(
    spec: str,
    *,
    base_url: str | None = None,
    pricing: Mapping[str, Any] | None = None,
    cache: Cache | None = None,
    persona: str | None = None,
    seed: int = 0,
    role: str = "target",
    policy: RetryPolicy | None = None,
    stream: bool = False,
) -> LLM:
    """Build the ``LLM`` a spec names, priced (an unknown price is a ``ConfigError``).

    ``base_url`` applies to the ``openai`` kinds (and ``anthropic``, for proxies);
    ``cache`` wraps the model in record/replay; ``persona`` and ``role`` choose what the
    simulator plays; ``policy`` sets retries and the per-attempt timeout.
    """
    if role not in ROLES:
        raise ConfigError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    name, model = parse_spec(spec)
    kind = backend(name)
    options = BackendOptions(
        spec=spec, model=model, base_url=base_url,
        price=price_for(spec, pricing) if kind.priced else FREE,
        persona=persona, seed=seed, role=role, policy=policy, stream=stream,
    )
    llm = kind.build(options)
    if cache is not None and kind.cacheable:
        return CachedLLM(llm, cache)
    return llm
