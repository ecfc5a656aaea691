"""The night's models from the settings: every one metered against the dollar caps.

Also the pre-flight check, run before a night harvests anything: every configured role's
spec parses, has a price, and its backend is installed, logged in and (unless told not to
reach out) its endpoint answers a free request. No model call is made.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillopt_sleep.config import Settings
from skillopt_sleep.errors import NotReady
from skillopt_sleep.models.base import LLM, BackendOptions, Readiness
from skillopt_sleep.models.cache import Cache
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.models.pricing import FREE, Price, price_for
from skillopt_sleep.models.registry import backend, build_llm, parse_spec, resolve_base_urls

__all__ = ["RoleCheck", "base_urls", "build_models", "check_role", "check_roles", "metered",
           "preflight", "role_specs"]


def role_specs(settings: Settings) -> dict[str, str]:
    """The model spec of each role a night may use. The judge grades rubric tasks with the
    optimizer's model unless ``judge`` names another; the miner runs only when named."""
    specs = {"target": settings.target, "optimizer": settings.optimizer}
    if settings.judge:
        specs["judge"] = settings.judge
    if settings.miner:
        specs["miner"] = settings.miner
    return specs


def base_urls(settings: Settings) -> dict[str, str | None]:
    """Each role's base URL (``ConfigError`` for an ambiguous ``base_url``)."""
    specs = role_specs(settings)
    own = {role: getattr(settings, f"{role}_base_url") for role in specs}
    for role in ("judge", "miner"):
        # The optimizer's own model named again for another role is the same server.
        if specs.get(role) == settings.optimizer and not own.get(role):
            own[role] = settings.optimizer_base_url
    urls = resolve_base_urls(specs, own, settings.base_url)
    if "judge" not in urls:  # the judge is the optimizer's model, at its endpoint
        urls["judge"] = urls["optimizer"]
    return urls


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
        base_url=base_urls(settings).get(meter_as or role),
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


@dataclass(frozen=True)
class RoleCheck:
    """What the pre-flight found for one role's model."""

    role: str
    spec: str
    base_url: str | None
    price: Price | None
    """None for a backend that costs nothing."""
    readiness: Readiness

    def problems(self) -> list[str]:
        return [f"{self.role} model {self.spec}: {f.detail}" for f in self.readiness.errors]


def check_roles(settings: Settings, *, reach: bool) -> list[RoleCheck]:
    """Every configured role checked without a model call; ``reach`` also asks each endpoint
    for its model list. Raises ``ConfigError`` for an unknown spec, a missing price or an
    ambiguous base URL (nothing can be checked, or planned, past those)."""
    urls = base_urls(settings)
    return [check_role(settings, role, spec, urls[role], reach=reach)
            for role, spec in role_specs(settings).items()]


def check_role(settings: Settings, role: str, spec: str, url: str | None, *,
               reach: bool) -> RoleCheck:
    """One role's check; ``ConfigError`` for an unknown spec or a missing price."""
    name, model = parse_spec(spec)
    kind = backend(name)
    price = price_for(spec, settings.pricing) if kind.priced else None
    options = BackendOptions(spec=spec, model=model, base_url=url, price=price or FREE,
                             persona=settings.persona or None,
                             role="optimizer" if role == "miner" else role)
    kind.build(options)  # building calls nothing, and checks what the spec needs
    return RoleCheck(role, spec, url, price, kind.check(options, reach))


def preflight(settings: Settings, *, reach: bool = True) -> list[RoleCheck]:
    """``check_roles``, raising ``NotReady`` with one line per problem when any is in error."""
    checks = check_roles(settings, reach=reach)
    problems = [p for c in checks for p in c.problems()]
    if problems:
        raise NotReady("the night cannot start: " + "\n  ".join(problems))
    return checks
