"""What a night would do, before it does it: calls per role and dollars against the caps.

``night_calls`` is the one place the night's call pattern is written down for estimates; it
reads the ``NightConfig`` the night runs with and follows ``night/run.py`` step by step.
Change it with the night (``tests/test_plan.py`` holds it within a fifth of real nights).
Its assumptions, stated where a night's course is not known in advance: each step's
optimizer fills its edit budget, and every edit the candidate rules let through reaches the
gate, which draws its ``typical_share`` of the validation pairs (1 for the fixed tests; the
sequential one stops early), the incumbent's side as far as twice that (its pairs are
shared, and a winner's serve the next comparison, so an acceptance costs nothing extra).
With ``min_support`` above 1 that is taken to be half the budget, rounded up
(``night.candidates`` drops restatements, repeats and one-task anecdotes; on the personas'
nights 1–2 edits a step reach the gate); reflection scores one minibatch of
``train_batch`` train tasks per step, and the slow update replays today's skill on the
first step's (yesterday's answers are drawn already), with one optimizer call each; the
own look (``night.demands``) reads each accepted edit with one optimizer call, taken to be
one for every two of the steps and the slow update (the personas' nights accept fewer); the
test split's sample is scored before and after. A skill with a night behind it is planned
at that night's pace instead (``pipeline.plan_pace``: the edits that reached the gate and
the ones it accepted, which also set the cross check's and the own look's counts); the
pace-free count is the bound beside it (``target_calls_max``).
A night with fewer validation tasks than the gate needs abstains and makes no call.

The checks beside the night's own, the trigger and the cross check, are counted in the same
calls per role (``pipeline.plan_checks``).

Each call is priced at its size (``pipeline.plan_sizes``): the skill's tokens ride in every
replay, the answers are as long as the skill's last night's or the sessions' were, and
where the target's provider caches prompts the skill's block is priced as its cache reads
and writes it. Each row says what the skill's size costs the night and what caching saves.

The incumbent's answers the skill's last night left (``night.carry``) are not counted
where they serve its side: the test split's before half, its validation block and the
carried share of the first minibatch (``pipeline.plan_carry``).

``plan`` is what ``run --dry-run`` prints and what a real run logs as its pre-flight estimate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from skillopt_sleep.archive import route_replies
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.models import caching
from skillopt_sleep.models.base import default_concurrency
from skillopt_sleep.models.build import RoleCheck
from skillopt_sleep.models.pricing import FREE, Price
from skillopt_sleep.night.budget import edit_budget
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.gate import gate_test
from skillopt_sleep.night.measure import sampled
from skillopt_sleep.pipeline.companions import neighbours as find_neighbours
from skillopt_sleep.pipeline.companions import recheck
from skillopt_sleep.pipeline.plan_carry import Reused, reused
from skillopt_sleep.pipeline.plan_checks import NONE, Checks, cross_calls, routing_calls
from skillopt_sleep.pipeline.plan_pace import Pace, pace_of
from skillopt_sleep.pipeline.plan_price import Prices, priced
from skillopt_sleep.pipeline.plan_routing import Known, known
from skillopt_sleep.pipeline.plan_sizes import sizes
from skillopt_sleep.publish.adopt import read_live
from skillopt_sleep.records import NightResult, Split, Task
from skillopt_sleep.skilldoc import new_skill, parse

__all__ = ["Checks", "NightCalls", "night_calls", "night_config", "plan"]

ROLES = ("target", "optimizer", "judge")


def night_config(settings: Settings) -> NightConfig:
    """The ``NightConfig`` a night runs with under ``settings``."""
    s = settings
    return NightConfig(
        steps=s.steps, val_repeats=s.val_repeats, alpha=s.alpha, margin=s.margin,
        gate_test=s.gate_test, no_regression=s.no_regression, schedule=s.budget_schedule,
        test_tasks=s.test_tasks, concurrency=s.concurrency or default_concurrency(s.target),
    )


@dataclass
class NightCalls:
    """Model calls one night for one skill would make."""

    target: int = 0
    optimizer: int = 0
    judge: int = 0
    abstains: str = ""
    by_split: dict[str, int] = field(default_factory=dict)
    """Target calls per split."""
    routing: int = 0
    """Of ``target``: the trigger check's routing calls (short prompts, 32-token answers),
    as a typical night makes them."""
    routing_max: int = 0
    """The trigger check's routing calls at most (both rounds, every proposal compared)."""
    routing_shared: int = 0
    """Of ``routing``: the incumbent descriptions' picks (train, validation, the report's
    before), the same calls in every skill's night of a run while no description changes."""
    cross: int = 0
    """Of ``target``: the cross check's replays of the neighbours' tasks."""
    cross_reads: int = 0
    """Of ``optimizer``: the cross check's text-level looks."""
    routing_stored: int = 0
    """Routing calls earlier runs already answered (``pipeline.plan_routing``), not counted."""
    incumbent: dict[str, int] = field(default_factory=dict)
    """Of ``by_split``: the incumbent's side that answers carried from the skill's last night
    can serve (``pipeline.plan_carry``)."""
    carried: dict[str, int] = field(default_factory=dict)
    """Target calls per split that carried answers serve, not counted."""
    versions: int = 1
    """Versions of the skill the night replays: the incumbent and each gated candidate
    (a prompt cache writes each once)."""

    def less(self, found: Known) -> NightCalls:
        """These calls without what ``found`` answers already: all of the trigger check's
        (its ask for descriptions too) when it is settled, else the stored ones."""
        cut = self.routing if found.settled else min(found.stored, self.routing)
        most = self.routing_max if found.settled else min(found.stored, self.routing_max)
        asks = 1 if found.settled else 0
        return replace(self, target=self.target - cut, optimizer=self.optimizer - asks,
                       routing=self.routing - cut, routing_max=self.routing_max - most,
                       routing_stored=found.stored)

    def sharing(self) -> NightCalls:
        """These calls when an earlier night of the run asked the shared picks (what earlier
        runs answered, ``less``, is among them)."""
        cut = min(max(self.routing_shared - self.routing_stored, 0), self.routing)
        return replace(self, target=self.target - cut, routing=self.routing - cut)

    def at_most(self) -> NightCalls:
        """These calls with the trigger check's routing at its bound."""
        return replace(self, target=self.target - self.routing + self.routing_max,
                       routing=self.routing_max)

    def reusing(self, carried: Reused) -> NightCalls:
        """These calls without the incumbent's answers ``carried`` serves (within its side)."""
        cut = {s: min(n, self.incumbent.get(s, 0)) for s, n in carried.by_split().items()}
        return replace(self, target=self.target - sum(cut.values()), carried=cut,
                       by_split={s: n - cut.get(s, 0) for s, n in self.by_split.items()})


