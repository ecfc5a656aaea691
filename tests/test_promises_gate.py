"""The gate's arithmetic, pinned where a mutation of ``night.gate`` went unseen: how pairs
are formed and summarised, the exact and sampled permutation test, the boundaries of every
rule of a verdict and the reason it gives, and what ``compare`` hands to its test."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.night.gate import (
    ACCEPT_ALL,
    PERMUTATION,
    SIGN,
    Comparison,
    Verdict,
    compare,
    decide,
    decision,
    gate_test,
    paired,
    permutation_test,
    sign_test,
    verdict,
)
from skillopt_sleep.records import Edit, Rollout, Score


def _r(task: str, sample: int, hard: float, soft: float = 0.5, *, error: str = "",
       failed: bool = False) -> Rollout:
    return Rollout(task, sample, "h", score=Score(hard=hard, soft=soft, failed=failed),
                   error=error)


# --- pairing ------------------------------------------------------------------------------


def test_pairs_are_by_task_and_sample_and_unusable_sides_are_dropped() -> None:
    incumbent = [_r("a", 0, 0.0), _r("a", 1, 0.5), _r("b", 0, 1.0), _r("c", 0, 0.0),
                 _r("d", 0, 0.0, error="timeout")]
    candidate = [_r("a", 1, 1.0), _r("a", 0, 1.0), _r("b", 0, 0.0), _r("c", 0, 1.0, failed=True),
                 _r("d", 0, 1.0), _r("e", 0, 1.0)]
    c = paired(incumbent, candidate, "hard")
    assert c.n_pairs == 3 and c.p_value == 1.0  # no test yet
    assert c.deltas == (0.5, 1.0, -1.0)  # in the candidate's order
    assert c.mean_delta == pytest.approx(0.5 / 3)
    assert c.task_deltas == {"a": 0.75, "b": -1.0}
    assert c.incumbent == pytest.approx(1.5 / 3) and c.candidate == pytest.approx(2.0 / 3)
    soft = paired(incumbent, candidate, "soft")  # every soft score is 0.5: no difference
    assert soft.mean_delta == 0.0 and soft.incumbent == soft.candidate == 0.5
    one = paired([_r("a", 0, 1.0, soft=0.0)], [_r("a", 0, 0.0, soft=1.0)], "hard")
    assert (one.incumbent, one.candidate, one.deltas) == (1.0, 0.0, (-1.0,))


def test_no_pairs_is_an_empty_comparison() -> None:
    c = paired([_r("a", 0, 1.0)], [_r("a", 1, 1.0)], "hard")
    assert (c.n_pairs, c.mean_delta, c.incumbent, c.candidate, c.p_value) == (0, 0, 0, 0, 1)
    assert c.task_deltas == {} and c.deltas == ()


# --- the tests ------------------------------------------------------------------------------


def test_sign_test_without_evidence_is_one() -> None:
    assert sign_test([]) == 1.0 and sign_test([0.0, 0.0]) == 1.0


@pytest.mark.parametrize(("deltas", "p"), [
    ([1.0], 0.5),
    ([1.0, -1.0], 0.75),  # flips that tie the observed sum count as hits
    ([0.5, 0.25], 0.25),
    ([0.5, 0.0, 0.25, 0.0], 0.25),  # zeros carry no evidence
    ([1.0, -0.5, 2.0], 2 / 8),
    ([1.0] * 16, 2.0**-16),  # exact up to 16 non-zero pairs
])
def test_permutation_test_is_exact_for_small_samples(deltas: list[float], p: float) -> None:
    assert permutation_test(deltas) == pytest.approx(p, abs=1e-15)


def test_permutation_test_of_nothing_is_one() -> None:
    assert permutation_test([]) == 1.0 and permutation_test([0.0]) == 1.0


def test_sampled_permutation_test_counts_the_observed_flip() -> None:
    """Past 16 pairs, (hits + 1) / (rounds + 1) of seeded random flips."""
    assert permutation_test([0.1] * 17) == 1 / 10_001  # no random flip reaches all-plus
    assert permutation_test([0.1] * 17, rounds=99) == 1 / 100
    # A balanced sample: about half of the flips, plus the ties (C(18, 9) / 2^18 of them).
    tie = math.comb(18, 9) / 2**18
    assert permutation_test([1.0, -1.0] * 9) == pytest.approx(0.5 + tie / 2, abs=0.02)
    # Seeded: the default is seed 0, and the seed is honoured.
    balanced = [0.3, -0.2, 0.1] * 6
    assert permutation_test(balanced) == permutation_test(balanced, seed=0)
    assert permutation_test(balanced, rounds=500, seed=1) != permutation_test(
        balanced, rounds=500, seed=2)


def test_the_registered_tests() -> None:
    assert gate_test("sign") is SIGN and gate_test("permutation") is PERMUTATION
    assert gate_test("accept-all") is ACCEPT_ALL
    assert ACCEPT_ALL.p_value([-1.0, -1.0]) == 0.0 and not ACCEPT_ALL.replays
    assert SIGN.replays and PERMUTATION.replays
    assert PERMUTATION.p_value([0.5, 0.25]) == permutation_test([0.5, 0.25])
    assert SIGN.p_value([1.0] * 5) == sign_test([1.0] * 5)
    with pytest.raises(ConfigError, match="unknown gate test 'no-such-test'"):
        gate_test("no-such-test")


class _HalfTest:
    """Has a p-value but does not say whether it replays."""

    def p_value(self, deltas: Sequence[float]) -> float:
        return 0.0


def test_a_registered_test_missing_either_half_is_refused(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from skillopt_sleep.night import gate

    monkeypatch.setattr(gate, "GATE_TESTS", {"half": _HalfTest(), "sign": SIGN})
    assert gate_test("sign") is SIGN
    with pytest.raises(ConfigError, match="'half' is not a GateTest"):
        gate_test("half")


# --- verdicts -------------------------------------------------------------------------------


def _comp(mean: float, tasks: dict[str, float] | None = None, p: float = 0.01) -> Comparison:
    return Comparison(mean_delta=mean, p_value=p, n_pairs=10,
                      task_deltas=tasks if tasks is not None else {"a": mean},
                      incumbent=0.4, candidate=0.4 + mean)


@pytest.mark.parametrize(("mean", "reason"), [
    (0.0, "tie: mean delta +0.000 ≤ margin 0.05"),
    (0.03, "no gain: mean delta +0.030 ≤ margin 0.05"),
    (0.05, "no gain: mean delta +0.050 ≤ margin 0.05"),  # the margin itself rejects
    (-0.2, "worse: mean delta -0.200 ≤ margin 0.05"),
])
def test_a_mean_at_or_below_the_margin_rejects(mean: float, reason: str) -> None:
    comp = _comp(mean)
    v = verdict(comp, significant=True, alpha=0.05, margin=0.05)
    assert v == Verdict(False, reason, comp)


def test_a_gain_not_significant_rejects_and_a_significant_one_accepts() -> None:
    comp = _comp(0.2, p=0.2)
    assert verdict(comp, significant=False, alpha=0.05, margin=0.0) == Verdict(
        False, "not significant: p = 0.200 ≥ α = 0.0500", comp)
    assert verdict(comp, significant=True, alpha=0.05, margin=0.0) == Verdict(
        True, "better by +0.200 (p = 0.200)", comp)
    assert verdict(comp, significant=True, alpha=0.05, margin=0.0, when=" at look 2").reason \
        == "better by +0.200 (p = 0.200) at look 2"


def test_no_regression_rejects_only_a_task_that_got_worse() -> None:
    regressed = _comp(0.2, {"a": 0.5, "b": -0.1})
    # Off unless asked for.
    assert verdict(regressed, significant=True, alpha=0.05, margin=0.0).accepted
    v = verdict(regressed, significant=True, alpha=0.05, margin=0.0, no_regression=True)
    assert v == Verdict(False, "a validation task regressed (-0.100)", regressed)
    for tasks in ({"a": 0.4, "b": 0.0}, {"a": 0.5, "b": 0.5}, {}):
        held = _comp(0.2, tasks)
        assert verdict(held, significant=True, alpha=0.05, margin=0.0,
                       no_regression=True).accepted is True


def test_decide_needs_its_pairs_and_p_below_alpha() -> None:
    inc = [_r("a", s, 0.0) for s in range(5)]
    cand = [_r("a", s, 1.0) for s in range(5)]
    few = decide(inc, cand, metric="hard", alpha=0.5, margin=0.0, min_pairs=6)
    assert few.accepted is False and few.reason == "only 5 usable pairs (need 6)"
    assert few.comparison == paired(inc, cand, "hard")
    enough = decide(inc, cand, metric="hard", alpha=0.5, margin=0.0, min_pairs=5)
    assert enough.accepted and enough.comparison.p_value == sign_test([1.0] * 5)
    # One pair is enough by default; p = 1/32 exactly at alpha = 1/32 is not below it.
    assert decide(inc[:1], cand[:1], metric="hard", alpha=0.6, margin=0.0).accepted
    assert not decide(inc, cand, metric="hard", alpha=2.0**-5, margin=0.0).accepted
    assert decide(inc, cand, metric="hard", alpha=2.0**-5 + 1e-9, margin=0.0).accepted
    # The metric is the one asked for: every soft score is equal, so no gain.
    assert not decide(inc, cand, metric="soft", alpha=0.5, margin=0.0).accepted


def test_a_decision_records_the_evidence() -> None:
    edit = Edit(op="append", text="Run the tests.")
    comp = _comp(0.25, {"a": 0.25, "b": 0.25}, p=0.02)
    d = decision(edit, True, "better", comp, metric="hard", stage="cross", step=3)
    assert (d.edit, d.accepted, d.reason, d.stage, d.metric, d.step) == (
        edit, True, "better", "cross", "hard", 3)
    assert (d.mean_delta, d.p_value, d.n_pairs) == (0.25, 0.02, 10)
    assert (d.incumbent_score, d.candidate_score) == (0.4, 0.65)
    assert d.task_deltas == {"a": 0.25, "b": 0.25}
    assert decision(edit, False, "no", comp, metric="soft").stage == "gate"
    assert decision(edit, False, "no", comp, metric="soft").step == 0


# --- compare --------------------------------------------------------------------------------


def _draw(inc: Sequence[Rollout], cand: Sequence[Rollout], asked: list[int]
          ) -> Callable[[int], tuple[Sequence[Rollout], Sequence[Rollout]]]:
    def draw(n: int) -> tuple[Sequence[Rollout], Sequence[Rollout]]:
        asked.append(n)
        return inc[:n], cand[:n]
    return draw


def test_a_fixed_test_draws_every_pair_once_with_the_settings_given() -> None:
    inc = [_r("a", s, 0.0) for s in range(4)] + [_r("b", s, 1.0) for s in range(4)]
    cand = [_r("a", s, 1.0) for s in range(4)] + [_r("b", s, 0.75) for s in range(4)]
    asked: list[int] = []
    v = compare(PERMUTATION, _draw(inc, cand, asked), max_pairs=8, metric="hard", alpha=0.1,
                margin=0.0)
    assert asked == [8] and v.accepted
    assert v.comparison.p_value == permutation_test(v.comparison.deltas)
    assert v.comparison == decide(inc, cand, metric="hard", alpha=0.1, margin=0.0,
                                  test=PERMUTATION).comparison
    held = compare(PERMUTATION, _draw(inc, cand, []), max_pairs=8, metric="hard", alpha=0.1,
                   margin=0.0, no_regression=True)
    assert not held.accepted and "regressed" in held.reason
    # The metric is honoured: on soft scores (all 0.5) nothing changed.
    assert not compare(PERMUTATION, _draw(inc, cand, []), max_pairs=8, metric="soft",
                       alpha=0.1, margin=0.0).accepted


class _Looking:
    """A test that looks for itself (as the sequential one does): it records its call."""

    name, replays = "looking", True

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def p_value(self, deltas: Sequence[float]) -> float:
        raise AssertionError("a looking test is run, not asked for a p-value")

    def run(self, draw: Any, **kw: Any) -> Verdict:
        self.calls.append(kw)
        return Verdict(True, "looked", _comp(0.1))


def test_a_looking_test_is_handed_every_setting() -> None:
    looking = _Looking()
    v = compare(looking, _draw([], [], []), max_pairs=12, metric="soft", alpha=0.01,
                margin=0.02)
    assert v.reason == "looked"
    compare(looking, _draw([], [], []), max_pairs=6, metric="hard", alpha=0.2, margin=0.0,
            no_regression=True, familiar=True)
    assert looking.calls == [
        {"max_pairs": 12, "metric": "soft", "alpha": 0.01, "margin": 0.02,
         "no_regression": False, "familiar": False, "familiar_alpha": None},
        {"max_pairs": 6, "metric": "hard", "alpha": 0.2, "margin": 0.0,
         "no_regression": True, "familiar": True, "familiar_alpha": None}]
