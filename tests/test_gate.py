from __future__ import annotations

import random
from dataclasses import replace

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


def sequential_decide(inc: list[float], cand: list[float], alpha: float = 0.05) -> gate.Verdict:
    """The gate's look-by-look loop over fixed lists of pairs (as the night runs it)."""
    test = gate.SEQUENTIAL
    points = gate.looks(test, len(cand))
    for i, n in enumerate(points):
        v = gate.decide(rollouts(inc[:n]), rollouts(cand[:n]), metric="mixed",
                        alpha=gate.level(test, i, len(points), alpha), margin=0.0, test=test,
                        final=i == len(points) - 1)
        if v.decided:
            return v
    raise AssertionError("the last look must decide")


def test_sequential_levels_add_up_to_alpha():
    points = gate.looks(gate.SEQUENTIAL, 45)
    assert points == [6, 12, 18, 24, 30, 36, 42, 45]
    total = sum(gate.level(gate.SEQUENTIAL, i, len(points), 0.05) for i in range(len(points)))
    assert abs(total - 0.05) < 1e-12
    assert gate.looks(gate.SIGN, 45) == [45] and gate.level(gate.SIGN, 0, 1, 0.05) == 0.05


def test_sequential_false_accept_rate_under_null_deltas_is_at_most_alpha():
    rng = random.Random(11)
    accepted = runs = 0
    for _ in range(2000):
        inc = [float(rng.random() < 0.5) for _ in range(45)]
        cand = [float(rng.random() < 0.5) for _ in range(45)]
        accepted += sequential_decide(inc, cand).accepted
        runs += 1
    assert accepted / runs <= 0.05


def test_sequential_stops_early_on_a_clear_loser_and_a_clear_winner():
    loser = sequential_decide([1.0] * 45, [0.0] * 45)
    assert not loser.accepted and loser.comparison.n_pairs == 6 and "harmful" in loser.reason
    winner = sequential_decide([0.0] * 45, [1.0] * 45)
    assert winner.accepted and winner.comparison.n_pairs < 45
    useless = sequential_decide([0.5] * 45, [0.5] * 45)
    assert not useless.accepted and useless.comparison.n_pairs == 12


def test_sequential_keeps_looking_at_a_near_miss():
    rng = random.Random(3)
    inc = [0.0] * 45
    cand = [float(rng.random() < 0.75) - float(rng.random() < 0.15) for _ in range(45)]
    v = sequential_decide(inc, cand)
    assert v.comparison.n_pairs > 12


def test_the_screen_picks_the_incumbents_weakest_pairs_and_only_ever_drops():
    inc = rollouts([1.0, 0.0, 0.5, 0.0, 1.0, 0.25])
    picked = gate.screen_jobs(gate.SEQUENTIAL, inc, "mixed")
    assert [r.score.hard for r in picked] == [0.0, 0.0, 0.25, 0.5, 1.0, 1.0]
    assert gate.screen_jobs(gate.SIGN, inc, "mixed") == []  # the fixed test has no screen
    weak = picked[:4]

    def answers(scores: list[float]) -> list[Rollout]:
        return [replace(r, skill_hash="c", score=Score(hard=s, soft=s))
                for r, s in zip(weak, scores, strict=True)]

    same = answers([0.0, 0.0, 0.25, 0.5])
    dropped = gate.screened_out(weak, same, metric="mixed", margin=0.0)
    assert dropped is not None and not dropped.accepted and "screened out" in dropped.reason
    ahead = answers([1.0, 0.0, 0.25, 0.5])
    # Ahead on the screen is no accept: the candidate goes on to the sequential test.
    assert gate.screened_out(weak, ahead, metric="mixed", margin=0.0) is None
