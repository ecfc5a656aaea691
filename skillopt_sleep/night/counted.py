"""Count calls and dollars per role, whatever backend sits behind an ``LLM``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.models.base import LLM
from skillopt_sleep.records import Completion, Message


class Counted:
    """An ``LLM`` that forwards to another and tallies its calls and cost."""

    def __init__(self, inner: LLM, role: str):
        self.inner = inner
        self.role = role
        self.name = inner.name
        self.calls = 0
        self.cost_usd = 0.0
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        with self._lock:
            self.calls += 1
        done = self.inner.complete(
            messages, max_tokens=max_tokens, temperature=temperature, seed=seed, tools=tools
        )
        with self._lock:
            self.cost_usd += done.cost_usd
        return done
