"""The night's task budget: bounded, balanced across families, corrected and recent first,
every split represented; a night's calls stay flat as the history grows."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from skillopt_sleep import config
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.night.task_budget import MIN_PER_SPLIT, TaskBudget, apply, choose, share_night
from skillopt_sleep.pipeline.plan import night_calls
from skillopt_sleep.records import JudgeSpec, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from tests.test_pipeline import cli, world  # noqa: F401  (world is a fixture)


def _tasks(families: int, per_family: int, split: str, prefix: str = "f") -> list[Task]:
    return [Task(f"{prefix}{f}:{n}", f"{prefix}{f}", f"do {f}", JudgeSpec(kind="rules"),
                 split=split) for f in range(families) for n in range(per_family)]


def test_everything_fits_so_everything_is_kept_in_order():
    tasks = _tasks(5, 2, "train") + _tasks(3, 1, "validation", "v")
    assert choose("s", tasks, 20).chosen == tasks


def test_a_long_history_is_cut_to_the_budget_with_every_split_represented():
    tasks = (_tasks(300, 3, "train") + _tasks(4, 50, "validation", "v")
             + _tasks(900, 2, "test", "t"))
    chosen = choose("s", tasks, 120).chosen
    assert len(chosen) == 120
    by_split = Counter(t.split for t in chosen)
    assert set(by_split) == {"train", "validation", "test"}
    assert by_split["validation"] >= MIN_PER_SPLIT
    # The shares follow the history's proportions (train : test about 900 : 1800).
    assert by_split["test"] > by_split["train"] > by_split["validation"]


def test_families_take_turns_so_one_loud_family_cannot_crowd_out_the_rest():
    loud = _tasks(1, 400, "train", "loud")
    quiet = _tasks(30, 2, "train", "q")
    chosen = choose("s", loud + quiet, 40).chosen
    per_family = Counter(t.family_id for t in chosen)
    assert len(per_family) == 31
    assert max(per_family.values()) - min(per_family.values()) <= 1


def test_corrected_then_recent_families_come_first():
    tasks = _tasks(50, 1, "train")
    tasks[7].meta["corrections"] = ["no, use pytest -q"]
    tasks[9].meta["outcomes"] = {"failure": 2, "success": 0, "unknown": 0}
    recency = {f"f{i}": i for i in range(50)}  # f49 was asked last
    chosen = {t.family_id for t in choose("s", tasks, 20, recency).chosen}
    assert {"f7", "f9"} <= chosen  # corrected, though old
    assert {f"f{i}" for i in range(32, 50)} <= chosen  # then the newest 18
    assert not chosen & {f"f{i}" for i in range(10, 32)}


def test_real_wordings_come_before_synthetic_paraphrases():
    tasks = _tasks(10, 3, "train")
    for t in tasks:
        t.synthetic = t.id.endswith(":0")
    chosen = choose("s", tasks, 20).chosen
    assert not any(t.synthetic for t in chosen)


def test_the_night_budget_is_shared_and_small_skills_leave_room():
    limits = share_night({"a": 10, "b": 500, "c": 500}, TaskBudget(per_skill=200, per_night=300))
    assert limits == {"a": 10, "b": 145, "c": 145}
    assert sum(limits.values()) <= 300
    chosen, rows = apply({"a": _tasks(10, 1, "train"), "b": _tasks(200, 3, "train", "b")},
                         TaskBudget(per_skill=50, per_night=300))
    assert [len(chosen["a"]), len(chosen["b"])] == [10, 50]
    assert rows[1] == {"skill": "b", "available": 600, "chosen": 50, "families": 50,
                       "by_split": {"train": 50, "validation": 0, "test": 0}}


def test_a_small_share_shrinks_the_split_floors_instead_of_overrunning():
    tasks = _tasks(20, 1, "train") + _tasks(20, 1, "validation", "v") + _tasks(20, 1, "test", "t")
    assert len(choose("s", tasks, 9).chosen) == 9


@pytest.mark.parametrize(("key", "value"), [("max_tasks_per_skill", 5),
                                            ("max_tasks_per_night", 0),
                                            ("max_tasks_per_night", 10**7)])
def test_budget_keys_outside_their_range_are_errors_that_name_the_key(key: str, value: int):
    with pytest.raises(ConfigError, match=key):
        config.load(flags={key: value})


def test_budget_keys_come_from_config_and_env(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLOPT_SLEEP_MAX_TASKS_PER_SKILL", "60")
    settings = config.load(tmp_path)
    assert (settings.max_tasks_per_skill, settings.max_tasks_per_night) == (60, 300)


def _history(p: personas.Persona, copies: int) -> list[Task]:
    """The persona's tasks, each family repeated ``copies`` times as distinct families."""
    base = list(personas.tasks(p, 0))
    return [replace(t, id=f"c{c}-{t.id}", family_id=f"c{c}-{t.family_id}")
            for c in range(copies) for t in base]


def test_a_nights_calls_stay_flat_from_150_to_1500_tasks_at_the_default_budget():
    p = personas.load("researcher")
    unit = len(personas.tasks(p, 0))
    budget = TaskBudget(config.Settings().max_tasks_per_skill,
                        config.Settings().max_tasks_per_night)
    cfg = NightConfig()
    calls, bound = {}, {}
    for size in (150, 1500):
        history = _history(p, -(-size // unit))[:size]
        chosen, _ = apply({p.skill: history}, budget)
        result = run_night(NightInputs(
            tasks=chosen[p.skill], skill_text=p.initial_skill(), skill_name=p.skill,
            target=build(p, 0, "target"), optimizer=build(p, 0, "optimizer"), night_id="n",
            config=cfg))
        calls[size] = result.model_calls
        estimate = night_calls(cfg, chosen[p.skill])
        bound[size] = estimate.target + estimate.optimizer
        # Without the budget the same night would grow with the history.
        assert night_calls(cfg, history).target > 5 * estimate.target or size == 150
    # The same number of tasks, so the same estimate, and each night near it (the estimate
    # takes a typical gate; what the gate does with the tasks varies from night to night,
    # so the two nights' own calls are not compared with each other).
    assert bound[1500] <= 1.1 * bound[150]
    assert all(calls[size] <= 1.5 * bound[size] for size in calls), (calls, bound)


def test_run_replays_the_budget_and_says_what_it_left_out(world: dict) -> None:  # noqa: F811
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text() + "max_tasks_per_skill = 20\n")
    plan = json.loads(cli(world, "run", "--dry-run", "--json").stdout)
    (row,) = plan["counts"]["task_budget"]
    assert row["chosen"] == 20 < row["available"] == plan["counts"]["mining"]["tasks"]
    (skill,) = plan["plan"]["skills"]
    assert sum(skill["tasks"].values()) == 20 and min(skill["tasks"].values()) >= MIN_PER_SPLIT
    text = cli(world, "run", "--dry-run").stdout
    assert f"replaying skillopt-sleep-learned 20 of {row['available']} tasks" in text
