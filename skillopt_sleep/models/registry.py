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


def resolve_base_urls(
    specs: Mapping[str, str], own: Mapping[str, str | None], shared: str | None
) -> dict[str, str | None]:
    """The base URL each role's model is built with.

    ``own[role]`` (``--target-base-url`` …) wins; ``shared`` (``--base-url``) goes to every
    other role whose backend takes a base URL, but only when those roles all name the same
    backend kind — otherwise it is a ``ConfigError`` that names the per-role flags. A URL
    given to a role whose backend takes none is an error too, never silently ignored.
    """
    takes = {role: backend(parse_spec(spec)[0]).endpoint is not None
             for role, spec in specs.items()}
    for role, url in own.items():
        if url and role in specs and not takes[role]:
            raise ConfigError(f"--{role}-base-url: {role} model {specs[role]!r} takes no base URL")
    urls: dict[str, str | None] = {role: own.get(role) or None for role in specs}
    if not shared:
        return urls
    open_roles = [r for r in specs if takes[r] and not urls[r]]
    kinds = {parse_spec(specs[r])[0] for r in open_roles}
    if not open_roles:
        raise ConfigError(
            "--base-url reaches no model: " + ", ".join(
                f"{r} is {specs[r]!r}" for r in specs) + " (each has its own URL or takes none)")
    if len(kinds) > 1:
        uses = ", ".join(f"{r} is {specs[r]!r}" for r in open_roles)
        flags = " ".join(f"--{r}-base-url URL" for r in open_roles)
        keys = ", ".join(f"{r}_base_url" for r in open_roles)
        raise ConfigError(f"--base-url is ambiguous: {uses}, different backends; give each its "
                          f"own: {flags} (config keys {keys})")
    return {role: url or (shared if role in open_roles else None) for role, url in urls.items()}


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

    ``base_url`` applies to the backends that take one (``Backend.endpoint``: anthropic,
    openai, openai-responses, claude-code, codex); each normalises it for its wire API;
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
