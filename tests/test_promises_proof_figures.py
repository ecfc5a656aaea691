"""The proof's held-out figures, field by field, from scores made by hand: before, after
(gated and gate-off), the lift as after − before (a missing side counting as 0), the number
of test tasks and the lift's interval. No proof is run: ``_test_figures`` is given the
scores a proof would have measured."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy.stats import t as student_t

from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.records import JudgeSpec, Rollout, Score, Split, Task
from skillopt_sleep.sim.prove import Arm, _test_figures
from skillopt_sleep.sim.prove import TestScore as Scored  # not a test class

# Three families of two test tasks; within a family both tasks gain the same amount, so
# the family deltas are 0.0, 0.5 and 1.0.
_BEFORE = {"t1": 0.2, "t2": 0.4, "t3": 0.2, "t4": 0.4, "t5": 0.0, "t6": 0.0}
_AFTER = {"t1": 0.2, "t2": 0.4, "t3": 0.7, "t4": 0.9, "t5": 1.0, "t6": 1.0}
_FAMILY = {"t1": "f1", "t2": "f1", "t3": "f2", "t4": "f2", "t5": "f3", "t6": "f3"}


def _tasks() -> list[Task]:
    return [Task(id=i, family_id=f, intent=f"ask {i}", judge=JudgeSpec(),
                 split=Split.TEST.value) for i, f in _FAMILY.items()]


def _scored(scores: dict[str, float], tasks: list[Task] | None = None) -> Scored:
    # A second, later sample of each task scoring 0 is not the one the interval reads.
    rollouts = [Rollout(task_id=i, sample=s, skill_hash="h", score=Score(hard=v if s == 0
                                                                         else 0.0))
                for i, v in scores.items() for s in (1, 0)]
    return Scored(_tasks() if tasks is None else tasks, rollouts, "hard")


def _arm(after: Scored | None) -> Arm:
    return Arm([], Ledger(), after_test=after)


def test_every_test_figure_is_what_was_measured() -> None:
    twin = _scored(dict.fromkeys(_FAMILY, 0.6))
    figures = _test_figures(_scored(_BEFORE), _arm(_scored(_AFTER)), _arm(twin))
    # Each mean is over both samples of each task (the later ones score 0): half the first.
    before, after = sum(_BEFORE.values()) / 12, sum(_AFTER.values()) / 12
    margin = float(student_t.ppf(0.975, 2)) * statistics.stdev([0.0, 0.5, 1.0]) / math.sqrt(3)
    assert figures == {
        "baseline_test": pytest.approx(before, abs=1e-4),
        "after_test": pytest.approx(after, abs=1e-4),
        "ungated_after_test": pytest.approx(0.3, abs=1e-4),
        "test_tasks": 6,
        "lift_margin": pytest.approx(margin, abs=1e-4),
        "lift": pytest.approx(after - before, abs=1e-4),
    }
    assert figures["lift_margin"] > 0.5  # three families that disagree: a wide interval


def test_a_missing_after_score_reports_no_after_and_the_whole_baseline_as_lost() -> None:
    figures = _test_figures(_scored(_BEFORE), _arm(None), _arm(None))
    before = sum(_BEFORE.values()) / 12
    assert figures["after_test"] is None and figures["ungated_after_test"] is None
    assert figures["lift_margin"] is None
    assert figures["lift"] == pytest.approx(-before, abs=1e-4)
    assert figures["baseline_test"] == pytest.approx(before, abs=1e-4)


def test_a_baseline_with_no_test_task_counts_as_zero_in_the_lift() -> None:
    empty = Scored([], [], "hard")
    figures = _test_figures(empty, _arm(_scored(_AFTER)), _arm(None))
    after = sum(_AFTER.values()) / 12
    assert figures["baseline_test"] is None and figures["test_tasks"] == 0
    assert figures["lift"] == pytest.approx(after, abs=1e-4)
    assert figures["lift_margin"] is None  # no family scored on both sides
    assert figures["ungated_after_test"] is None


def test_the_gate_off_twin_is_reported_apart_from_the_gated_arm() -> None:
    low, high = _scored(dict.fromkeys(_FAMILY, 0.2)), _scored(dict.fromkeys(_FAMILY, 0.8))
    figures = _test_figures(_scored(_BEFORE), _arm(high), _arm(low))
    assert figures["after_test"] == pytest.approx(0.4, abs=1e-4)
    assert figures["ungated_after_test"] == pytest.approx(0.1, abs=1e-4)
