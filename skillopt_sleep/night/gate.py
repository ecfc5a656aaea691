"""The gate: an edit is kept only if it beats the incumbent on held-out tasks beyond noise.

Candidate and incumbent answer the same validation tasks with the same sample indices;
deltas are paired by (task, sample), and pairs where either side has no judgement are
dropped, never counted as 0. Accept iff the mean paired delta exceeds the margin AND a
one-sided paired test (exact sign test, or a paired sign-flip permutation test) rejects
"no improvement" at ``alpha``. Ties reject. Optionally, no task may regress.

The test is a ``GateTest`` strategy, chosen by name from ``skillopt_sleep.tables.GATE_TESTS``:
``sign``, ``permutation``, or ``accept-all`` (the ``--no-gate`` ablation, which replays
nothing and keeps every edit that applies).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from scipy.special import betainc, betaln
from scipy.stats import binomtest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import Rollout
from skillopt_sleep.tables import GATE_TESTS


@dataclass(frozen=True)
class Comparison:
    mean_delta: float
    p_value: float
    n_pairs: int
    task_deltas: dict[str, float]
    incumbent: float
    candidate: float
    deltas: tuple[float, ...] = ()


def paired(incumbent: Sequence[Rollout], candidate: Sequence[Rollout], metric: str) -> Comparison:
    """Pair rollouts by (task, sample) and summarise the deltas (no test yet)."""
    pairs = _pairs(incumbent, candidate)
    deltas = [c.score.metric(metric) - i.score.metric(metric) for i, c in pairs]
    per_task: dict[str, list[float]] = defaultdict(list)
    for (_, c), d in zip(pairs, deltas, strict=True):
        per_task[c.task_id].append(d)
    n = len(pairs)
    return Comparison(
        mean_delta=sum(deltas) / n if n else 0.0,
        p_value=1.0,
        n_pairs=n,
        task_deltas={t: sum(v) / len(v) for t, v in per_task.items()},
        incumbent=sum(i.score.metric(metric) for i, _ in pairs) / n if n else 0.0,
        candidate=sum(c.score.metric(metric) for _, c in pairs) / n if n else 0.0,
        deltas=tuple(deltas),
    )


def sign_test(deltas: Sequence[float]) -> float:
    """One-sided exact sign test of "candidate is not better"; zeros carry no evidence."""
    pos = sum(1 for d in deltas if d > 0)
    neg = sum(1 for d in deltas if d < 0)
    if pos + neg == 0:
        return 1.0
    return float(binomtest(pos, pos + neg, 0.5, alternative="greater").pvalue)


def permutation_test(deltas: Sequence[float], rounds: int = 10_000, seed: int = 0) -> float:
    """One-sided paired sign-flip permutation test (exact up to 16 non-zero pairs)."""
    nonzero = [d for d in deltas if d != 0]
    if not nonzero:
        return 1.0
    observed = sum(nonzero)
    if len(nonzero) <= 16:
        signs = itertools.product((1, -1), repeat=len(nonzero))
        hits = total = 0
        for flip in signs:
            total += 1
            hits += sum(s * d for s, d in zip(flip, nonzero, strict=True)) >= observed - 1e-12
        return hits / total
    rng = random.Random(seed)
    hits = sum(
        sum(d if rng.random() < 0.5 else -d for d in nonzero) >= observed - 1e-12
        for _ in range(rounds)
    )
    return (hits + 1) / (rounds + 1)


class GateTest(Protocol):
    """How the gate weighs one comparison's paired deltas.

    ``p_value`` is the one-sided p-value of "the candidate is not better"; it must never
    raise (no usable pairs is p = 1). ``replays`` False means the gate is off: the night
    replays no validation task for it and keeps every edit that applies.
    """

    @property
    def name(self) -> str: ...

    @property
    def replays(self) -> bool: ...

    def p_value(self, deltas: Sequence[float]) -> float: ...


@dataclass(frozen=True)
class SignTest:
    name: str = "sign"
    replays: bool = True

    def p_value(self, deltas: Sequence[float]) -> float:
        return sign_test(deltas)


@dataclass(frozen=True)
class PermutationTest:
    name: str = "permutation"
    replays: bool = True

    def p_value(self, deltas: Sequence[float]) -> float:
        return permutation_test(deltas)


def sign_evalue(pos: int, neg: int) -> float:
    """The sign test's mixture e-value after ``pos`` positive and ``neg`` negative pairs.

    ``E = ∫ (2p)^pos (2(1-p))^neg dπ(p)`` with ``π`` uniform on [1/2, 1]: the average wealth
    of bettors who each stake on "positive" at one odds ``p``. Under "not better"
    (P(positive | non-zero) ≤ 1/2) each bettor's wealth is a supermartingale, so is the
    mixture, and Ville's inequality gives P(ever E ≥ 1/α) ≤ α."""
    n = pos + neg
    if n == 0:
        return 1.0
    log_e = (n + 1) * math.log(2) + betaln(pos + 1, neg + 1)
    upper = float(betainc(neg + 1, pos + 1, 0.5))  # mass of Beta(pos+1, neg+1) above 1/2
    return math.exp(log_e) * upper if upper > 0 else 0.0


