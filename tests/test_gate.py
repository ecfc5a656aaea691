from __future__ import annotations

import itertools
import random
from dataclasses import replace

from skillopt_sleep.night import gate
from skillopt_sleep.night.budget import edit_budget
from skillopt_sleep.night.sequential import SEQUENTIAL, SequentialSignTest, Walk, conditional_power
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


def sequential_decide(inc: list[float], cand: list[float], alpha: float = 0.05,
                      test: SequentialSignTest = SEQUENTIAL, familiar: bool = False
                      ) -> gate.Verdict:
    """The sequential gate over fixed lists of pairs, drawn look by look as the night does."""
    drawn: list[int] = []

    def draw(n: int) -> tuple[list[Rollout], list[Rollout]]:
        drawn.append(n)
        return rollouts(inc[:n]), rollouts(cand[:n], h="c")

    v = gate.compare(test, draw, max_pairs=len(cand), metric="mixed", alpha=alpha, margin=0.0,
                     familiar=familiar)
    assert v.comparison.n_pairs == drawn[-1] and drawn == sorted(drawn)
    return v


def test_the_fixed_tests_draw_every_pair_at_once():
    drawn: list[int] = []

    def draw(n: int) -> tuple[list[Rollout], list[Rollout]]:
        drawn.append(n)
        return rollouts([0.0] * n), rollouts([1.0] * n, h="c")

    assert gate.compare(gate.SIGN, draw, max_pairs=45, metric="mixed", alpha=0.05,
                        margin=0.0).accepted
    assert drawn == [45]


def test_sequential_looks_every_three_pairs_and_at_the_end():
    assert SEQUENTIAL.looks(45) == [*range(3, 45, 3), 45]
    assert SEQUENTIAL.looks(20) == [3, 6, 9, 12, 15, 18, 20]


def test_the_walk_spends_exactly_what_the_boundaries_allow():
    # Every pair non-zero, looks at 3, 6, …, 45: the boundaries' total crossing probability
    # under H0, computed by brute force over all sign sequences of the first looks, is what
    # the walk says it spent, and never more than α(t).
    walk = Walk()
    test = SEQUENTIAL
    for n in test.looks(12):
        walk.extend(n)
        walk.spend(test.allowed(n, 45, 0.05))
        assert walk.spent <= test.allowed(n, 45, 0.05) + 1e-12
    crossed = 0
    boundaries = _boundaries(test.looks(12), 45, 0.05)
    for signs in itertools.product((0, 1), repeat=12):
        crossed += any(sum(signs[:n]) >= b for n, b in boundaries)
    assert abs(crossed / 2 ** 12 - walk.spent) < 1e-12


def _boundaries(looks: list[int], max_pairs: int, alpha: float) -> list[tuple[int, int]]:
    walk, found = Walk(), []
    for n in looks:
        walk.extend(n)
        before = walk.surviving.copy()
        walk.spend(SEQUENTIAL.allowed(n, max_pairs, alpha))
        cut = next((b for b in range(len(before)) if walk.surviving[b:].sum() == 0
                    and before[b:].sum() > 0), n + 1)
        found.append((n, cut))
    return found


def test_sequential_false_accept_rate_under_null_deltas_is_at_most_alpha():
    rng = random.Random(11)
    accepted = runs = 0
    for _ in range(2000):
        inc = [float(rng.random() < 0.5) for _ in range(45)]
        cand = [float(rng.random() < 0.5) for _ in range(45)]
        accepted += sequential_decide(inc, cand).accepted
        runs += 1
    assert accepted / runs <= 0.05


def test_without_drops_the_null_is_accepted_at_close_to_alpha_but_not_above():
    # Drops only lower the false-accept rate; without them the exact spending is nearly
    # used up (the walk is discrete), which a union bound over the looks would not be.
    test = replace(SEQUENTIAL, harm=10.0, screen_pairs=10_000, curtail=0.0)
    rng = random.Random(5)
    runs = 4000
    accepted = sum(sequential_decide([0.0] * 45, [float(rng.random() < 0.5) * 2 - 1
                                                  for _ in range(45)], test=test).accepted
                   for _ in range(runs))
    assert 0.02 <= accepted / runs <= 0.05 + 2 * (0.05 * 0.95 / runs) ** 0.5


def test_sequential_stops_early_on_a_clear_loser_and_a_clear_winner():
    loser = sequential_decide([1.0] * 45, [0.0] * 45)
    assert not loser.accepted and loser.comparison.n_pairs == 3 and "harmful" in loser.reason
    winner = sequential_decide([0.0] * 45, [1.0] * 45)
    assert winner.accepted and winner.comparison.n_pairs < 15 and "after" in winner.reason
    useless = sequential_decide([0.5] * 45, [0.5] * 45)
    assert not useless.accepted and useless.comparison.n_pairs == SEQUENTIAL.screen_pairs == 6


def test_a_familiar_edit_is_screened_from_the_first_look_and_can_still_win():
    useless = sequential_decide([0.5] * 45, [0.5] * 45, familiar=True)
    assert not useless.accepted and useless.comparison.n_pairs == 3 and "useless" in useless.reason
    # Ahead at the first look: it goes on, and wins as any edit would.
    winner = sequential_decide([0.0] * 45, [1.0] * 45, familiar=True)
    assert winner.accepted and winner.comparison.n_pairs == sequential_decide(
        [0.0] * 45, [1.0] * 45).comparison.n_pairs


def test_sequential_keeps_looking_at_a_near_miss():
    # Ahead (five positives to three negatives in every ten pairs) but not decided early:
    # the comparison goes on past the point where useless candidates are dropped.
    cand = [1.0, -1.0, 1.0, 0.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0] * 5
    v = sequential_decide([0.0] * 45, cand[:45])
    assert v.comparison.n_pairs > 12


def test_a_candidate_with_no_chance_left_is_dropped_before_the_last_look():
    # Ahead, five positives to four negatives in twelve pairs: at this rate the fixed test
    # would hardly pass at 45 pairs, so the comparison stops instead of drawing 33 more.
    cand = [1.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0] + [1.0] * 33
    v = sequential_decide([0.0] * 45, cand)
    assert not v.accepted and "chance left" in v.reason and v.comparison.n_pairs < 45
    assert conditional_power([1.0] * 12, 45, 0.05) > 0.99
    assert conditional_power([1.0, -1.0] * 6, 45, 0.05) < 0.05


def test_a_comparison_does_not_depend_on_the_order_of_its_pairs():
    """Deltas that cancel exactly give a mean of exactly 0 in any order (a plain float sum
    of these comes out a hair off 0 in some orders, which turned a tie into "not
    significant")."""
    scores = [(0.0, 0.62), (0.0, 0.12), (0.0, 0.75), (0.75, 0.0), (0.12, 0.0), (0.17, 0.0),
              (0.62, 0.0), (0.0, 0.17)]

    def rollouts(order: list[int], side: int) -> list[Rollout]:
        return [Rollout(task_id=f"t{i}", sample=0, skill_hash="h",
                        score=Score(hard=scores[i][side], soft=scores[i][side]))
                for i in order]

    means, sums = set(), set()
    for seed in range(200):
        order = random.Random(seed).sample(range(len(scores)), len(scores))
        means.add(gate.paired(rollouts(order, 0), rollouts(order, 1), "soft").mean_delta)
        sums.add(sum(scores[i][1] - scores[i][0] for i in order))
    assert len(sums) > 1  # the float sum does depend on the order
    assert means == {0.0}
