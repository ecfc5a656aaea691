"""How noisy the target's answers are, read from the train split before the night's first gate,
and how many samples a comparison's lead may draw because of it.

*The probe: an A/A comparison on train.* The first step's train minibatch is drawn anyway
for reflection. Its tasks are replayed once more (the same sample numbers) with the
incumbent's *twin*: the same text and one more line break, which states nothing new. Every
difference between the two answers of a pair is the noise a gate's pair sees when a skill
changes without changing what it says. It is counted check by check: the share of the
checks a rules judge applies to these tasks whose outcome differs between the two answers
(a rule's gain shows on one check, so this is the noise it must be told from); for a judge
that names no checks, the mean absolute change of the metric over the incumbent's room to
gain (1 − its score). Only train tasks are drawn: the gate's validation pairs and the test
split are never read, so nothing about a comparison's signs goes into how many pairs it
may draw, and the sequential test's error rates stand as they are (the lead's depth is
fixed before the night's first validation answer).

*Paid once.* The noise is the target's, not the skill's: the probe's pairs are carried to
the skill's next night (``carried``, beside the final skill's answers, under the markers
``PROBE``) and read there instead of drawing new ones, so only a skill's first night, or
one whose train tasks changed (``night.carry``'s task keys), pays for the probe.

*Why the noise sets the lead's depth.* On the tasks a correct rule concerns, its pairs are
a mixture of its effect (better) and chance flips (a fair coin each way). Where flips are
frequent next to the effect, a comparison needs many more pairs there before the sign test
can tell the rule from a coin; the tasks it does not concern give ties and coin flips
wherever they are drawn, so the extra samples go to the lead alone (``night.scoring``).
A deeper lead costs a quiet target's comparisons pairs without buying it anything (its
rules are decided within a few pairs), so a quiet night keeps the plain depth and pays only
the probe.

The share of checks that flip, every night's probe of three nights over seeds 0–11 (36
probes a persona, at ``88d0f64``): median 0.06 to 0.09 for the shipped one-skill personas
(programmer, devops, researcher 0.06–0.07; analyst 0.09), 0.155 for the hard persona
``oncall``. One probe of 8 tasks is noisy: at the threshold 0.12, 30 of oncall's 36 nights
count as noisy, and 10 of analyst's, 5 of devops's, 4 of researcher's, 2 of programmer's,
which pay for a deeper lead they do not need. The probe itself costs ``noise_probe``
replays, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from skillopt_sleep.night.carry import task_key
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.usage import failed_checks
from skillopt_sleep.records import Rollout, Task
from skillopt_sleep.skilldoc import SkillDoc, parse

__all__ = ["PROBE", "Noise", "carried", "lead_depth", "measure", "twin"]

PROBE = ("noise-probe:incumbent", "noise-probe:twin")
"""The skill hashes the probe's pairs are held and carried under: not a skill's, so no
comparison or report ever reads them as one."""


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
    """The A/A probe: the pairs held from an earlier night if there are ``size`` of them,
    else at most ``size`` of the train rollouts ``train`` (``doc``'s answers, drawn
    before), their tasks replayed with ``twin(doc)`` at the same samples."""
    by_id = {t.id: t for t in scorer.splits.get("train", [])}
    pairs = held(scorer, by_id)
    if len(pairs) < size:
        base = [r for r in train if r.usable and r.task_id in by_id][:size]
        other = scorer.tasks(twin(doc), [(by_id[r.task_id], r.sample) for r in base])
        pairs = [(a, b) for a, b in zip(base, other, strict=True) if b.usable]
        scorer.preload([replace(r, skill_hash=h) for a, b in pairs
                        for h, r in zip(PROBE, (a, b), strict=True)])
    return flips(pairs, by_id, metric)


def held(scorer: Scorer, by_id: dict[str, Task]) -> list[tuple[Rollout, Rollout]]:
    """The probe's pairs ``scorer`` holds (carried from an earlier night) on ``by_id``."""
    mine, twins = ({(r.task_id, r.sample): r for r in scorer.rollouts_of(h)} for h in PROBE)
    return [(r, twins[k]) for k, r in sorted(mine.items()) if k in twins and k[0] in by_id]


def flips(pairs: Sequence[tuple[Rollout, Rollout]], by_id: dict[str, Task],
          metric: str) -> Noise:
    """What differs between the two answers of each pair (see the module)."""
    checks = [(len(by_id[a.task_id].judge.checks), failed_checks([a.score.rationale]),
               failed_checks([b.score.rationale])) for a, b in pairs]
    if any(f or g for _, f, g in checks):
        return Noise(float(sum(len(f ^ g) for _, f, g in checks)),
                     float(sum(n for n, _, _ in checks)), len(pairs))
    scores = [(a.score.metric(metric), b.score.metric(metric)) for a, b in pairs]
    return Noise(sum(abs(x - y) for x, y in scores), sum(1 - x for x, _ in scores), len(pairs))


def carried(scorer: Scorer, tasks: Sequence[Task]) -> list[tuple[str, Rollout]]:
    """``(task_key, rollout)`` of the probe's pairs, for the skill's next night."""
    by_id = {t.id: t for t in tasks}
    return [(task_key(by_id[r.task_id]), r) for h in PROBE for r in scorer.rollouts_of(h)
            if r.usable and r.task_id in by_id]


def lead_depth(noise: Noise, repeats: int, cfg: NightConfig) -> int:
    """Samples of each lead task a comparison may draw: ``noisy_lead`` times ``repeats``
    when the probe's ratio is at least ``noisy_flips``, else ``repeats``."""
    if cfg.noisy_flips > 0 and noise.pairs and noise.ratio >= cfg.noisy_flips:
        return max(repeats, round(cfg.noisy_lead * repeats))
    return repeats
