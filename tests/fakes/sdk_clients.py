"""The real SDK clients, pointed at a ``FakeLLMServer``: one per backend kind the night uses."""

from __future__ import annotations

from skillopt_sleep.models.anthropic import AnthropicLLM
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.openai import OpenAIChatLLM, OpenAIResponsesLLM
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import RetryPolicy

from .llm_server import FakeLLMServer

KINDS = ["anthropic", "openai", "responses"]
PRICE = Price(input_per_mtok=1.0, output_per_mtok=5.0)
POLICY = RetryPolicy(attempts=2, initial_wait_s=0.01, max_wait_s=0.02, timeout_s=2.0)
"""Two quick attempts: a test of a failing reply should not wait on real back-off."""


def sdk_llm(kind: str, server: FakeLLMServer) -> LLM:
    """The real client of ``kind`` (``anthropic``, ``openai`` chat or ``responses``)."""
    if kind == "anthropic":
        return AnthropicLLM("claude-haiku-4-5", price=PRICE, base_url=server.url,
                            api_key="test-key", policy=POLICY)
    cls = OpenAIChatLLM if kind == "openai" else OpenAIResponsesLLM
    return cls("gpt-4.1-mini", price=PRICE, base_url=server.openai_base_url,
               api_key="test-key", policy=POLICY)
