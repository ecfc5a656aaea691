"""Record/replay of model calls, content-addressed.

A call's key hashes the model spec, the messages, the sampling parameters (max tokens,
temperature, tools) and the seed, which names the sample: K rollouts of one task are K
keys, never one cached answer served K times. The provider's URL is not in the key, so a
recording made against one server replays against another.

Modes: ``record`` answers from the cache when it can and records every new answer;
``replay-only`` never calls a model (a miss is a ``ModelError``: tests and repeated
nights run offline and deterministically). The store is one SQLite file (WAL), safe for
the threads of a night and for concurrent processes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from skillopt_sleep import paths
from skillopt_sleep.errors import ConfigError, ModelError
from skillopt_sleep.models.base import LLM
from skillopt_sleep.records import Completion, Message, Usage, from_dict, to_dict, utcnow

Mode = Literal["record", "replay-only"]
MODES: tuple[Mode, ...] = ("record", "replay-only")


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


class Cache:
    """The store of recorded completions. ``path`` defaults to the user cache dir."""

    def __init__(self, path: Path | None = None, mode: str = "record"):
        if mode not in MODES:
            raise ConfigError(f"cache mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode: Mode = mode
        self.path = path or paths.cache_dir() / "model-calls.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, spec TEXT NOT NULL,"
            " completion_json TEXT NOT NULL, created_at TEXT NOT NULL)"
        )

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT completion_json FROM calls WHERE key = ?", (key,)).fetchone()
        return from_dict(Completion, json.loads(row[0])) if row else None

    def put(self, key: str, spec: str, completion: Completion) -> None:
        data = json.dumps(to_dict(completion))
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?)",
                               (key, spec, data, utcnow().isoformat()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class CachedLLM:
    """An ``LLM`` answered from a ``Cache`` first. A replayed answer costs nothing."""

    def __init__(self, llm: LLM, cache: Cache):
        self.inner = llm
        self.cache = cache
        self.name = llm.name
        self.price = getattr(llm, "price", None)

    def has(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
            seed: int, tools: Sequence[dict[str, Any]] | None = None) -> bool:
        """Whether this call would be a replay (a metered cap lets free calls through)."""
        key = call_key(self.name, messages, max_tokens=max_tokens, temperature=temperature,
                       seed=seed, tools=tools)
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
        key = call_key(self.name, messages, max_tokens=max_tokens, temperature=temperature,
                       seed=seed, tools=tools)
        hit = self.cache.get(key)
        if hit is not None:
            hit.cached, hit.cost_usd, hit.latency_s, hit.usage = True, 0.0, 0.0, Usage()
            return hit
        if self.cache.mode == "replay-only":
            raise ModelError(f"{self.name}: call not in the replay cache {self.cache.path} "
                             f"(key {key[:12]}, seed {seed}); record it first")
        completion = self.inner.complete(messages, max_tokens=max_tokens,
                                         temperature=temperature, seed=seed, tools=tools)
        self.cache.put(key, self.name, completion)
        return completion
