"""The sequential gate: the exact sign test, looked at every few pairs, with α spent over the
looks so that a comparison stops as soon as it is decided.

*What is tested.* Among the non-zero paired deltas, H0 "P(candidate better) ≤ 1/2" against
"> 1/2", one-sided — the fixed gate's sign test. Under H0's boundary case every non-zero
pair's sign is a fair coin, whatever the tasks, so given how many pairs were non-zero by
each look, the count of positive pairs is a simple random walk whose law is known exactly.

*Looks.* Pairs are drawn in rounds over the validation tasks (every task's first sample,
then every task's second …) up to ``val_repeats`` samples of each, ``N`` pairs in all; in
each round the tasks the edit touches come first (``night.scoring``: an order fixed by the
edit's words before any answer, so the null law below holds as it is). The test looks after
every ``look_pairs`` (3) of them and at ``N``.

*Spending α.* By look ``k`` (``n_k`` pairs drawn, information fraction ``t_k = n_k / N``) at
most ``α(t_k) = alpha · t_k^ρ`` may have been spent, ρ = ``spending`` (0.75): the Lan–DeMets
construction with a Pocock-like shape, so a strong edit can stop early. The boundary at each
look is computed exactly: the walk's distribution over the paths that have not crossed yet
is carried from look to look (convolved with the binomial law of the look's new non-zero
pairs), and the boundary is the smallest count of positives whose crossing probability,
added to what earlier looks spent, stays within ``α(t_k)``. A look may spend less than its
share (the walk is discrete); the rest carries over. So over all looks, a candidate that is
not better is accepted with probability at most ``alpha`` — exactly, not by a union bound.
The reported p-value is the stage-wise one: what earlier looks spent plus the chance of at
least this many positives at this look on a path that had not crossed; accept iff it is at
most ``α(t_k)`` and the mean delta exceeds the margin.

*Dropping early.* A look may drop a candidate (never accept it): at any look a clearly
harmful one (mean delta ≤ −``harm``, 0.05, and the sign test of "the candidate is worse"
at ``harm_p``, 0.25 — at least two negative pairs, so one unlucky pair does not end it);
from ``screen_pairs`` (6) pairs on a *useless* one, no more pairs better than worse (the
test's own statistic, not the mean: one lucky incumbent answer scored 1.0 against every
candidate's 0 would sink every mean of the night's first look), or one whose conditional
power is below ``curtail`` (0.1) —
the chance, were its observed rate of positives and of non-zero pairs to go on, that the
fixed sign test at ``alpha`` would pass at ``N`` pairs. Drops are non-binding: the
boundaries are computed as if the comparison went on, so dropping can only lower the
false-accept rate; it costs power on near-misses, which the gate study measures.

*Familiar edits.* An edit whose first look's pairs do not differ at all (at most ``quiet``,
0, of them) — on the tasks its evidence points at, which lead (``night.scoring``) — is
*familiar*: it changed nothing where it claims to act. It is tested at ``familiar_alpha``
(0.01) instead of ``alpha`` and screened from the first look (``familiar_screen_pairs``, 3)
instead of the second, so with ``quiet`` 0 it is dropped there (no pair better than worse).
This is read before the first look spends anything, from *which* pairs differ, never from
their signs. Why α still holds: under H0 every non-zero pair's sign is a fair coin whatever
pairs are non-zero, so given the first look's pattern of zero and non-zero pairs the walk
has exactly the law its boundaries assume, and each branch is the exact test at its own
level; P(accept) = Σ P(branch) · P(accept | branch) ≤ max(``alpha``, ``familiar_alpha``) =
``alpha``, and drops only lower it. (A sign-dependent choice, such as "familiar if the
first look is no better", would break this.) ``tests/test_gate_screen.py`` checks each
branch's rate under the null against its level.

The earlier rule read familiarity from words (``screen = "words"``, kept as an option): an
edit whose words of what the validation tasks are judged on one line of the skill holds
already, or that has none (``usage.novel``). It sorted the simulator's edits almost
perfectly only because every correct wording there held a checked word and no neutral text
did; with correct rules worded otherwise it tested them at 0.01 on tasks they did not
touch, and lost most of their lift (``docs/gate.md``, the words-differ study).

*Across the night.* Each comparison is its own test at ``alpha`` (``familiar_alpha`` for a
familiar edit; a per-comparison rate, as with the fixed gate): a night of M comparisons of
edits that do not help lets in at most α·M of them in expectation; the gate study measures
the realised rate (neutral false accepts). An accepted edit's pairs stay the incumbent's for
the next comparisons: they are biased upward by the win, so the next candidate's deltas are
biased downward. That can only cost power, never let a candidate in (an accepted edit's own
luck cannot make the next test easier), and it saves replaying the incumbent after every
accept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import binom

from skillopt_sleep.night.gate import Comparison, Verdict, paired, sign_test, verdict
from skillopt_sleep.records import Rollout

Draw = Callable[[int], tuple[Sequence[Rollout], Sequence[Rollout]]]
"""``draw(n)``: the incumbent's and the candidate's first ``n`` validation rollouts."""


@dataclass
class Walk:
    """The law of the count of positive pairs under H0, over the paths that have not
    crossed a boundary yet: ``surviving[s]`` is the probability of ``s`` positives among
    the ``nonzero`` pairs so far, with no earlier crossing."""

    surviving: np.ndarray = field(default_factory=lambda: np.ones(1))
    nonzero: int = 0
    spent: float = 0.0

    def extend(self, nonzero: int) -> None:
        """Carry the walk to ``nonzero`` non-zero pairs (each new one a fair coin)."""
        new = nonzero - self.nonzero
        if new > 0:
            self.surviving = np.convolve(self.surviving, binom.pmf(np.arange(new + 1), new, 0.5))
            self.nonzero = nonzero

    def p_value(self, positives: int) -> float:
        """Stage-wise p: what earlier looks spent, plus at least ``positives`` now."""
        return min(1.0, self.spent + float(self.surviving[positives:].sum()))

    def spend(self, allowed: float) -> None:
        """Close this look: remove the paths at or above its boundary, the lowest count whose
        crossing keeps the total spent within ``allowed``."""
        tails = np.cumsum(self.surviving[::-1])[::-1]  # tails[b] = P(s >= b, not crossed)
        within = np.nonzero(self.spent + tails <= allowed + 1e-15)[0]
        if len(within):
            b = int(within[0])
            self.spent += float(tails[b])
            self.surviving = np.concatenate([self.surviving[:b], np.zeros(len(tails) - b)])


@dataclass(frozen=True)
class SequentialSignTest:
    """The exact sign test at every ``look_pairs`` pairs with α spent as ``alpha · t^ρ``
    over the looks (see the module docstring); drops futile candidates early."""

    name: str = "sequential"
    replays: bool = True
    look_pairs: int = 3
    spending: float = 0.75
    """ρ of the spending function ``alpha · t^ρ`` (1: linear; larger keeps more α for the
    last look, smaller spends it earlier)."""
    screen_pairs: int = 6
    """From this many pairs on, a candidate no more often better than worse, or with little
    conditional power, is dropped (two looks: the touched tasks lead, so a useful edit has
    usually shown by then)."""
    familiar_screen_pairs: int = 3
    """The same for a *familiar* edit (see the module): from the first look."""
    quiet: int = 0
    """Read from the answers (``familiar=None``): an edit is familiar when at most this many
    of its first look's pairs differ (see the module)."""
    harm: float = 0.05
    harm_p: float = 0.25
    """A harmful drop also needs the sign test of "the candidate is worse" at this level, so
    one bad pair among the first few does not end a comparison."""
    curtail: float = 0.1
    """Drop a candidate whose conditional power is below this (0: never)."""
    typical_share: float = 0.24
    """The share of its pairs a comparison typically draws, for estimates (``pipeline.plan``):
    the mean over the four single-skill personas' gated comparisons in a first night on all
    their tasks, seeds 0–9 (0.21 to 0.26 a persona). Later nights draw less (0.19 over the
    proof's three nights, seeds 0–4); a plan is for the night ahead, and the first is the
    one a cap must fit."""

    def p_value(self, deltas: Sequence[float]) -> float:
        """The one-look sign test (for callers that test a fixed sample)."""
        return sign_test(deltas)

    def looks(self, max_pairs: int) -> list[int]:
        return [*range(self.look_pairs, max_pairs, self.look_pairs), max_pairs]

    def allowed(self, pairs: int, max_pairs: int, alpha: float) -> float:
        """α spent by the time ``pairs`` of ``max_pairs`` are drawn."""
        return alpha * min(1.0, pairs / max_pairs) ** self.spending

    def run(self, draw: Draw, *, max_pairs: int, metric: str, alpha: float, margin: float,
            no_regression: bool = False, familiar: bool | None = False,
            familiar_alpha: float | None = None) -> Verdict:
        """The comparison, look by look, until it is decided. ``familiar`` ``None``: the first
        look decides it from how many pairs differ, never from their signs (the module)."""
        screen = self.familiar_screen_pairs if familiar else self.screen_pairs
        walk = Walk()
        points = self.looks(max_pairs)
        for i, n in enumerate(points):
            comp = paired(*draw(n), metric)
            positives = sum(1 for d in comp.deltas if d > 0)
            walk.extend(positives + sum(1 for d in comp.deltas if d < 0))
            if i == 0 and familiar is None and walk.nonzero <= self.quiet:
                # Before this look spends anything: the level holds from the first look on.
                screen = self.familiar_screen_pairs
                alpha = min(alpha, alpha if familiar_alpha is None else familiar_alpha)
            comp = dataclasses.replace(comp, p_value=walk.p_value(positives))
            allowed = self.allowed(n, max_pairs, alpha)
            significant = comp.p_value <= allowed and walk.nonzero > 0
            if (significant and comp.mean_delta > margin) or i == len(points) - 1:
                when = "" if n >= max_pairs else f" after {n} of {max_pairs} pairs"
                return verdict(comp, significant=significant, alpha=alpha, margin=margin,
                               no_regression=no_regression, when=when)
            walk.spend(allowed)
            if (why := self.futile(comp, n, max_pairs, alpha, screen)) is not None:
                return Verdict(False, why, comp)
        raise AssertionError("the last look always decides")

    def futile(self, comp: Comparison, n: int, max_pairs: int, alpha: float,
               screen: int) -> str | None:
        """Why a look drops the candidate (``None``: draw more pairs); the useless and the
        powerless are dropped from ``screen`` pairs on."""
        if comp.mean_delta <= -self.harm and sign_test([-d for d in comp.deltas]) <= self.harm_p:
            return f"dropped as harmful after {n} pairs: mean delta {comp.mean_delta:+.3f}"
        if n < screen:
            return None
        positives = sum(1 for d in comp.deltas if d > 0)
        if positives <= sum(1 for d in comp.deltas if d < 0):
            return (f"dropped as useless after {n} pairs: {positives} better of "
                    f"{sum(1 for d in comp.deltas if d)} that differ")
        power = conditional_power(comp.deltas, max_pairs, alpha)
        if power < self.curtail:
            return (f"dropped after {n} pairs: {power:.0%} chance left of significance "
                    f"(mean delta {comp.mean_delta:+.3f})")
        return None


def conditional_power(deltas: Sequence[float], max_pairs: int, alpha: float) -> float:
    """The chance that the fixed sign test at ``alpha`` passes at ``max_pairs`` pairs, were
    the observed rates (of non-zero pairs, and of positives among them) to go on."""
    n = len(deltas)
    positives = sum(1 for d in deltas if d > 0)
    nonzero = positives + sum(1 for d in deltas if d < 0)
    if not nonzero or n >= max_pairs:
        return float(nonzero > 0 and sign_test(deltas) < alpha)
    more = round((max_pairs - n) * nonzero / n)
    total = nonzero + more
    # The fewest positives among ``total`` non-zero pairs that the fixed test accepts.
    need = next((s for s in range(total + 1) if binom.sf(s - 1, total, 0.5) < alpha), total + 1)
    return float(binom.sf(need - positives - 1, more, positives / nonzero))


SEQUENTIAL = SequentialSignTest()
