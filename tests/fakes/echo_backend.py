"""A model backend written as ARCHITECTURE.md says a contributor writes one: one module.

``echo[:PREFIX]`` answers every prompt with its last message, prefixed. It is registered
in a test with one row (``MODELS.add``), exactly as a row in ``tables.py`` would be.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillopt_sleep.models.base import LLM, Backend, BackendOptions
from skillopt_sleep.records import Completion, Message, Usage


class EchoLLM:
    def __init__(self, prefix: str, name: str):
        self.prefix = prefix
        self.name = name
        self.calls = 0

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 seed: int, tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        self.calls += 1
        text = messages[-1]["content"].splitlines()[-1]
        return Completion(text=f"{self.prefix}{text}", usage=Usage(10, 5))


def _build(options: BackendOptions) -> LLM:
    return EchoLLM(options.model, options.spec)


BACKEND = Backend(_build, priced=False)
