"""The plan's call estimate follows the night's real call pattern (``pipeline.plan``)."""

from __future__ import annotations

import pytest

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.pipeline.plan import night_calls
from skillopt_sleep.records import JudgeSpec, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build


@pytest.mark.parametrize(("name", "config"), [
    ("researcher", NightConfig()),
    ("devops", NightConfig()),
    ("programmer", NightConfig(steps=1, val_repeats=1)),
])
def test_the_estimate_is_within_a_fifth_of_a_real_night(name: str, config: NightConfig):
    p = personas.load(name)
    tasks = list(personas.tasks(p, 0))
    result = run_night(NightInputs(
        tasks=tasks, skill_text=p.initial_skill(), skill_name=p.skill,
        target=build(p, 0, "target"), optimizer=build(p, 0, "optimizer"), night_id="n",
        config=config))
    estimate = night_calls(config, tasks)
    real = result.calls_by_role
    assert 0.8 * real["target"] <= estimate.target <= 1.2 * real["target"]
    assert abs(estimate.optimizer - real["optimizer"]) <= max(4, real["optimizer"] // 3)


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
