"""Dollar prices per million tokens, and what a call cost.

A built-in table covers the models the defaults and the docs name; anything else needs
a price in config (``[pricing."openai:my-model"] input_per_mtok = …, output_per_mtok = …``,
``0`` allowed for a local server). An unknown price is a ``ConfigError``: a night never
runs with a dollar cap it cannot count against.

Prices are keyed by provider (``anthropic`` or ``openai``) and model. The agent-harness
specs price like their provider (``claude-code:M`` as ``anthropic:M``, ``codex:M`` as
``openai:M``); ``openai-responses:M`` prices as ``openai:M``. A dated model name
(``claude-haiku-4-5-20251001``) falls back to its undated entry.

Prompt caching has prices of its own: a read from the cache costs a tenth of the input price
on Anthropic's models and on OpenAI's GPT-5 family (a quarter on GPT-4.1, half on GPT-4o);
Anthropic also charges a write, 1.25× the input price for its 5-minute cache (the one
``cache_control: {"type": "ephemeral"}`` asks for); OpenAI's writes cost the input price.
Checked against the providers' pricing pages in November 2026. Claude Sonnet 4 was retired
on 15 June 2026; its row stays so that an older config still prices (a call to a retired
model fails at the provider, with the provider's message). The defaults name the newest
Sonnet, 4.6, which prices as 4.5 did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import Usage


@dataclass(frozen=True)
class Price:
    """USD per million tokens. The cache's read and write prices default to the input
    price (a server that does not cache charges none)."""

    input_per_mtok: float
    output_per_mtok: float
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None

    @property
    def read_rate(self) -> float:
        return self.input_per_mtok if self.cache_read_per_mtok is None \
            else self.cache_read_per_mtok

    @property
    def write_rate(self) -> float:
        return self.input_per_mtok if self.cache_write_per_mtok is None \
            else self.cache_write_per_mtok

    def cost(self, usage: Usage) -> float:
        """Cost of one call; ``usage.input_tokens`` excludes the cache's tokens."""
        return (usage.input_tokens * self.input_per_mtok
                + usage.output_tokens * self.output_per_mtok
                + usage.cache_read_tokens * self.read_rate
                + usage.cache_write_tokens * self.write_rate) / 1_000_000


FREE = Price(0.0, 0.0, 0.0)

BUILTIN: dict[str, Price] = {
    "anthropic:claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25),
    "anthropic:claude-sonnet-4-6": Price(3.0, 15.0, 0.30, 3.75),
    "anthropic:claude-sonnet-4-5": Price(3.0, 15.0, 0.30, 3.75),
    "anthropic:claude-sonnet-4": Price(3.0, 15.0, 0.30, 3.75),
    "anthropic:claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25),
    "anthropic:claude-opus-4-1": Price(15.0, 75.0, 1.50, 18.75),
    "anthropic:claude-3-5-haiku": Price(0.80, 4.0, 0.08, 1.0),
    "openai:gpt-5": Price(1.25, 10.0, 0.125),
    "openai:gpt-5-mini": Price(0.25, 2.0, 0.025),
    "openai:gpt-5-nano": Price(0.05, 0.40, 0.005),
    "openai:gpt-5-codex": Price(1.25, 10.0, 0.125),
    "openai:gpt-4.1": Price(2.0, 8.0, 0.50),
    "openai:gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "openai:gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "openai:gpt-4o": Price(2.50, 10.0, 1.25),
    "openai:gpt-4o-mini": Price(0.15, 0.60, 0.075),
}

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-5-mini",
    "openai-responses": "gpt-5-mini",
    "claude-code": "claude-sonnet-4-6",
    "codex": "gpt-5-codex",
}
"""The model each backend uses when a spec names none (``claude-code``, ``codex``)."""

DEFAULT_ROLES: dict[str, str] = {
    "target": "anthropic:claude-haiku-4-5",
    "optimizer": "anthropic:claude-sonnet-4-6",
    "judge": "anthropic:claude-haiku-4-5",
}
"""Suggested specs per role, for docs and config templates; every one has a price."""

_PROVIDER = {"anthropic": "anthropic", "claude-code": "anthropic", "openai": "openai",
             "openai-responses": "openai", "codex": "openai"}
_FREE_BACKENDS = {"simulated", "handoff"}
_DATED = re.compile(r"^(?P<base>.+?)(-\d{8}|@\d{8}|-latest)$")


def parse_overrides(config: Mapping[str, Any] | None) -> dict[str, Price]:
    """Turn the config's ``[pricing."backend:model"]`` tables into prices; bad ones are errors."""
    prices: dict[str, Price] = {}
    for spec, table in (config or {}).items():
        if isinstance(table, Price):
            prices[spec] = table
            continue
        if not isinstance(table, Mapping):
            raise ConfigError(f"[pricing.{spec!r}] must be a table, got {table!r}")
        unknown = set(table) - {"input_per_mtok", "output_per_mtok", "cache_read_per_mtok",
                                "cache_write_per_mtok"}
        if unknown:
            raise ConfigError(f"[pricing.{spec!r}] has unknown keys: {sorted(unknown)}")
        try:
            read, write = table.get("cache_read_per_mtok"), table.get("cache_write_per_mtok")
            price = Price(float(table["input_per_mtok"]), float(table["output_per_mtok"]),
                          None if read is None else float(read),
                          None if write is None else float(write))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(
                f"[pricing.{spec!r}] needs numeric input_per_mtok and output_per_mtok: {exc}"
            ) from exc
        if min(price.input_per_mtok, price.output_per_mtok, price.read_rate,
               price.write_rate) < 0:
            raise ConfigError(f"[pricing.{spec!r}] prices cannot be negative")
        prices[spec] = price
    return prices


def price_for(spec: str, overrides: Mapping[str, Any] | None = None) -> Price:
    """The price of a model spec; ``ConfigError`` when neither table nor config has one."""
    table = parse_overrides(overrides)
    if spec in table:
        return table[spec]
    backend, _, model = spec.partition(":")
    if backend in _FREE_BACKENDS:
        return FREE
    model = model or DEFAULT_MODELS.get(backend, "")
    provider = _PROVIDER.get(backend)
    if provider is None or not model:
        raise ConfigError(f"no price for model spec {spec!r}")
    for key in _candidates(backend, provider, model):
        found = table.get(key) or BUILTIN.get(key)
        if found is not None:
            return found
    raise ConfigError(
        f"no price for {spec!r}: add it to config.toml as\n"
        f'  [pricing."{spec}"]\n  input_per_mtok = …\n  output_per_mtok = …\n'
        "(0 is allowed for a local server)"
    )


def _candidates(backend: str, provider: str, model: str) -> list[str]:
    names = [model]
    dated = _DATED.match(model)
    if dated:
        names.append(dated.group("base"))
    keys = [f"{backend}:{n}" for n in names]
    keys += [f"{provider}:{n}" for n in names]
    return list(dict.fromkeys(keys))
