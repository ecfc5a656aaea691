"""The night's models from the settings: every one metered against the dollar caps.

Also the pre-flight estimate: what tonight can cost at most, before any call is made.
"""

from __future__ import annotations

from skillopt_sleep.config import Settings
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.cache import Cache
from skillopt_sleep.models.meter import Ledger, MeteredLLM, NightShape, estimate_night
from skillopt_sleep.models.registry import build_llm
from skillopt_sleep.records import Task

__all__ = ["build_models", "metered", "preflight"]


def build_models(settings: Settings, ledger: Ledger | None = None) -> tuple[LLM, LLM]:
    """Target and optimizer from the settings, metered against the dollar caps."""
    return metered(settings, "target", settings.target, ledger), metered(
        settings, "optimizer", settings.optimizer, ledger
    )


def metered(settings: Settings, role: str, spec: str, ledger: Ledger | None,
            meter_as: str | None = None) -> LLM:
    """The model ``spec`` for ``role``, its calls counted in ``ledger`` (as ``meter_as``)."""
    cache = Cache(mode=settings.cache) if settings.cache else None
    llm = build_llm(
        spec,
        base_url=settings.base_url,
        pricing=settings.pricing,
        persona=settings.persona or None,
        cache=cache,
        role=role,
    )
    return MeteredLLM(
        llm,
        meter_as or role,
        ledger or Ledger(),
        max_usd_per_night=settings.max_usd_per_night,
        max_usd_per_skill=settings.max_usd_per_skill,
    )


def preflight(
    settings: Settings, target: LLM, optimizer: LLM, by_skill: dict[str, list[Task]]
) -> float | None:
    """Worst-case dollars for tonight, or None when a model has no price (the simulator)."""
    target_price = getattr(target, "price", None)
    optimizer_price = getattr(optimizer, "price", None)
    if target_price is None or optimizer_price is None:
        return None
    total = 0.0
    for tasks in by_skill.values():
        shape = NightShape(
            train_tasks=sum(t.split == "train" for t in tasks),
            val_tasks=sum(t.split == "validation" for t in tasks),
            test_tasks=sum(t.split == "test" for t in tasks),
            val_repeats=settings.val_repeats,
            steps=settings.steps,
        )
        total += estimate_night(shape, target=target_price, optimizer=optimizer_price).total_usd
    return total
