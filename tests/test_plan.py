"""The plan's call estimate follows the night's real call pattern (``pipeline.plan``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import Neighbour
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.night.trigger import RouteAnswers
from skillopt_sleep.pipeline.plan import Checks, night_calls
from skillopt_sleep.records import Completion, JudgeSpec, Message, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.skill_figures import trigger_setup


@pytest.mark.parametrize(("name", "config"), [
    ("researcher", NightConfig()),
    ("devops", NightConfig()),
    ("programmer", NightConfig(steps=1, val_repeats=1)),
])
def test_the_estimate_is_within_a_fifth_of_real_nights(name: str, config: NightConfig):
    # The plan is what a night costs on average; one night's course turns on which edits
    # win (researcher's seed 0 makes 309 target calls, seeds 1-3 182 to 215), so the
    # estimate is held to four first nights together.
    p = personas.load(name)
    real = {"target": 0, "optimizer": 0}
    planned = {"target": 0, "optimizer": 0}
    for seed in range(4):
        tasks = list(personas.tasks(p, seed))
        result = run_night(NightInputs(
            tasks=tasks, skill_text=p.initial_skill(), skill_name=p.skill,
            target=build(p, seed, "target"), optimizer=build(p, seed, "optimizer"),
            night_id="n", config=config))
        estimate = night_calls(config, tasks)
        planned["target"] += estimate.target
        planned["optimizer"] += estimate.optimizer
        for role in real:
            real[role] += result.calls_by_role[role]
    assert 0.8 * real["target"] <= planned["target"] <= 1.2 * real["target"]
    assert abs(planned["optimizer"] - real["optimizer"]) <= max(16, real["optimizer"] // 3)


def test_a_night_that_would_abstain_costs_nothing_and_says_why():
    tasks = [Task(f"t{i}", f"f{i}", "do it", JudgeSpec(kind="rules"), split=split)
             for i, split in enumerate(["train"] * 5 + ["validation"] * 2 + ["test"] * 3)]
    calls = night_calls(NightConfig(), tasks)
    assert (calls.target, calls.optimizer) == (0, 0) and "only 2 validation tasks" in calls.abstains


def test_rubric_tasks_add_one_judge_call_per_answer():
    def tasks(kind: str) -> list[Task]:
        return [Task(f"t{i}", f"f{i}", "do it", JudgeSpec(kind=kind, rubric="good"), split=s)
                for i, s in enumerate(["train"] * 6 + ["validation"] * 6 + ["test"] * 6)]

    rules, rubric = night_calls(NightConfig(), tasks("rules")), night_calls(NightConfig(),
                                                                           tasks("rubric"))
    assert rules.judge == 0 and rubric.judge == rubric.target == rules.target


class _Counting:
    """The simulated target, counting the routing calls (the trigger check's prompt)."""

    def __init__(self, inner: LLM):
        self.inner, self.name, self.routing = inner, inner.name, 0

    def complete(self, messages: Sequence[Message], **kw: Any) -> Completion:
        self.routing += "<installed_skills>" in messages[-1]["content"]
        return self.inner.complete(messages, **kw)


@pytest.mark.parametrize(("skill", "seed"), [("release-notes", 0), ("code-review", 1)])
def test_the_estimate_counts_the_trigger_and_cross_checks(skill: str, seed: int):
    """A several-skill night: the trigger check's routing calls at most (``at_most``: both
    rounds asking, every proposal compared) and the cross check's as a typical night's (one
    accepted edit a step) bound the real night from above, within 3.2× (routing within 5×:
    a night with nothing to propose asks for nothing and reads one sample of its validation
    tasks, ``Describer._wrong``; code-review, seed 1, is such a night), where the night's own
    calls alone fall far short of it. The typical routing estimate lies between a night that
    asks nothing (code-review) and one that accepts in both rounds (release-notes)."""
    p = personas.load("maintainer")
    tasks = personas.tasks(p, seed)
    texts = {s.name: p.initial_skill(s.name) for s in p.skills}
    setup = trigger_setup(p, skill, texts, tasks)
    assert setup is not None
    near = [Neighbour(o, texts[o], tuple(t for t in tasks if t.skill == o and t.split != "test"))
            for o in texts if o != skill]
    own = [t for t in tasks if t.skill == skill]
    target = _Counting(build(p, seed, "target"))
    night = run_night(NightInputs(
        tasks=own, skill_text=texts[skill], skill_name=skill, target=target,
        optimizer=build(p, seed, "optimizer"), night_id="n", config=NightConfig(),
        trigger=setup, neighbours=near))
    real = night.calls_by_role
    checks = Checks(foreign=setup.foreign_tasks, trigger=True, neighbours=len(near))
    estimate = night_calls(NightConfig(), own, checks)
    most = estimate.at_most()
    assert 0 < target.routing <= most.routing <= 5 * target.routing
    assert real["target"] <= most.target <= 3.2 * real["target"]
    asked = bool(night.trigger["decisions"])
    assert (target.routing > estimate.routing) == asked  # release-notes asks, twice
    assert night_calls(NightConfig(), own).target < 0.6 * real["target"]
    assert abs(estimate.optimizer - real["optimizer"]) <= max(4, real["optimizer"] // 3)
    assert estimate.cross_reads == 4


def test_the_typical_routing_estimate_tracks_the_nights_it_plans():
    """Over the maintainer persona's first runs (seeds 0–4: each skill's night in the run's
    order, with the run's routing replies shared), the plan's typical routing calls (the
    incumbent's picks counted for the run's first night only: the later ones ask the same)
    sum to within a quarter of what the nights routed, and no night routes more than the
    bound, which counts every night's picks as its own."""
    p = personas.load("maintainer")
    real = typical = 0
    for seed in range(5):
        tasks = personas.tasks(p, seed)
        texts = {s.name: p.initial_skill(s.name) for s in p.skills}
        answers, asked = RouteAnswers(), False
        for skill in sorted(texts):
            setup = trigger_setup(p, skill, texts, tasks, answers)
            assert setup is not None
            own = [t for t in tasks if t.skill == skill]
            target = _Counting(build(p, seed, "target"))
            night = run_night(NightInputs(
                tasks=own, skill_text=texts[skill], skill_name=skill, target=target,
                optimizer=build(p, seed, "optimizer"), night_id="n", config=NightConfig(),
                trigger=setup))
            texts[skill] = night.skill_after
            estimate = night_calls(NightConfig(), own, Checks(foreign=setup.foreign_tasks,
                                                               trigger=True))
            if night.abstained:
                continue
            assert target.routing <= estimate.routing_max
            estimate, asked = (estimate.sharing() if asked else estimate), True
            real, typical = real + target.routing, typical + estimate.routing
    assert 0.75 * real <= typical <= 1.25 * real


def test_the_night_end_check_counts_each_neighbour_once_however_many_edits_it_accepts():
    """The replays run once at the night's end (``night.settle``): per neighbour, the skill
    as the night leaves it against the skill without its entries. A night that accepts
    six edits replays as much as one that accepts one; one that accepts none replays only
    against the neighbours that changed, and only when the skill holds entries."""
    from skillopt_sleep.pipeline.plan_pace import Pace

    tasks = [Task(f"t{i}", f"f{i}", "do it", JudgeSpec(kind="rules"), split=s)
             for i, s in enumerate(["train"] * 8 + ["validation"] * 6 + ["test"] * 4)]
    cfg = NightConfig()

    def cross(pace: Pace, **kw: Any) -> int:
        return night_calls(cfg, tasks, Checks(neighbours=2, **kw), pace).cross

    one, six = cross(Pace(gated=4, accepts=1)), cross(Pace(gated=12, accepts=6))
    assert one == six > 0
    # Each neighbour: two sides of ``cross_tasks`` tasks, the screen's sample at least.
    assert one >= 2 * 2 * 12
    quiet = {r: cross(Pace(gated=4, accepts=0), entries=5, recheck=r) for r in (None, 0, 1)}
    assert quiet[0] == 0 and quiet[None] == one and abs(2 * quiet[1] - one) <= 1
    assert cross(Pace(gated=4, accepts=0), entries=0) == 0
