"""Model specs to ``LLM`` instances: the one place a spec string is interpreted.

Specs: ``simulated``, ``anthropic:MODEL``, ``openai:MODEL`` (Chat Completions),
``openai-responses:MODEL`` (Responses API), ``claude-code[:MODEL]``, ``codex[:MODEL]``,
``handoff``. An unknown backend, or a provider spec without a model, is an
``UnknownModelError`` that lists the valid backends: there is no silent fallback.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from skillopt_sleep.errors import ConfigError, UnknownModelError
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.cache import Cache, CachedLLM
from skillopt_sleep.models.pricing import price_for
from skillopt_sleep.models.retry import RetryPolicy

BACKENDS: dict[str, str] = {
    "simulated": "the persona simulator (no network, no cost)",
    "anthropic": "anthropic:MODEL, Messages API via the anthropic SDK",
    "openai": ("openai:MODEL, Chat Completions via the openai SDK"
               " (--base-url for compatible servers)"),
    "openai-responses": "openai-responses:MODEL, Responses API via the openai SDK",
    "claude-code": "claude-code[:MODEL], the real Claude Code harness (claude -p)",
    "codex": "codex[:MODEL], the real Codex harness (codex exec)",
    "handoff": "prompts written to files for your own agent to answer",
}
_NEEDS_MODEL = {"anthropic", "openai", "openai-responses"}
_NO_MODEL = {"simulated", "handoff"}
ROLES = ("target", "optimizer", "judge")


def valid_backends() -> str:
    return "\n".join(f"  {name:<17} {what}" for name, what in BACKENDS.items())


def parse_spec(spec: str) -> tuple[str, str]:
    """``(backend, model)``; ``UnknownModelError`` for anything not in ``BACKENDS``."""
    backend, _, model = spec.strip().partition(":")
    problem = ""
    if backend not in BACKENDS:
        problem = f"unknown model backend {backend!r} in spec {spec!r}"
    elif backend in _NEEDS_MODEL and not model:
        problem = f"model spec {spec!r} names no model (use {backend}:MODEL)"
    elif backend in _NO_MODEL and model:
        problem = f"model spec {spec!r}: {backend} takes no model name"
    if problem:
        raise UnknownModelError(f"{problem}; valid backends:\n{valid_backends()}")
    return backend, model


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
    backend, model = parse_spec(spec)
    llm = _backend(backend, model, spec=spec, base_url=base_url, pricing=pricing,
                   persona=persona, seed=seed, role=role, policy=policy, stream=stream)
    if cache is not None and backend != "handoff":
        return CachedLLM(llm, cache)
    return llm


def _backend(backend: str, model: str, *, spec: str, base_url: str | None,
             pricing: Mapping[str, Any] | None, persona: str | None, seed: int, role: str,
             policy: RetryPolicy | None, stream: bool) -> LLM:
    if backend == "simulated":
        return _simulated(persona, seed, role)
    if backend == "handoff":
        from skillopt_sleep.models.handoff import HandoffLLM

        return HandoffLLM()
    price = price_for(spec, pricing)
    if backend == "anthropic":
        from skillopt_sleep.models.anthropic import AnthropicLLM

        return AnthropicLLM(model, price=price, base_url=base_url, policy=policy, stream=stream)
    if backend in ("openai", "openai-responses"):
        from skillopt_sleep.models.openai import OpenAIChatLLM, OpenAIResponsesLLM

        kind = OpenAIChatLLM if backend == "openai" else OpenAIResponsesLLM
        return kind(model, price=price, base_url=base_url, policy=policy, stream=stream)
    from skillopt_sleep.models.agent_cli import ClaudeCodeLLM, CodexLLM

    if backend == "claude-code":
        return ClaudeCodeLLM(model or None, price=price, base_url=base_url, policy=policy)
    return CodexLLM(model or None, price=price, base_url=base_url, policy=policy)


def _simulated(persona: str | None, seed: int, role: str) -> LLM:
    try:
        module = importlib.import_module("skillopt_sleep.sim.models")
    except ImportError as exc:
        raise ConfigError(f"the simulated backend is not available: {exc}") from exc
    build = getattr(module, "build", None)
    if build is None:
        raise ConfigError("the simulated backend is not available: simulated.build is missing")
    if persona is None:
        raise ConfigError("the simulated backend needs a persona (--persona NAME or PATH)")
    llm: LLM = build(persona, seed, role)
    return llm
