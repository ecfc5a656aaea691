"""Which backends cache a prompt's prefix, and from what length.

Every replay carries the whole skill in its system block, before the task; a night replays
each version of a skill dozens of times, so that block is what a provider's prompt cache
serves. The SDK backends ask for it (``anthropic``: ``cache_control: {"type":
"ephemeral"}`` on the system block; ``openai``: the system message first, so the automatic
prefix cache applies), the agent CLIs cache their own system prompt, which the skill is
appended to (``--append-system-prompt``; Codex caches automatically, as OpenAI does).

A prefix shorter than the provider's minimum is not cached and costs the plain input price;
``floor`` gives that minimum per model spec (0: the backend caches nothing). The minimums
are the providers' documented ones (Anthropic's prompt-caching page, November 2026:
4,096 tokens for Claude Haiku 4.5 and Opus 4.5, 2,048 for Haiku 3.5, 1,024 for Sonnet 4 /
4.5 / 4.6 and Opus 4.1; OpenAI: 1,024 for every model).
"""

from __future__ import annotations

from skillopt_sleep.models.pricing import DEFAULT_MODELS

__all__ = ["floor", "provider"]

_ANTHROPIC_FLOORS = (("claude-haiku-4-5", 4096), ("claude-opus-4-5", 4096),
                     ("claude-3-5-haiku", 2048), ("claude-3-haiku", 2048))
_ANTHROPIC_DEFAULT = 1024
_OPENAI_FLOOR = 1024
_PROVIDER = {"anthropic": "anthropic", "claude-code": "anthropic", "openai": "openai",
             "openai-responses": "openai", "codex": "openai"}


def provider(spec: str) -> str:
    """``anthropic``, ``openai``, or empty for a backend without a prompt cache."""
    return _PROVIDER.get(spec.partition(":")[0], "")


def floor(spec: str) -> int:
    """The fewest prompt tokens ``spec``'s provider caches (0: it caches none)."""
    backend, _, model = spec.partition(":")
    kind = provider(spec)
    if kind == "openai":
        return _OPENAI_FLOOR
    if kind != "anthropic":
        return 0
    model = model or DEFAULT_MODELS.get(backend, "")
    return next((n for prefix, n in _ANTHROPIC_FLOORS if model.startswith(prefix)),
                _ANTHROPIC_DEFAULT)
