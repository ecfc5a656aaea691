"""The plan counts no replay the skill's last night already answered (``pipeline.plan_carry``):
the incumbent's carried answers serve the test split's before side, its validation block and
a share of the first minibatch, and only for the same document and the same tasks."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.archive.carried import Carried, keep
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.night.carry import task_key
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.pipeline.plan import plan
from skillopt_sleep.pipeline.plan_carry import reused
from skillopt_sleep.records import JudgeSpec, Rollout, Score, Task
from skillopt_sleep.skilldoc import new_skill, parse
from tests.test_pipeline import cli, world  # noqa: F401  (the fixture)

SKILL = "notes"
TEXT = new_skill(SKILL, "Writes notes.")


def _tasks() -> list[Task]:
    splits = ["train"] * 8 + ["validation"] * 6 + ["test"] * 5
    return [Task(f"t{i}", f"f{i % 4}", f"write note {i}", JudgeSpec(kind="rules"), split=s,
                 skill=SKILL) for i, s in enumerate(splits)]


def _carry(archive: Archive, tasks: list[Task], text: str, first: int, samples: range) -> None:
    """The last night's final skill ``text``, answered on every task at ``samples``."""
    h = parse(text).hash
    rollouts = [(task_key(t), Rollout(t.id, s, h, response="ok", score=Score(hard=1.0, soft=1.0)))
                for t in tasks for s in samples]
    keep(archive, "p", SKILL, "n1", Carried(first, rollouts))


def test_carried_answers_serve_the_incumbents_side_only(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        tasks, cfg = _tasks(), NightConfig()
        reps = cfg.repeats_for(6)  # 6 validation tasks: 36 pairs need 6 samples each
        _carry(archive, tasks, TEXT, first=3, samples=range(0, 12))
        got = reused(archive, "p", SKILL, TEXT, tasks, cfg)
        # Test: one sample a task. Validation: samples 3..8 of each task, and the figure's
        # round. Train: the first minibatch of 8 is all carried.
        assert (got.test, got.validation, got.train) == (5, 6 * reps + 6, 8)
        # A task whose content changed is replayed; so is every task of another document.
        changed = [*tasks[:-1], Task("t18", "f2", "a new ask", JudgeSpec(kind="rules"),
                                     split="test", skill=SKILL)]
        assert reused(archive, "p", SKILL, TEXT, changed, cfg).test == 4
        edited = new_skill(SKILL, "Writes notes by hand.")
        assert reused(archive, "p", SKILL, edited, tasks, cfg).total == 0

        settings = Settings(target="simulated", optimizer="simulated", trigger_check=False)
        fresh = plan(settings, [], {SKILL: tasks}, [])["skills"][0]
        roots = [tmp_path / "skills"]
        (roots[0] / SKILL).mkdir(parents=True)
        (roots[0] / SKILL / "SKILL.md").write_text(TEXT, encoding="utf-8")
        row = plan(settings, [], {SKILL: tasks}, roots, archive, "p")["skills"][0]
        served = row["carried"]
        # Never more than the incumbent's side: the test's before half, never the after.
        assert served["test"] == 5 and row["calls_by_split"]["test"] == 5
        assert 0 < served["validation"] < fresh["calls_by_split"]["validation"]
        assert row["calls"]["target"] == fresh["calls"]["target"] - sum(served.values())
        assert row["estimated_usd"] <= fresh["estimated_usd"]
    finally:
        archive.close()


def test_a_dry_run_after_a_night_counts_the_answers_it_carries(world: dict) -> None:  # noqa: F811
    cli(world, "run", "--json")
    cli(world, "adopt", "--all", check=False)  # nothing pending when the night changed nothing
    dry = json.loads(cli(world, "run", "--dry-run", "--force", "--json").stdout)
    (row,) = dry["plan"]["skills"]
    # The report scores a sample of the test split (``night.measure``): all of it is carried.
    assert row["carried"]["test"] == row["test_scored"] > 0
    assert row["test_scored"] < row["tasks"]["test"]
    assert row["calls_by_split"]["test"] == row["test_scored"]  # the after side stays
    assert "served by the last night's answers" in cli(world, "run", "--dry-run",
                                                       "--force").stdout
