"""The gate: an edit is kept only if it beats the incumbent on held-out tasks beyond noise.

Candidate and incumbent answer the same validation tasks with the same sample indices;
deltas are paired by (task, sample), and pairs where either side has no judgement are
dropped, never counted as 0. Accept iff the mean paired delta exceeds the margin AND a
one-sided paired test rejects "the candidate is not better" at ``alpha``. Ties reject.
Optionally, no task may regress.

The test is a ``GateTest`` strategy, chosen by name from ``skillopt_sleep.tables.GATE_TESTS``:

- ``sequential`` (the default): the sign test below looked at every few pairs with α spent
  exactly over the looks, so a comparison stops once it is decided (``night.sequential``,
  where its statistics are written down).
- ``sign``: the exact sign test on all ``val_repeats`` samples of every task (one look).
- ``permutation``: a paired sign-flip permutation test on all of them (one look).
- ``accept-all``: the ``--no-gate`` ablation, which replays nothing and keeps every edit
  that applies.

Harmful edits: a harmful edit that genuinely scores better on validation (one seen in an
earlier version: analyst seed 16, +0.131 over 45 pairs, p = 0.011) passes any test on
validation alone; no validation-only gate can tell it apart. Over the 20-seed study (4
personas × 20 seeds × 3 nights) no test let a harmful edit in.

What reaches the gate at all is decided first, at no call (``night.candidates``): an edit
that restates a line of the skill, repeats a better-ranked candidate or cites fewer than
``min_support`` shown tasks is dropped (one under-supported candidate still goes in a step
where none has the support). Those rules only drop, so the error statements above are
unchanged: every comparison that happens is one of the tests described here.

Which test is the default, and what each costs, is measured by ``experiments/gate_study.py``
and written in the README.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import fsum
from typing import Literal, Protocol

from scipy.stats import binomtest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import Edit, GateDecision, Rollout
from skillopt_sleep.tables import GATE_TESTS

Stage = Literal["gate", "contradict", "cross", "retire"]
"""The stages whose decisions rest on paired evidence."""


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
    # fsum: exact, so a mean does not depend on the order the pairs were drawn in (a plain
    # sum of +0.62 … −0.62 can come out a hair above or below 0, "not significant" or "tie").
    return Comparison(
        mean_delta=fsum(deltas) / n if n else 0.0,
        p_value=1.0,
        n_pairs=n,
        task_deltas={t: fsum(v) / len(v) for t, v in per_task.items()},
        incumbent=fsum(i.score.metric(metric) for i, _ in pairs) / n if n else 0.0,
        candidate=fsum(c.score.metric(metric) for _, c in pairs) / n if n else 0.0,
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


@dataclass(frozen=True)
class AcceptAll:
    """No gate: for the ablation that shows what the gate is worth."""

    name: str = "accept-all"
    replays: bool = False

    def p_value(self, deltas: Sequence[float]) -> float:
        return 0.0


SIGN, PERMUTATION, ACCEPT_ALL = SignTest(), PermutationTest(), AcceptAll()


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


def decision(edit: Edit, accepted: bool, reason: str, c: Comparison, *, metric: str,
             stage: Stage = "gate", step: int = 0) -> GateDecision:
    """The record of one decision on ``edit``, with the paired evidence of ``c``."""
    return GateDecision(edit, accepted, reason, stage=stage, metric=metric,
                        mean_delta=c.mean_delta, p_value=c.p_value, n_pairs=c.n_pairs,
                        incumbent_score=c.incumbent, candidate_score=c.candidate,
                        task_deltas=c.task_deltas, step=step)


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
) -> Verdict:
    """Accept or reject a candidate against the incumbent on a fixed sample, saying why."""
    comp = paired(incumbent, candidate, metric)
    if comp.n_pairs < min_pairs:
        return Verdict(False, f"only {comp.n_pairs} usable pairs (need {min_pairs})", comp)
    comp = dataclasses.replace(comp, p_value=test.p_value(comp.deltas))
    return verdict(comp, significant=comp.p_value < alpha, alpha=alpha, margin=margin,
                   no_regression=no_regression)


def verdict(comp: Comparison, *, significant: bool, alpha: float, margin: float,
            no_regression: bool = False, when: str = "") -> Verdict:
    """The decision on a tested comparison, saying why: a mean delta at or below the margin
    rejects, then a test that is not ``significant``, then (``no_regression``) any task
    that regressed; ``when`` ends an acceptance's reason."""
    if comp.mean_delta <= margin:
        word = "tie" if comp.mean_delta == 0 else "no gain" if comp.mean_delta > 0 else "worse"
        return Verdict(False, f"{word}: mean delta {comp.mean_delta:+.3f} ≤ margin {margin}", comp)
    if not significant:
        return Verdict(False, f"not significant: p = {comp.p_value:.3f} ≥ α = {alpha:.4f}", comp)
    if no_regression and (worst := min(comp.task_deltas.values(), default=0.0)) < 0:
        return Verdict(False, f"a validation task regressed ({worst:+.3f})", comp)
    return Verdict(True, f"better by {comp.mean_delta:+.3f} (p = {comp.p_value:.3f}){when}", comp)


def compare(
    test: GateTest,
    draw: Callable[[int], tuple[Sequence[Rollout], Sequence[Rollout]]],
    *,
    max_pairs: int,
    metric: str,
    alpha: float,
    margin: float,
    no_regression: bool = False,
    familiar: bool | None = False,
    familiar_alpha: float | None = None,
) -> Verdict:
    """One comparison: ``draw(n)`` gives the incumbent's and the candidate's first ``n``
    validation rollouts. A test with a ``run`` method (the sequential one) draws look by
    look, and may drop a ``familiar`` edit sooner (``None``: the test decides it from the
    first look's answers, testing a familiar one at ``familiar_alpha``;
    ``night.sequential``); any other is the fixed-sample test on all ``max_pairs``."""
    run = getattr(test, "run", None)
    if run is not None:
        verdict: Verdict = run(draw, max_pairs=max_pairs, metric=metric, alpha=alpha,
                               margin=margin, no_regression=no_regression, familiar=familiar,
                               familiar_alpha=familiar_alpha)
        return verdict
    incumbent, candidate = draw(max_pairs)
    return decide(incumbent, candidate, metric=metric, alpha=alpha, margin=margin, test=test,
                  no_regression=no_regression)


def _pairs(
    incumbent: Sequence[Rollout], candidate: Sequence[Rollout]
) -> list[tuple[Rollout, Rollout]]:
    base = {(r.task_id, r.sample): r for r in incumbent if r.usable}
    return [
        (base[(r.task_id, r.sample)], r)
        for r in candidate
        if r.usable and (r.task_id, r.sample) in base
    ]
