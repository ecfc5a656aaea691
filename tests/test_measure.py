"""The report's test figure is of a stable sample of whole families, with its interval: the
night, the plan and the proof score the same tasks, and scoring fewer is the only change."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from scipy.stats import t as student_t

from skillopt_sleep import config
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.measure import _rank, lift_margin, measured, sampled
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.pipeline.plan import night_calls
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.digest import night_digest
from skillopt_sleep.publish.report.html import render
from skillopt_sleep.publish.report.text import figures, summary
from skillopt_sleep.records import JudgeSpec, Message, NightResult, Task
from skillopt_sleep.sim.prove import ProofSpec, prove
from tests.test_night import GOOD, optimizer_reply, target_reply

JUDGE = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "pytest -q"},
                                        {"op": "min_chars", "n": 60}])


def _tasks(families: int, per: int = 3, split: str = "test", start: int = 0) -> list[Task]:
    return [Task(id=f"{split[:2]}{f}-{i}", family_id=f"{split[:2]}f{f}",
                 intent=f"{split} fix {f} {i}", judge=JUDGE, split=split)
            for f in range(start, start + families) for i in range(per)]


def test_a_cap_of_zero_or_above_the_split_scores_every_task_in_order():
    tasks = _tasks(10)
    assert measured(tasks, 0) == tasks
    assert measured(tasks, 30) == tasks
    assert measured(tasks, 1_000) == tasks


def test_the_sample_is_whole_families_reaching_the_cap_in_the_given_order():
    tasks = _tasks(20)
    kept = measured(tasks, 10)
    families = {t.family_id for t in kept}
    assert len(kept) == 12 and len(families) == 4  # whole families: 3 + 3 + 3 + 3 ≥ 10
    assert all(sum(t.family_id == f for t in kept) == 3 for f in families)
    assert kept == [t for t in tasks if t.family_id in families]
    assert measured(list(reversed(tasks)), 10) == list(reversed(kept))  # by id, not position


def test_a_new_family_pushes_out_only_families_at_the_samples_end():
    tasks = _tasks(20) + _tasks(10, per=1, start=20) + _tasks(5, per=5, start=30)
    order = sorted({t.family_id for t in tasks}, key=_rank)
    before = {t.family_id for t in measured(tasks, 24)}
    for extra in range(40, 60):
        after = {t.family_id for t in measured(tasks + _tasks(1, per=2, start=extra), 24)}
        assert after - before <= {f"tef{extra}"}
        gone = before - after
        # What leaves is a run of the sample's last families, in hash order.
        kept_order = [f for f in order if f in before]
        assert not gone or set(kept_order[-len(gone):]) == gone


def test_sampled_cuts_only_the_test_split():
    tasks = _tasks(5, split="train") + _tasks(4, split="validation") + _tasks(20)
    kept = sampled(tasks, 9)
    assert [t for t in kept if t.split != "test"] == [t for t in tasks if t.split != "test"]
    assert [t for t in kept if t.split == "test"] == measured(tasks[27:], 9)


def test_the_margin_is_the_t_interval_over_family_means():
    tasks = _tasks(3, per=2)
    deltas = {"te0-0": 0.5, "te0-1": 0.3, "te1-0": 0.0, "te1-1": 0.2, "te2-0": 1.0, "te2-1": 0.6}
    rows = [{"task_id": k, "before_score": 0.0, "after_score": v} for k, v in deltas.items()]
    rows.append({"task_id": "va9-0", "before_score": 0.0, "after_score": 1.0})  # not of tasks
    means = [0.4, 0.1, 0.8]
    mu = sum(means) / 3
    sd = math.sqrt(sum((m - mu) ** 2 for m in means) / 2)
    expected = student_t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert lift_margin(tasks, rows) == pytest.approx(expected)
    assert lift_margin(tasks[:2], rows) is None  # one family: no interval


def test_a_negative_cap_is_an_error_in_the_config_and_the_settings(tmp_path: Path):
    with pytest.raises(ConfigError, match="test_tasks"):
        NightConfig(test_tasks=-1)
    with pytest.raises(ConfigError, match="test_tasks"):
        config.load(tmp_path, env={"SKILLOPT_SLEEP_TEST_TASKS": "-1"})
    assert config.load(tmp_path, env={"SKILLOPT_SLEEP_TEST_TASKS": "0"}).test_tasks == 0
    assert config.load(tmp_path, env={}).test_tasks == 48


def _night(cap: int, asked: list[str]):
    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append(messages[-1]["content"])
        return target_reply(messages, seed)

    tasks = _tasks(4, split="train") + _tasks(4, split="validation") + _tasks(10)
    return run_night(NightInputs(
        tasks=tasks, skill_text="---\nname: fix\ndescription: d\n---\nFix bugs.\n",
        skill_name="fix", target=ScriptedLLM(target),
        optimizer=optimizer_reply([{"op": "append", "text": GOOD, "tasks": ["tr0-0", "tr1-0"]}]),
        night_id="n1", config=NightConfig(steps=1, slow_update=False, test_tasks=cap)))


def test_a_night_scores_only_the_sample_and_reports_its_size_and_interval():
    whole_asked: list[str] = []
    whole = _night(0, whole_asked)
    sample_asked: list[str] = []
    sample = _night(12, sample_asked)
    assert whole.accepted and sample.accepted  # the gate never sees the test split
    assert whole.skill_after == sample.skill_after
    assert (whole.test_scored, whole.test_split) == (30, 30)
    assert (sample.test_scored, sample.test_split) == (12, 30)
    scored = {t.intent for t in measured(_tasks(10), 12)}
    asked = [p for p in sample_asked if "test fix" in p]
    assert len(asked) == 24 and all(any(i in p for i in scored) for p in asked)
    assert len(whole_asked) - len(sample_asked) == 2 * (30 - 12)  # before and after
    rows = [r for r in sample.task_evidence if r["split"] == "test"]
    assert len(rows) == 12
    assert sample.test_margin is not None and sample.test_margin >= 0
    assert sample.after_test == pytest.approx(1.0) and sample.baseline_test is not None


def test_the_plan_counts_the_sample_as_the_night_scores_it():
    tasks = _tasks(4, split="train") + _tasks(4, split="validation") + _tasks(10)
    whole = night_calls(NightConfig(steps=1, test_tasks=0), tasks)
    sample = night_calls(NightConfig(steps=1, test_tasks=12), tasks)
    assert whole.by_split["test"] == 60 and sample.by_split["test"] == 24
    assert whole.target - sample.target == 36


def test_the_proof_scores_the_sample_and_reports_the_interval():
    cfg = NightConfig(test_tasks=12)
    summary = prove(ProofSpec(persona="researcher", seed=0, nights=1, gate=True, config=cfg))
    assert summary["test_tasks"] == 12
    assert summary["lift_margin"] is not None and summary["lift_margin"] > 0
    # baseline, gated and gate-off twin: each scores the sample once (test_repeats 1)
    assert summary["test_calls"] == 2 * 12


def test_the_report_shows_the_interval_and_the_sample_it_is_of():
    r = NightResult(night_id="n", skill="fix", baseline_val=0.2, after_val=0.5,
                    baseline_test=0.25, after_test=0.66, test_scored=48, test_split=99,
                    test_margin=0.0812)
    line = summary([r])
    assert "test 0.250 → 0.660 (+0.410 ± 0.081, 48 of 99 tasks)" in line
    f = figures(r)
    assert (f["test_margin"], f["test_tasks"], f["test_split"]) == (0.0812, 48, 99)
    page = render([r])
    assert "± 0.081, 48 of 99 tasks" in page and "48 of 99 test tasks · reported" in page
    whole = replace(r, test_scored=99)
    assert "(+0.410 ± 0.081)" in summary([whole])  # the whole split: no "of"


def test_the_routing_plan_looks_for_stored_replies_of_the_reports_sample_only():
    from skillopt_sleep.pipeline.plan_routing import _jobs

    own, foreign = _tasks(10), _tasks(10, start=10)
    cfg = NightConfig(test_tasks=6)
    tests = [t for t, _, _, _ in _jobs(cfg, own, foreign) if t.split == "test"]
    assert tests == measured(own, 6) + measured(foreign, 6)


def test_several_skills_tasks_are_sampled_skill_by_skill():
    a = [replace(t, skill="a") for t in _tasks(10)]
    b = [replace(t, skill="b") for t in _tasks(10, start=10)]
    both = sampled(a + b, 6)
    assert both == measured(a, 6) + measured(b, 6)  # each skill's own sample, as its night


def test_report_json_gives_the_sample_and_the_interval(isolated_home: Path):
    r = NightResult(night_id="20261125-031700-0badcafe", skill="fix", project="/p",
                    skill_before="a\n", skill_after="a\n", baseline_val=0.2, after_val=0.5,
                    baseline_test=0.25, after_test=0.66, test_scored=48, test_split=99,
                    test_margin=0.0812)
    folder = staging.stage(isolated_home / "nights", r.night_id, "/p", [r], {"fix": {}},
                           "<html></html>")
    (row,) = night_digest(folder)["skills"]
    assert (row["test_tasks"], row["test_split"], row["test_margin"]) == (48, 99, 0.0812)


def test_unrouted_tasks_are_named_for_the_managed_skill_they_train():
    from skillopt_sleep.pipeline.managed import MANAGED_SKILL, group_by_skill

    routed = replace(_tasks(1, start=40)[0], skill=MANAGED_SKILL)
    loose = _tasks(20)  # no skill: the managed one trains on them
    mine = replace(_tasks(1, start=30)[0], skill="mine")
    groups = group_by_skill([routed, *loose, mine])
    assert set(groups) == {MANAGED_SKILL, "mine"}
    assert {t.skill for t in groups[MANAGED_SKILL]} == {MANAGED_SKILL}
    # So the plan samples the managed skill's test split as one, as its night does.
    managed = groups[MANAGED_SKILL]
    assert sampled(managed, 9) == measured(managed, 9)