def anytime_p_value(deltas: Sequence[float]) -> float:
    """``1 / max E`` over every prefix of ``deltas``: valid however often it is looked at."""
    pos = neg = 0
    best = 1.0
    for d in deltas:
        pos += d > 0
        neg += d < 0
        if d != 0:
            best = max(best, sign_evalue(pos, neg))
    return min(1.0, 1.0 / best)


@dataclass(frozen=True)
class SequentialSignTest:
    """The sign test, looked at after every ``look_pairs`` pairs; stops once decided."""

    name: str = "sequential"
    replays: bool = True
    look_pairs: int = 6

    def p_value(self, deltas: Sequence[float]) -> float:
        return anytime_p_value(deltas)

    def looks(self, max_pairs: int) -> list[int]:
        return [*range(self.look_pairs, max_pairs, self.look_pairs), max_pairs]

    def promising(self, p_value: float, pairs: int, max_pairs: int, alpha: float) -> bool:
        """Worth more pairs: the p-value is on course to reach ``alpha`` by the last pair
        (below ``alpha ** (pairs / max_pairs)``, a line from 1 to ``alpha`` on a log scale).
        Dropping the rest only costs power, never a false accept."""
        return p_value <= alpha ** (pairs / max(max_pairs, 1))


@dataclass(frozen=True)
class AcceptAll:
    """No gate: for the ablation that shows what the gate is worth."""

    name: str = "accept-all"
    replays: bool = False

    def p_value(self, deltas: Sequence[float]) -> float:
        return 0.0


SIGN, PERMUTATION, ACCEPT_ALL = SignTest(), PermutationTest(), AcceptAll()
SEQUENTIAL = SequentialSignTest()


def looks(test: GateTest, max_pairs: int) -> list[int]:
    """The pair counts at which ``test`` is consulted: every one of its looks, or only the
    last for a fixed-sample test (one without a ``looks`` method)."""
    schedule = getattr(test, "looks", None)
    if schedule is None:
        return [max_pairs]
    points = sorted({n for n in schedule(max_pairs) if 0 < n <= max_pairs} | {max_pairs})
    return points


def gate_test(name: str) -> GateTest:
    """The strategy ``GATE_TESTS`` registers as ``name``."""
    found = GATE_TESTS.get(name)
    if not hasattr(found, "p_value") or not hasattr(found, "replays"):
        raise ConfigError(f"gate test {name!r} is not a GateTest: {found!r}")
    test: GateTest = found
    return test


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    reason: str
    comparison: Comparison
    decided: bool = True
    """False at an interim look that settled nothing: the gate draws more pairs."""


def decide(
    incumbent: Sequence[Rollout],
    candidate: Sequence[Rollout],
    *,
    metric: str,
    alpha: float,
    margin: float,
    test: GateTest = SIGN,
    no_regression: bool = False,
    min_pairs: int = 1,
    final: bool = True,
    max_pairs: int = 0,
) -> Verdict:
    """Accept or reject a candidate against the incumbent, saying why.

    At an interim look (``final`` False) a candidate that is significantly better is
    accepted, one whose mean delta is at or below the margin is dropped as useless or
    harmful (stopping for futility never raises the false-accept rate), and anything in
    between is left undecided for more pairs."""
    comp = paired(incumbent, candidate, metric)
    if comp.n_pairs < min_pairs:
        if not final:
            return Verdict(False, "too few usable pairs yet", comp, decided=False)
        return Verdict(False, f"only {comp.n_pairs} usable pairs (need {min_pairs})", comp)
    p = test.p_value(comp.deltas)
    comp = dataclasses.replace(comp, p_value=p)
    if comp.mean_delta <= margin:
        word = "tie" if comp.mean_delta == 0 else "no gain" if comp.mean_delta > 0 else "worse"
        return Verdict(False, f"{word}: mean delta {comp.mean_delta:+.3f} ≤ margin {margin}", comp)
    if p >= alpha:
        promising = getattr(test, "promising", None)
        if not final and promising and not promising(p, comp.n_pairs, max_pairs, alpha):
            return Verdict(False, f"not promising after {comp.n_pairs} pairs: p = {p:.3f}", comp)
        return Verdict(False, f"not significant: p = {p:.3f} ≥ α = {alpha}", comp, decided=final)
    if no_regression and (worst := min(comp.task_deltas.values(), default=0.0)) < 0:
        return Verdict(False, f"a validation task regressed ({worst:+.3f})", comp)
    return Verdict(True, f"better by {comp.mean_delta:+.3f} (p = {p:.3f})", comp)


def _pairs(
    incumbent: Sequence[Rollout], candidate: Sequence[Rollout]
) -> list[tuple[Rollout, Rollout]]:
    base = {(r.task_id, r.sample): r for r in incumbent if r.usable}
    return [
        (base[(r.task_id, r.sample)], r)
        for r in candidate
        if r.usable and (r.task_id, r.sample) in base
    ]
