"""How noisy the target's answers are, read from the train split before the night's first gate,
and how many samples a comparison's lead may draw because of it.

*The probe: an A/A comparison on train.* The first step's train minibatch is drawn anyway
for reflection. Its tasks are replayed once more (the same sample numbers) with the
incumbent's *twin*: the same text and one more line break, which states nothing new. Every
difference between the two answers of a pair is the noise a gate's pair sees when a skill
changes without changing what it says. It is counted where a rule could gain: the checks a
rules judge names in both answers' rationales, over the checks the incumbent's answers
failed (``flips``); for a judge that names no checks, the mean absolute change of the
metric over the incumbent's room to gain (1 − its score). Only train tasks are drawn: the
gate's validation pairs and the test split are never read, so nothing about a comparison's
signs goes into how many pairs it may draw, and the sequential test's error rates stand as
they are (the lead's depth is fixed before the first validation answer).

*Why the noise sets the lead's depth.* On the tasks a correct rule concerns, its pairs are
a mixture of its effect (better) and chance flips (a fair coin each way). Where flips are
frequent next to the effect, a comparison needs many more pairs there before the sign test
can tell the rule from a coin; the tasks it does not concern give ties and coin flips
wherever they are drawn, so the extra samples go to the lead alone (``night.scoring``).
A deeper lead costs a quiet target's comparisons pairs without buying it anything (its
rules are decided within a few pairs), so a quiet night keeps the plain depth and pays only
the probe.

Shipped personas' flips per failed check (seeds 0–11, the first skill, 8 train tasks):
programmer 0.09, devops 0.13, supply-chain 0.13, platform 0.13, researcher 0.16,
analyst 0.22 on average, and the hard persona ``oncall`` 0.39.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.usage import failed_checks
from skillopt_sleep.records import Rollout
from skillopt_sleep.skilldoc import SkillDoc, parse

__all__ = ["Noise", "lead_depth", "measure", "twin"]


@dataclass(frozen=True)
class Noise:
    """What the A/A probe saw: ``changed`` (checks that differ, or the summed absolute change
    of the metric) over ``room`` (checks the incumbent failed, or its summed 1 − score), on
    ``pairs`` train pairs."""

    changed: float
    room: float
    pairs: int

    @property
    def ratio(self) -> float:
        return self.changed / self.room if self.room > 0 else 0.0


def twin(doc: SkillDoc) -> SkillDoc:
    """``doc`` with one more line break: the same instructions, another prompt."""
    return parse(doc.text + "\n")


def measure(scorer: Scorer, doc: SkillDoc, train: Sequence[Rollout], metric: str,
            size: int) -> Noise:
    """The A/A probe on at most ``size`` of the train rollouts ``train`` (``doc``'s answers,
    drawn before): their tasks replayed with ``twin(doc)`` at the same samples."""
    base = [r for r in train if r.usable][:size]
    by_id = {t.id: t for t in scorer.splits.get("train", [])}
    base = [r for r in base if r.task_id in by_id]
    other = scorer.tasks(twin(doc), [(by_id[r.task_id], r.sample) for r in base])
    pairs = [(a, b) for a, b in zip(base, other, strict=True) if b.usable]
    checks = [(len(by_id[a.task_id].judge.checks), failed_checks([a.score.rationale]),
               failed_checks([b.score.rationale])) for a, b in pairs]
    if any(f or g for _, f, g in checks):
        return Noise(float(sum(len(f ^ g) for _, f, g in checks)),
                     float(sum(n for n, _, _ in checks)), len(pairs))
    scores = [(a.score.metric(metric), b.score.metric(metric)) for a, b in pairs]
    return Noise(sum(abs(x - y) for x, y in scores), sum(1 - x for x, _ in scores), len(pairs))


def lead_depth(noise: Noise, repeats: int, cfg: NightConfig) -> int:
    """Samples of each lead task a comparison may draw: ``noisy_lead`` times ``repeats``
    when the probe's ratio is at least ``noisy_flips``, else ``repeats``."""
    if cfg.noisy_flips > 0 and noise.pairs and noise.ratio >= cfg.noisy_flips:
        return max(repeats, round(cfg.noisy_lead * repeats))
    return repeats
