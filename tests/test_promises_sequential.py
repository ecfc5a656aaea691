"""The sequential sign test, pinned where a mutation of ``night.sequential`` went unseen: how
a look counts its pairs, where it stops, what it says, the α it may spend, and the screen's
harmful, useless and powerless drops at their boundaries."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from skillopt_sleep.night.gate import Comparison, Verdict, sign_test
from skillopt_sleep.night.sequential import (
    SEQUENTIAL,
    SequentialSignTest,
    Walk,
    conditional_power,
)
from skillopt_sleep.records import Rollout, Score

Pairs = tuple[Sequence[Rollout], Sequence[Rollout]]


class Script:
    """``draw(n)``: the first ``n`` pairs whose deltas are ``deltas`` (hard; soft is flat)."""

    def __init__(self, deltas: Sequence[float], tasks: Sequence[str] | None = None) -> None:
        self.deltas = list(deltas)
        self.tasks = list(tasks) if tasks else [f"t{i}" for i in range(len(deltas))]
        self.asked: list[int] = []

    def __call__(self, n: int) -> Pairs:
        self.asked.append(n)
        inc = [Rollout(t, i, "a", score=Score(hard=0.5, soft=0.5))
               for i, t in enumerate(self.tasks[:n])]
        cand = [Rollout(t, i, "b", score=Score(hard=0.5 + d, soft=0.5))
                for i, (t, d) in enumerate(zip(self.tasks[:n], self.deltas[:n], strict=True))]
        return inc, cand


def _run(deltas: Sequence[float], test: SequentialSignTest = SEQUENTIAL,
         **kw: object) -> tuple[Script, Verdict]:
    script = Script(deltas)
    settings: dict[str, object] = {"max_pairs": len(deltas), "metric": "hard", "alpha": 0.05,
                                   "margin": 0.0} | kw
    return script, test.run(script, **settings)  # type: ignore[arg-type]


# --- one look: the p-value counts positives among the pairs that differ ----------------------


@pytest.mark.parametrize("deltas", [[0.5, 0.0, 0.5], [0.5, -0.5, 0.5], [0.25, -0.25, -0.25],
                                    [0.5, 0.5, 0.5]])
def test_a_single_look_is_the_sign_test(deltas: list[float]) -> None:
    _, v = _run(deltas, alpha=0.5)
    assert v.comparison.p_value == pytest.approx(sign_test(deltas))
    assert v.comparison.n_pairs == 3


def test_the_metric_is_the_one_asked_for() -> None:
    _, v = _run([0.5, 0.5, 0.5], alpha=0.2, metric="soft")  # soft is flat: a tie
    assert not v.accepted and v.reason.startswith("tie")


def test_significance_is_p_at_or_below_what_may_be_spent() -> None:
    _, v = _run([0.5, 0.5, 0.5], alpha=1 / 8)  # p = 1/8 exactly
    assert v.accepted and v.reason == "better by +0.500 (p = 0.125)"
    _, one = _run([0.5, 0.0, 0.0], alpha=0.6)  # one pair that differs, p = 0.5
    assert one.accepted
    _, none = _run([0.0, 0.0, 0.0], alpha=1.0, margin=-0.1)  # no pair differs: never
    assert none.accepted is False and none.reason.startswith("not significant")
    assert none.reason == "not significant: p = 1.000 ≥ α = 1.0000"


# --- looks, stopping and what a verdict says ------------------------------------------------


def test_an_early_acceptance_says_when_and_the_last_look_does_not() -> None:
    early, v = _run([0.5] * 12, alpha=0.05)
    assert v.accepted and v.reason.endswith(f" after {early.asked[-1]} of 12 pairs")
    assert early.asked[-1] < 12
    late, w = _run([0.5, -0.5, 0.5] * 4, alpha=0.3)
    assert late.asked[-1] == 12 and w.accepted and "after" not in w.reason


def test_a_gain_at_the_margin_does_not_stop_the_comparison() -> None:
    script, v = _run([1.0] * 6, alpha=0.5, margin=1.0)
    assert script.asked == [3, 6] and v.comparison.n_pairs == 6 and not v.accepted


def test_the_last_look_decides_even_a_tie() -> None:
    script, v = _run([0.0] * 6)
    assert script.asked == [3, 6] and v.reason.startswith("tie")


def test_no_regression_is_off_unless_asked_and_honoured_when_asked() -> None:
    deltas = [0.5, 0.5, -0.25, 0.5, 0.5, 0.5]
    tasks = ["a", "a", "b", "a", "a", "a"]
    for asked, accepted in ((False, True), (True, False)):
        script = Script(deltas, tasks)
        kw = {"no_regression": True} if asked else {}
        v = SEQUENTIAL.run(script, max_pairs=6, metric="hard", alpha=0.5, margin=0.0, **kw)
        assert v.accepted is accepted
        if asked:
            assert "regressed" in v.reason


def test_a_familiar_edit_is_screened_from_the_first_look_and_others_later() -> None:
    deltas = [0.5, -0.5, -0.5] + [0.5] * 9  # one better, two worse at the first look
    _, plain = _run(deltas, alpha=0.05)
    assert "after 3 pairs" not in plain.reason
    _, familiar = _run(deltas, alpha=0.05, familiar=True)
    assert familiar.accepted is False
    assert familiar.reason == "dropped as useless after 3 pairs: 1 better of 3 that differ"


# --- what may be spent -----------------------------------------------------------------------


def test_alpha_is_spent_as_alpha_times_t_to_the_rho_never_more() -> None:
    assert SEQUENTIAL.allowed(3, 12, 0.05) == pytest.approx(0.05 * 0.25**0.75)
    assert SEQUENTIAL.allowed(12, 12, 0.05) == pytest.approx(0.05)
    assert SEQUENTIAL.allowed(24, 12, 0.05) == pytest.approx(0.05)  # capped at alpha
    assert SEQUENTIAL.looks(10) == [3, 6, 9, 10]
    assert SEQUENTIAL.p_value([0.5, 0.5, -0.5]) == sign_test([0.5, 0.5, -0.5])


def test_a_walk_counts_each_new_pair_as_a_fair_coin() -> None:
    walk = Walk()
    walk.extend(0)
    assert walk.nonzero == 0 and list(walk.surviving) == [1.0]
    walk.extend(1)
    assert walk.nonzero == 1 and walk.p_value(1) == pytest.approx(0.5)
    walk.extend(4)
    assert walk.p_value(4) == pytest.approx(1 / 16) and walk.p_value(0) == pytest.approx(1.0)


# --- the screen ------------------------------------------------------------------------------


def _comp(mean: float, deltas: Sequence[float]) -> Comparison:
    return Comparison(mean_delta=mean, p_value=1.0, n_pairs=len(deltas), task_deltas={},
                      incumbent=0.5, candidate=0.5 + mean, deltas=tuple(deltas))


def test_harmful_needs_both_the_mean_and_the_sign_test_of_worse() -> None:
    s = SEQUENTIAL
    # At the harm margin and with p(worse) = 0.25 exactly: both boundaries included.
    assert s.futile(_comp(-0.05, [-1.0, -1.0]), 2, 12, 0.05, 6) == (
        "dropped as harmful after 2 pairs: mean delta -0.050")
    # Worse in sign but not by the margin, or by the margin but not in sign: not harmful.
    assert s.futile(_comp(-0.01, [-1.0, -1.0, -1.0]), 3, 12, 0.05, 6) is None
    assert s.futile(_comp(0.0, [-1.0, -1.0, -1.0]), 3, 12, 0.05, 6) is None
    assert s.futile(_comp(-0.2, [-1.0, 1.0, -1.0]), 3, 12, 0.05, 6) is None


def test_useless_counts_better_against_worse_from_the_screen_on() -> None:
    deltas = [0.5, 0.5, -0.5, -0.5, -0.5, 0.0]
    assert SEQUENTIAL.futile(_comp(-0.04, deltas), 6, 12, 0.05, 6) == (
        "dropped as useless after 6 pairs: 2 better of 5 that differ")
    assert SEQUENTIAL.futile(_comp(-0.04, deltas), 5, 12, 0.05, 6) is None  # before it


def test_powerless_is_strictly_below_curtail() -> None:
    deltas = [0.5, 0.5, -0.5, 0.5, 0.0, 0.0]
    power = conditional_power(deltas, 12, 0.05)
    assert 0 < power < 1
    at = SequentialSignTest(curtail=power)
    assert at.futile(_comp(0.2, deltas), 6, 12, 0.05, 6) is None
    above = SequentialSignTest(curtail=power + 1e-9)
    assert above.futile(_comp(0.2, deltas), 6, 12, 0.05, 6) == (
        f"dropped after 6 pairs: {power:.0%} chance left of significance (mean delta +0.200)")


# --- conditional power -----------------------------------------------------------------------


def _upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Bin(n, p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


def test_conditional_power_at_or_past_the_end_is_the_fixed_test() -> None:
    assert conditional_power([0.0, 0.0], 10, 0.05) == 0.0  # nothing differs: no power
    assert conditional_power([1.0] * 5, 5, 0.05) == 1.0  # p = 1/32
    assert conditional_power([1.0] * 5, 4, 0.05) == 1.0
    assert conditional_power([1.0] * 5, 5, 1 / 32) == 0.0  # p must be below alpha
    assert conditional_power([1.0, -1.0, 1.0], 3, 0.05) == 0.0
    assert conditional_power([1.0], 1, 0.6) == 1.0  # a single differing pair can be enough


def test_conditional_power_projects_the_observed_rates() -> None:
    deltas = [1.0, 1.0, -1.0, 1.0]  # 3 better of 4, all differ; 8 more pairs to come
    # The fixed test at 12 needs 10 positives (P(>= 10) = 79/4096 < 0.05 <= P(>= 9)).
    assert conditional_power(deltas, 12, 0.05) == pytest.approx(_upper(7, 8, 0.75))
    # At alpha = P(>= 10) exactly, 10 is not enough: 11 are needed.
    assert conditional_power(deltas, 12, 79 / 4096) == pytest.approx(_upper(8, 8, 0.75))
    # Three of three so far, three to come: six of six are needed (1/64 < 0.05).
    assert conditional_power([1.0] * 3, 6, 0.05) == pytest.approx(1.0)
    # When no count can pass the fixed test, no power is left.
    assert conditional_power([1.0], 3, 0.05) == 0.0


def test_spending_exactly_a_tail_closes_it() -> None:
    """Tails of fair coins are dyadic, so an α can equal one exactly: it is spent."""
    walk = Walk()
    walk.extend(3)  # 1/8, 3/8, 3/8, 1/8
    walk.spend(1 / 8)
    assert walk.spent == 1 / 8 and walk.surviving[3] == 0.0
    assert walk.p_value(3) == 1 / 8  # what was spent, and nothing above it survives
    short = Walk()
    short.extend(3)
    short.spend(1 / 8 - 1e-9)  # less than any tail: nothing is spent
    assert short.spent == 0.0 and short.surviving[3] == 1 / 8
