"""Models behind one ``LLM`` protocol: specs, prices, metering, record/replay.

``build_llm(spec)`` turns a model spec into an ``LLM``; ``MeteredLLM`` and ``Ledger``
count calls and dollars per role and enforce the caps; ``Cache`` records and replays.

Internal: the public API is ``skillopt_sleep.__all__``.
"""

from skillopt_sleep.models.base import LLM, ScriptedLLM, tag
from skillopt_sleep.models.cache import Cache, CachedLLM
from skillopt_sleep.models.meter import (
    Ledger,
    MeteredLLM,
    NightShape,
    estimate_night,
    estimate_night_usd,
)
from skillopt_sleep.models.pricing import Price, price_for
from skillopt_sleep.models.registry import build_llm, parse_spec
from skillopt_sleep.models.retry import RetryPolicy

__all__ = [
    "LLM",
    "Cache",
    "CachedLLM",
    "Ledger",
    "MeteredLLM",
    "NightShape",
    "Price",
    "RetryPolicy",
    "ScriptedLLM",
    "build_llm",
    "estimate_night",
    "estimate_night_usd",
    "parse_spec",
    "price_for",
    "tag",
]
