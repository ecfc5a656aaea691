"""Record/replay of model calls, content-addressed.

A call's key hashes the model spec, the messages, the sampling parameters (max tokens,
temperature, tools) and the seed, which names the sample: K rollouts of one task are K
keys, never one cached answer served K times. The provider's URL is not in the key, so a
recording made against one server replays against another.

A model whose answers depend on more than the call (the persona simulator's own seed and
persona) names that in a ``cache_scope`` attribute, which joins the key.

Modes: ``record`` answers from the cache when it can and records every new answer;
``replay-only`` never calls a model: a miss raises ``RoleUnavailable`` (no retry can
produce an answer that was never recorded), which stops a night or a proof at once
instead of scoring thousands of failed calls. Tests and repeated runs are offline and
deterministic. The store itself, one SQLite file, is
``archive.cache.Cache``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.archive.cache import MODES, Cache, Mode
from skillopt_sleep.errors import RoleUnavailable
from skillopt_sleep.models.base import LLM
from skillopt_sleep.records import Completion, Message, Usage

# The store is the archive's; its names stay importable from here, where callers expect them.
__all__ = ["MODES", "Cache", "CachedLLM", "Mode", "call_key"]


def call_key(
    spec: str,
    messages: Sequence[Message],
    *,
    max_tokens: int,
    temperature: float,
    seed: int,
    tools: Sequence[dict[str, Any]] | None,
) -> str:
    payload = {"spec": spec, "messages": [dict(m) for m in messages],
               "max_tokens": max_tokens, "temperature": temperature, "seed": seed,
               "tools": list(tools or [])}
    raw = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class CachedLLM:
    """An ``LLM`` answered from a ``Cache`` first. A replayed answer costs nothing."""

    def __init__(self, llm: LLM, cache: Cache):
        self.inner = llm
        self.cache = cache
        self.name = llm.name
        self.price = getattr(llm, "price", None)
        scope = getattr(llm, "cache_scope", "")
        self._key_spec = f"{llm.name}#{scope}" if scope else llm.name

    def has(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
            seed: int, tools: Sequence[dict[str, Any]] | None = None) -> bool:
        """Whether this call would be a replay (a metered cap lets free calls through)."""
        key = call_key(self._key_spec, messages, max_tokens=max_tokens,
                       temperature=temperature, seed=seed, tools=tools)
        return self.cache.get(key) is not None

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        key = call_key(self._key_spec, messages, max_tokens=max_tokens,
                       temperature=temperature, seed=seed, tools=tools)
        hit = self.cache.get(key)
        if hit is not None:
            hit.cached, hit.cost_usd, hit.latency_s, hit.usage = True, 0.0, 0.0, Usage()
            return hit
        if self.cache.mode == "replay-only":
            raise RoleUnavailable(
                f"{self.name}: call not in the replay cache {self.cache.path} (key {key[:12]}, "
                f"seed {seed}); record it first (--record)", spec=self.name,
                reason="not recorded")
        completion = self.inner.complete(messages, max_tokens=max_tokens,
                                         temperature=temperature, seed=seed, tools=tools)
        self.cache.put(key, self.name, completion)
        return completion
