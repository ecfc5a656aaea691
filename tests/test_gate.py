from __future__ import annotations

import random

from skillopt_sleep.night import gate
from skillopt_sleep.night.budget import edit_budget
from skillopt_sleep.records import Rollout, Score


def rollouts(scores: list[float], h: str = "x", failed: set[int] = frozenset()) -> list[Rollout]:
    return [Rollout(task_id=f"t{i // 3}", sample=i % 3, skill_hash=h,
                    score=Score(hard=s, soft=s, failed=i in failed)) for i, s in enumerate(scores)]


def decide(inc: list[float], cand: list[float], **kw) -> gate.Verdict:
    args = {"metric": "mixed", "alpha": 0.05, "margin": 0.0} | kw
    return gate.decide(rollouts(inc), rollouts(cand), **args)


def test_known_better_edit_is_accepted():
    v = decide([0.0] * 24, [1.0] * 20 + [0.0] * 4)
    assert v.accepted and v.comparison.p_value < 0.05 and v.comparison.n_pairs == 24


def test_tie_is_rejected():
    v = decide([0.5] * 24, [0.5] * 24)
    assert not v.accepted and "tie" in v.reason


def test_worse_edit_is_rejected():
    assert not decide([1.0] * 24, [0.0] * 3 + [1.0] * 21).accepted


def test_neutral_edit_under_noise_is_rejected_at_about_alpha():
    rng = random.Random(7)
    accepted = 0
    for _ in range(400):
        inc = [float(rng.random() < 0.5) for _ in range(27)]
        cand = [float(rng.random() < 0.5) for _ in range(27)]
        accepted += decide(inc, cand).accepted
    assert accepted / 400 <= 0.06


def test_small_gain_without_significance_is_rejected():
    v = decide([0.0] * 24, [1.0, 1.0] + [0.0] * 22)
    assert not v.accepted and "not significant" in v.reason


def test_failed_judgements_are_excluded_not_zero():
    inc = rollouts([0.0] * 24)
    cand = rollouts([1.0] * 24, failed=set(range(12)))
    v = gate.decide(inc, cand, metric="mixed", alpha=0.05, margin=0.0)
    assert v.comparison.n_pairs == 12 and v.accepted


def test_no_regression_rejects_a_task_that_drops():
    inc = [0.0] * 21 + [1.0] * 3
    cand = [1.0] * 21 + [0.0] * 3
    assert decide(inc, cand).accepted
    v = decide(inc, cand, no_regression=True)
    assert not v.accepted and "regressed" in v.reason


def test_permutation_test_agrees_on_clear_cases():
    assert gate.permutation_test([1.0] * 10) < 0.01
    assert gate.permutation_test([0.0] * 10) == 1.0
    assert gate.permutation_test([1.0, -1.0] * 10) > 0.3


def test_budget_schedule_is_cosine_four_to_two():
    assert [edit_budget(t, 3) for t in range(3)] == [4, 4, 3]
    assert [edit_budget(t, 6) for t in range(6)] == [4, 4, 4, 3, 3, 3]
    assert [edit_budget(t, 3, schedule="constant") for t in range(3)] == [4, 4, 4]
    assert [edit_budget(t, 3, schedule="linear") for t in range(3)] == [4, 3, 2]