def _gated(cfg: NightConfig, slow: int) -> int:
    """Edits a night gates without a pace: half of each step's budget, and the slow update."""
    budgets = (edit_budget(t, cfg.steps, start=cfg.budget_start, end=cfg.budget_end,
                           schedule=cfg.schedule) for t in range(cfg.steps))
    return sum(b if cfg.min_support <= 1 else math.ceil(b / 2) for b in budgets) + slow


def night_calls(cfg: NightConfig, tasks: list[Task], checks: Checks = NONE,
                pace: Pace | None = None) -> NightCalls:
    """The calls ``night/run.py`` makes for ``tasks`` under ``cfg``, with the trigger and the
    cross checks of ``checks`` (see the module docstring), at the skill's last night's
    ``pace`` when given (``pipeline.plan_pace``)."""
    tasks = sampled(tasks, cfg.test_tasks)  # the report scores the test split's sample
    count = {s.value: sum(t.split == s.value for t in tasks) for s in Split}
    n_train, n_val, n_test = count["train"], count["validation"], count["test"]
    replays = gate_test(cfg.gate_test).replays
    if replays and n_val < cfg.min_val_tasks:
        return NightCalls(abstains=f"only {n_val} validation tasks (need {cfg.min_val_tasks})")
    reps = cfg.repeats_for(n_val)
    batch = min(cfg.train_batch or n_train, n_train) * cfg.train_samples
    val, test = n_val * reps, n_test * cfg.test_repeats
    # Validation pairs are drawn once per skill version and shared by every candidate, and a
    # winner's pairs serve as the next incumbent's, so an accept costs no re-scoring: each
    # gated edit costs its own side.
    share = getattr(gate_test(cfg.gate_test), "typical_share", 1.0)
    per_gate = round(val * share) if replays else 0
    slow = 1 if cfg.slow_update and n_train else 0
    # The incumbent's side: as far as the longest comparison of the night reaches.
    by_split = {"train": 0, "validation": round(val * min(1.0, 2 * share)), "test": test}
    incumbent = {"train": batch, "validation": by_split["validation"] + n_val, "test": test}
    # Each step: one seeded minibatch for reflection; the slow update: today's skill on the
    # first step's minibatch. Each gated edit costs its side of the pairs.
    by_split["train"] += (cfg.steps + slow) * batch
    optimizer = cfg.steps * math.ceil(batch / cfg.batch_size) + slow
    gated = pace.gated if pace else _gated(cfg, slow)
    accepts = pace.accepts if pace else cfg.steps + slow
    # The own look reads each accepted edit: taken to be one for every two of the steps and
    # the slow update without a pace (the personas' nights accept fewer).
    optimizer += (accepts if pace else math.ceil((cfg.steps + slow) / 2)) if replays else 0
    # The chosen skill's last look and report: a round of samples it did not win on, and the
    # test's after half; a skill left as it was has both already (a pace that accepted none).
    changes = pace is None or pace.accepts > 0
    by_split["validation"] += gated * per_gate + (n_val if changes else 0)
    by_split["test"] += test if changes else 0
    rubric = {s: sum(t.split == s and t.judge.kind == "rubric" for t in tasks) for s in count}
    judge = sum(calls * rubric[s] // max(count[s], 1) for s, calls in by_split.items())
    routing, routing_max, shared = routing_calls(cfg, count, checks)
    cross, reads = cross_calls(checks, accepts, cfg.val_repeats) if replays else (0, 0)
    return NightCalls(sum(by_split.values()) + routing + cross,
                      optimizer + reads + checks.trigger, judge,  # one round's ask
                      by_split=by_split, routing=routing, routing_max=routing_max,
                      routing_shared=shared,
                      cross=cross, cross_reads=reads,
                      incumbent=incumbent, versions=1 + gated)


def _price(check: RoleCheck | None) -> Price:
    return check.price if check and check.price else FREE  # unpriced backends cost nothing


def _prices(checks: list[RoleCheck]) -> Prices:
    role = {c.role: c for c in checks}
    optimizer = _price(role.get("optimizer"))
    judge = role["judge"].price if "judge" in role else optimizer
    spec = role["target"].spec if "target" in role else ""
    return Prices(_price(role.get("target")), optimizer, judge or FREE, caching.floor(spec))


def _checks(settings: Settings, skill: str, text: str, by_skill: dict[str, list[Task]],
            roots: list[Path], archive: Archive | None, project: str,
            last: NightResult | None) -> Checks:
    """What the night of ``skill`` would check beside its own tasks (its neighbours only when
    the archive is there to say which skills are loaded with it; ``last``: its last night)."""
    near = (find_neighbours(archive, settings, project, skill, by_skill, roots)
            if archive is not None else [])
    against = recheck(last, skill, text, near) if archive is not None else ()
    doc = parse(text)
    return Checks(
        foreign=[t for other, ts in by_skill.items() if other != skill for t in ts]
        if settings.trigger_check else (),
        trigger=settings.trigger_check, neighbours=len(near), cross_tasks=settings.cross_tasks,
        entries=len(doc.entries("learned")) + len(doc.entries("slow")) if near else 0,
        recheck=len(against))


def _row(name: str, tasks: list[Task], calls: NightCalls, most: NightCalls, beside: Checks,
         usd: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """One skill's row of the plan (``usd``: ``plan_price.priced``)."""
    return {
        "skill": name,
        "tasks": {s.value: sum(t.split == s.value for t in tasks) for s in Split},
        "test_scored": sum(t.split == Split.TEST.value
                           for t in sampled(tasks, settings.test_tasks)),
        "calls": {r: getattr(calls, r) for r in ROLES},
        "calls_by_split": calls.by_split,
        "target_calls_max": most.target,
        "check_calls": {"trigger_routing": calls.routing,
                        "trigger_routing_max": most.routing,
                        "trigger_routing_stored": calls.routing_stored,
                        "cross_replays": calls.cross,
                        "cross_reads": calls.cross_reads, "neighbours": beside.neighbours},
        "carried": calls.carried or {s.value: 0 for s in Split},
        **usd,
        "over_skill_cap": usd["estimated_usd"] > settings.max_usd_per_skill,
        "abstains": calls.abstains or None}


@dataclass
class _Run:
    """What every skill's plan of one run reads: the settings, the tasks, the archive."""

    settings: Settings
    by_skill: dict[str, list[Task]]
    roots: list[Path]
    archive: Archive | None
    project: str
    new_description: Mapping[str, str]
    asked: bool = False
    """An earlier night of the run asks the incumbent descriptions' picks."""

    def __post_init__(self) -> None:
        self.cfg = night_config(self.settings)
        self.replies = (route_replies.stored(self.archive, self.project)
                        if self.archive is not None and self.settings.trigger_check else {})

    def calls(self, name: str, text: str, beside: Checks, last: NightResult | None
              ) -> tuple[NightCalls, NightCalls]:
        """The night of ``name`` as typically made (at the pace of its ``last`` night), and at
        most (see the module)."""
        tasks, archive = self.by_skill[name], self.archive
        paced = pace_of(last)
        both = [night_calls(self.cfg, tasks, beside, paced), night_calls(self.cfg, tasks, beside)]
        if self.replies and not both[0].abstains:  # an abstaining night routes nothing
            found = known(self.settings, self.cfg, name, text, self.by_skill, self.roots,
                          self.new_description, self.replies)
            both = [c.less(found) for c in both]
        if archive is not None:
            carried = reused(archive, self.project, name, text, tasks, self.cfg)
            both = [c.reusing(carried) for c in both]
        typical, bound = both
        if not typical.abstains:  # an earlier night of the run asks the same picks
            typical = typical.sharing() if self.asked else typical
            self.asked = self.asked or typical.routing_shared > 0
        return typical, bound.at_most()


def plan(settings: Settings, checks: list[RoleCheck], by_skill: dict[str, list[Task]],
         roots: list[Path], archive: Archive | None = None, project: str = "",
         new_description: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The plan of tonight's nights, one row per skill, with the estimate against the caps;
    with the ``archive``, each skill's cross-check neighbours are counted too, and the
    routing calls earlier runs answered are not. ``new_description``: per skill, the
    description its document is created with when it is not installed (default: its name)."""
    run = _Run(settings, by_skill, roots, archive, project,
               new_description or {s: s for s in by_skill})
    cfg, prices = run.cfg, _prices(checks)
    skills: list[dict[str, Any]] = []
    total = {r: 0 for r in ROLES}
    for name, tasks in sorted(by_skill.items()):  # the order the run's nights go in
        text = read_live(roots, name)[0] or new_skill(name, run.new_description[name])
        last = archive.last_night(project, name) if archive is not None else None
        beside = _checks(settings, name, text, by_skill, roots, archive, project, last)
        calls, most = run.calls(name, text, beside, last)
        usd = priced(calls, most, sizes(text, tasks, archive, last), cfg, prices)
        skills.append(_row(name, tasks, calls, most, beside, usd, settings))
        for r in ROLES:
            total[r] += getattr(calls, r)
    estimate = round(sum(s["estimated_usd"] for s in skills), 4)
    return {
        "skills": skills,
        "calls": total,
        "estimated_usd": estimate,
        "estimated_usd_max": round(sum(s["estimated_usd_max"] for s in skills), 4),
        "caps": {"night": settings.max_usd_per_night, "skill": settings.max_usd_per_skill},
        "within_caps": estimate <= settings.max_usd_per_night and not any(
            s["over_skill_cap"] for s in skills),
        "models": {c.role: {"spec": c.spec, "base_url": c.base_url,
                            "price": asdict(c.price) if c.price else None,
                            "problems": [f.detail for f in c.readiness.errors]}
                   for c in checks},
        "config": {"steps": cfg.steps, "val_repeats": cfg.val_repeats,
                   "gate_test": cfg.gate_test, "min_val_pairs": cfg.min_val_pairs},
    }
