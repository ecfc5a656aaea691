"""A skill's planned night in dollars: its calls (``pipeline.plan``) at their sizes
(``pipeline.plan_sizes``) and the backends' prices, with the target's prompt cache.

Besides the estimate, each row says what the skill's own size costs the night (its tokens in
every replay and every reflection prompt, at the rate the cache leaves) and what caching
saves against the same night sent without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from skillopt_sleep.models.meter import CHARS_PER_TOKEN, NightShape, estimate_night
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.pipeline.plan_sizes import Sizes
from skillopt_sleep.records import Usage

__all__ = ["NightCalls", "Prices", "priced", "shape"]


class NightCalls(Protocol):
    """What pricing reads of a night's calls (``pipeline.plan.NightCalls``, which imports
    this module: a protocol keeps the two apart)."""

    target: int
    optimizer: int
    judge: int
    routing: int
    versions: int


@dataclass(frozen=True)
class Prices:
    """Each role's price, and the fewest tokens the target's provider caches (0: none)."""

    target: Price
    optimizer: Price
    judge: Price
    cache_floor: int = 0


def shape(calls: NightCalls, size: Sizes, cfg: NightConfig, cache_floor: int,
          cached: bool = True) -> NightShape:
    """The night's calls at tonight's sizes; the skill's block cached when the target's
    provider caches a prefix that long (``cached``: False prices the night without it)."""
    replays = calls.target - calls.routing
    prefix = size.system if cached and 0 < cache_floor <= size.system else 0
    return NightShape(
        target_calls=replays, optimizer_calls=calls.optimizer,
        judge_calls=calls.judge, route_calls=calls.routing, prompt_tokens=size.prompt,
        answer_tokens=size.answer, cached_prompt_tokens=prefix,
        # Each batch of replays sends its first call alone (``night.replay``): a version's
        # block is written once and read by the rest while it stays in the cache.
        cache_writes=min(replays, calls.versions) if prefix else 0,
        # A minibatch shows each task with up to 600 characters of its answer.
        reflect_prompt_tokens=size.skill + 1000 + cfg.batch_size * (
            size.prompt - size.skill + min(size.answer, 600 // CHARS_PER_TOKEN)),
    )


def _skill_usd(night: NightShape, size: Sizes, prices: Prices) -> float:
    """The skill's tokens in every replay (as the cache prices them) and reflection."""
    replay = (Usage(input_tokens=size.skill * night.target_calls) if not
              night.cached_prompt_tokens else
              Usage(cache_write_tokens=size.skill * night.cache_writes,
                    cache_read_tokens=size.skill * (night.target_calls - night.cache_writes)))
    return prices.target.cost(replay) + prices.optimizer.cost(
        Usage(input_tokens=size.skill * night.optimizer_calls))


def priced(calls: NightCalls, most: NightCalls, size: Sizes, cfg: NightConfig,
           prices: Prices) -> dict[str, Any]:
    """The plan row's dollars and sizes for ``calls`` (typical) and ``most`` (its bound)."""
    def usd(night: NightShape) -> float:
        return estimate_night(night, target=prices.target, optimizer=prices.optimizer,
                              judge=prices.judge).total_usd

    typical = shape(calls, size, cfg, prices.cache_floor)
    plain = usd(shape(calls, size, cfg, prices.cache_floor, cached=False))
    estimate = usd(typical)
    return {
        "estimated_usd": round(estimate, 4),
        "estimated_usd_max": round(usd(shape(most, size, cfg, prices.cache_floor)), 4),
        "sizes": {"skill_tokens": size.skill, "prompt_tokens": size.prompt,
                  "answer_tokens": size.answer, "answer_source": size.answer_source,
                  "cached_prefix_tokens": typical.cached_prompt_tokens,
                  "cache_floor": prices.cache_floor},
        "skill_usd": round(_skill_usd(typical, size, prices), 4),
        "caching_saves_usd": round(plain - estimate, 4),
    }
