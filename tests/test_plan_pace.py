"""A skill with a night behind it is planned at that night's pace: the edits that reached
the gate and those the gate accepted; the pace-free count stays beside it as the bound."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.pipeline.plan import Checks, night_calls
from skillopt_sleep.pipeline.plan_pace import Pace, pace_of
from skillopt_sleep.records import Edit, GateDecision, JudgeSpec, NightResult, StepResult, Task


def _decision(stage: str, accepted: bool) -> GateDecision:
    return GateDecision(edit=Edit(op="append", text="x"), accepted=accepted, reason="r",
                        stage=stage)  # type: ignore[arg-type]


def _night(night_id: str, decisions: list[GateDecision], **kw: str) -> NightResult:
    return NightResult(night_id=night_id, skill="fix", project="p",
                       started_at=datetime(2026, 11, int(night_id[-1]), tzinfo=UTC),
                       steps=[StepResult(step=1, budget=4, proposed=len(decisions),
                                         decisions=decisions)], **kw)


def _tasks() -> list[Task]:
    judge = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "x"}])
    splits = ["train"] * 8 + ["validation"] * 6 + ["test"] * 12
    return [Task(id=f"t{i}", family_id=f"f{i}", intent=f"i{i}", judge=judge, split=s)
            for i, s in enumerate(splits)]


def test_the_pace_counts_what_reached_the_gate_and_what_it_accepted(tmp_path: Path):
    archive = Archive(tmp_path / "a.sqlite3")
    try:
        assert pace_of(archive.last_night("p", "fix")) is None  # a first night: no pace
        decisions = [_decision("gate", True), _decision("gate", False),
                     _decision("contradict", False), _decision("cross", False),
                     _decision("merge", False), _decision("firewall", False)]
        archive.record_night(_night("n1", decisions), "ok")
        assert pace_of(archive.last_night("p", "fix")) == Pace(gated=4, accepts=3)
        # The newest night counts; a failed or abstaining one says nothing of the pace.
        archive.record_night(_night("n2", [_decision("gate", False)]), "ok")
        assert pace_of(archive.last_night("p", "fix")) == Pace(gated=1, accepts=0)
        archive.record_night(_night("n3", [], abstained="too few tasks"), "ok")
        assert pace_of(archive.last_night("p", "fix")) is None
    finally:
        archive.close()


def test_a_quiet_last_night_plans_fewer_calls_and_the_bound_stays():
    cfg, tasks = NightConfig(), _tasks()
    beside = Checks(neighbours=2, cross_tasks=6)
    bound = night_calls(cfg, tasks, beside)
    quiet = night_calls(cfg, tasks, beside, Pace(gated=1, accepts=0))
    busy = night_calls(cfg, tasks, beside, Pace(gated=20, accepts=6))
    assert quiet.target < bound.target < busy.target
    # The replays run once per neighbour at the night's end, however many edits got in;
    # a night that accepts nothing (and holds no entry) replays none.
    assert quiet.cross == 0 < bound.cross == busy.cross
    assert quiet.cross_reads < bound.cross_reads < busy.cross_reads  # a read per accept
    assert quiet.optimizer < bound.optimizer
    # The minibatches do not depend on the pace; the test's after half is paid only by a
    # night that changes its skill (a pace that accepted none leaves it as it was).
    for calls in (quiet, busy):
        assert calls.by_split["train"] == bound.by_split["train"]
    assert busy.by_split["test"] == bound.by_split["test"] == 2 * quiet.by_split["test"]


def test_the_plan_reads_the_skills_last_night_from_the_archive(tmp_path: Path):
    from skillopt_sleep.config import Settings
    from skillopt_sleep.pipeline.plan import plan

    by_skill = {"fix": [replace(t, skill="fix") for t in _tasks()]}
    settings = Settings(target="simulated", optimizer="simulated")
    archive = Archive(tmp_path / "a.sqlite3")
    try:
        (fresh,) = plan(settings, [], by_skill, [], archive, "p")["skills"]
        archive.record_night(_night("n1", [_decision("gate", False)]), "ok")
        (paced,) = plan(settings, [], by_skill, [], archive, "p")["skills"]
    finally:
        archive.close()
    assert paced["calls"]["target"] < fresh["calls"]["target"]
    assert paced["calls_by_split"]["validation"] < fresh["calls_by_split"]["validation"]
    assert paced["target_calls_max"] == fresh["target_calls_max"]  # the bound keeps no pace
