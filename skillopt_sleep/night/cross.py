"""Cross-skill non-regression: an edit for one skill must not hurt the skills loaded beside it.

A night improves one skill against that skill's own tasks; the agent, though, loads several
skills at once, and two of them can contradict each other ("never touch the release
files" beside "always add a changelog entry"). So before an edit the gate accepted is kept,
every *neighbour* (another skill that shares families with this one or is routinely loaded
in the same sessions; the caller chooses them) answers a sample of its own tasks (train
and validation: held out from this skill) twice, with the incumbent loaded beside it and
with the candidate loaded beside it.

Which of the neighbour's tasks (``focus``): a harm lands where the edit speaks about what
the neighbour's tasks are judged on ("never touch CHANGELOG.md" against a task checked for
a "Changelog entry:" line), and a sample drawn blind can miss every such task, or dilute
the few it holds with tasks the edit cannot touch. So each edit gets its own sample of
``size`` tasks: first the tasks the edit *touches* (the edit shares a distinctive word
with what the task is judged on: ``usage.touched``, as for an entry's use), then the
rest; each group spread over the neighbour's families in turn (one task per family before
a second from any), in an order seeded per neighbour. The choice depends on the edit's
words alone, never on an answer, so the test's error rates below stand as they are.

The pairs (task, sample) go through the gate's own paired statistics, one-sided the other
way: the edit is rejected when the neighbour is significantly worse with the candidate
(the gate's test at the gate's ``alpha``, mean delta below ``-margin``). Every such
rejection is a ``Contradiction``, reported and never resolved by the night on its own.

Before the replay, the optimizer reads a new edit beside the neighbours' documents
(``night.contradict``): a harm that is still latent tonight is often plain in the text
("never touch CHANGELOG.md" beside a skill that asks for changelog updates). A grounded
flag (it quotes the neighbour's document) holds the edit back as a contradiction with that
quote, without a replay; no flag leaves the edit to the replay.

A harm can also be latent when an edit is accepted: "never touch the release files" costs
the release-notes skill nothing until that skill has learned to add a changelog entry. So
when a neighbour changed (or joined) since the skill's last night, the night first
re-checks each of the skill's own entries against that neighbour the same way
(``withdraw``: the neighbour with the skill as it is against the skill without that entry);
an entry that now significantly lowers it is withdrawn from the proposal, and the
contradiction reported with it. The neighbours that did not change need no re-check: each
entry was checked against them when it was accepted, and only they could have moved. When
the skill's own document is not what its last night left (a rollback, a hand edit), every
neighbour is re-checked (``changed``).

The check is sequential, in looks at the same tasks (each reusing the samples drawn
before it):

1. *The screen*: one sample of each task (``SCREEN``). Most edits leave a neighbour's
   answers as they were, and a pair that ties says nothing either way; when no more pairs
   are worse with the candidate than better (``leans_worse``), the check ends there: no
   drop. It tests nothing, so it can only end a check that a later look might have turned
   into a rejection: it costs power against harm, never a wrongly held edit. Measured with
   the text checks off, the replays alone (``cross_skill_study.py --replays-only --seeds
   20``): cross-rule rejections 24 with the screen and 24 without (``SCREEN = 3``, the
   same as none) on the maintainer persona, 37 and 38 on the two-skill one, with the same
   accepts (1 and 0); the maintainer's night calls fell by about a fifth. While
   ``val_repeats`` is more, one sample more of each task at a time (``screens``), each
   ending the check the same way.
2. ``val_repeats`` samples of each task, the drop tested at ``alpha``.
3. "Not significant" is no evidence of "no harm", and a latent harm shows first as a drop
   the first samples cannot tell from noise. When the neighbour reads worse with the
   candidate (mean delta below ``-margin``) but the drop's p-value falls in the grey zone
   (``alpha`` ≤ p < ``GREY_P``), the neighbour answers ``EXTEND`` times as many samples and
   the drop is tested again at ``alpha`` on all the pairs; half way there first, a screen
   again (the check ends when the drop is gone or no more pairs are worse than better).

Two tests at ``alpha`` each: a harmless edit is wrongly held back by the replay of one
neighbour with probability at most ``2·alpha``, by one of ``k`` neighbours at most
``2·k·alpha``, which costs lift, never safety. The text
check adds the optimizer's own false-flag rate, which no ``alpha`` bounds (also lift, never
safety; each flag is reported with its quote). The re-check of ``withdraw`` replays only:
an entry stays unless a neighbour does significantly worse with it. Every neighbour is
replayed whatever the edit's words: a contradiction need not share a word with what the
neighbour's tasks are judged on ("leave the release files untouched" against a task
checked for a changelog entry).

What "loaded together" means for the target: both documents in its system prompt, each in
its own ``<skill>`` block, the neighbour's first (``together``). The rollouts of one
combination are drawn once and reused (the incumbent's by every candidate of the night).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Literal

from skillopt_sleep.models.base import LLM
from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.contradict import contradictions, read_flags
from skillopt_sleep.night.replay import JudgeFor, replay_jobs
from skillopt_sleep.night.usage import touched
from skillopt_sleep.records import Contradiction, Edit, GateDecision, Rollout, Task, sha256_text
from skillopt_sleep.skilldoc import SkillDoc, apply_edit

SCREEN = 1
"""The first look's samples per task; a neighbour that answers no more often worse than
better there is not tested further."""
PAST_SCREENS = (0.42, 0.32)
"""The shares of checks that go past the first screen and past the second, for estimates
(``pipeline.plan``; a later screen counts as the second): 22 and 17 of the 53 night's-end
checks of the maintainer persona's proofs, seeds 0–4."""
GREY_P = 0.25
"""A drop's p-value below this (and not below ``alpha``) earns the check its grey-zone look."""
EXTEND = 3
"""The grey-zone look's samples per task, as a multiple of ``val_repeats``."""

__all__ = ["CrossCheck", "Neighbour", "changed", "describe", "dropped", "focus",
           "leans_worse", "no_drop", "rejection", "screens", "seen", "together",
           "typical_samples", "withdraw"]


@dataclass(frozen=True)
class Neighbour:
    """Another skill loaded beside the one a night trains."""

    skill: str
    text: str
    """Its live document."""
    tasks: tuple[Task, ...]
    """Its own tasks that this skill never trained on (its train and validation splits; its
    test split stays for the figures): the pool each check samples from (``focus``)."""
    why: str = ""
    """Why it is a neighbour ("shares families", "loaded together in 5 sessions")."""


def seen(neighbours: Sequence[Neighbour], skill: str = "", text: str = "") -> dict[str, str]:
    """What a night saw of its neighbours (and, given ``skill``, of the skill's own document
    at the night's start): each one's document hash, by skill."""
    got = {n.skill: sha256_text(n.text)[:16] for n in neighbours}
    if skill:
        got[skill] = sha256_text(text)[:16]
    return got


def changed(before: dict[str, str] | None, now: Sequence[Neighbour], skill: str = "",
            text: str = "") -> tuple[str, ...]:
    """The neighbours a skill's entries are re-checked against (``withdraw``): the ones that
    changed or joined since a night that saw ``before``; every one when (given ``skill``)
    the skill's document ``text`` is not the one that night left. ``None``: the skill's
    first night, nothing to re-check."""
    if before is None:
        return ()
    if skill and before.get(skill) != sha256_text(text)[:16]:
        return tuple(n.skill for n in now)
    return tuple(k for k, v in seen(now).items() if before.get(k) != v)


def together(own: str, other: str) -> str:
    """The context the target reads with ``other`` loaded beside ``own``: each document in
    its own ``<skill>`` block (the replay prompt wraps the whole in one), ``other`` first."""
    return f"{other.rstrip()}\n</skill>\n<skill>\n{own.rstrip()}\n"


def dropped(
    before: Sequence[Rollout], after: Sequence[Rollout], *, cfg: NightConfig, test: gate.GateTest
) -> gate.Verdict:
    """Is ``after`` significantly worse than ``before``? The gate's paired test with the two
    sides swapped: ``accepted`` means a significant drop beyond ``cfg.margin``. The
    comparison is reported the right way round (candidate = ``after``)."""
    verdict = gate.decide(after, before, metric=cfg.metric, alpha=cfg.alpha,
                          margin=cfg.margin, test=test)
    c = verdict.comparison
    flipped = dataclasses.replace(
        c, mean_delta=-c.mean_delta, incumbent=c.candidate, candidate=c.incumbent,
        task_deltas={t: -d for t, d in c.task_deltas.items()},
        deltas=tuple(-d for d in c.deltas))
    reason = (f"significantly worse: {flipped.mean_delta:+.3f} over {c.n_pairs} pairs "
              f"(p = {c.p_value:.3f})" if verdict.accepted else
              f"no significant drop: {flipped.mean_delta:+.3f} over {c.n_pairs} pairs")
    return dataclasses.replace(verdict, comparison=flipped, reason=reason)


def typical_samples(val_repeats: int) -> float:
    """The samples per task and side a typical check draws before any grey-zone look: the
    screens', and one more for each share of checks that goes past a screen."""
    past = [PAST_SCREENS[min(i, len(PAST_SCREENS) - 1)] for i in range(len(screens(val_repeats)))]
    return SCREEN + sum(past)


def screens(val_repeats: int) -> list[int]:
    """The samples per task of the looks that can only end a check (``SCREEN``, then one
    sample more at a time) before the test on ``val_repeats``."""
    return list(range(SCREEN, val_repeats))


def no_drop(verdict: gate.Verdict) -> gate.Verdict:
    """A screen's end: no drop, whatever its pairs would test (a screen tests nothing)."""
    if not verdict.accepted:
        return verdict
    return dataclasses.replace(verdict, accepted=False,
                               reason=verdict.reason.replace("significantly worse",
                                                             "screened out"))


def leans_worse(deltas: Sequence[float]) -> bool:
    """More pairs worse with the candidate than better: a drop is worth more samples."""
    return sum(d < 0 for d in deltas) > sum(d > 0 for d in deltas)


def _spread(tasks: Sequence[Task], rng: random.Random) -> list[Task]:
    """``tasks`` one family at a time: a task of every family before a second of any."""
    families: dict[str, list[Task]] = {}
    for t in sorted(tasks, key=lambda t: t.id):
        families.setdefault(t.family_id, []).append(t)
    order = sorted(families)
    rng.shuffle(order)
    for fam in order:
        rng.shuffle(families[fam])
    depth = max((len(v) for v in families.values()), default=0)
    return [families[f][i] for i in range(depth) for f in order if i < len(families[f])]


def focus(n: Neighbour, edit_text: str, size: int, seed: int = 0) -> tuple[Task, ...]:
    """``size`` of the neighbour's tasks for an edit reading ``edit_text``: the ones it
    touches first (see the module)."""
    near = touched(edit_text, n.tasks)
    hit = {t.id for t in near}
    rest = [t for t in n.tasks if t.id not in hit]
    rng = random.Random(f"{seed}:{n.skill}")
    return tuple((_spread(near, rng) + _spread(rest, rng))[:size])


def describe(c: Contradiction) -> str:
    """One contradiction in words: the quote it contradicts, or the drop it caused."""
    if c.quote and c.own:
        return (f"forbids a demand its tasks are judged on: \"{c.quote}\" "
                f"({c.why or 'no reason given'})")
    if c.quote:
        return f"contradicts {c.other_skill}'s \"{c.quote}\" ({c.why or 'no reason given'})"
    return (f"lowers {c.other_skill} loaded beside it by {c.mean_delta:+.3f} over "
            f"{c.n_pairs} pairs (p = {c.p_value:.3f})")


def rejection(verdict: gate.Verdict, found: Sequence[Contradiction]) -> gate.Verdict:
    """The gate's acceptance turned into a rejection by what the cross check found."""
    worst = min(found, key=lambda c: (not c.quote, c.mean_delta))
    return dataclasses.replace(verdict, accepted=False,
                               reason=f"{describe(worst)}; own gate: {verdict.reason}")


class CrossCheck:
    """Replays each neighbour's tasks with a candidate loaded beside it (see the module)."""

    def __init__(self, skill: str, neighbours: Sequence[Neighbour], target: LLM,
                 judge_for: JudgeFor, cfg: NightConfig, executor: Executor, *,
                 reader: LLM | None = None, size: int = 12, seed: int = 0):
        self.skill = skill
        self.reader = reader
        """The optimizer, for the text-level check (``night.contradict``); None: none."""
        self.notes: list[str] = []
        self.size = size
        """How many of a neighbour's tasks one check replays (``focus``)."""
        self.seed = seed
        self.neighbours = [n for n in neighbours if n.tasks and n.skill != skill]
        self.target = target
        self.judge_for = judge_for
        self.cfg = cfg
        self.executor = executor
        self.test = gate.gate_test(cfg.gate_test)
        self._drawn: dict[tuple[str, str, int], Rollout] = {}
        self.found: list[Contradiction] = []
        """Contradictions ``withdraw`` found (``check`` returns its own)."""

    def __bool__(self) -> bool:
        return bool(self.neighbours) and self.test.replays

    def check(self, incumbent: str, candidate: str, edit: Edit, *, read: bool = True,
              only: Sequence[str] | None = None, replay: bool = True) -> list[Contradiction]:
        """The neighbours (of ``only``, if given) ``candidate`` (replacing ``incumbent``)
        hurts; empty: none. With ``read``, the optimizer reads the edit beside their
        documents first, and a grounded flag holds it back without a replay
        (``night.contradict``); without ``replay``, that read is all (the night's end
        replays: ``settle``)."""
        if read and self.reader is not None and self:
            flags = read_flags(self.reader, self.skill, edit,
                               {n.skill: n.text for n in self.neighbours}, self.seed,
                               self.notes)
            if flags:
                return contradictions(self.skill, edit, flags)
        if not replay:
            return []
        found = []
        words = f"{edit.text} {edit.anchor}"
        for n in self.neighbours if self else ():
            if only is not None and n.skill not in only:
                continue
            verdict = self._verdict(n, words, incumbent, candidate)
            if verdict.accepted:
                c = verdict.comparison
                found.append(Contradiction(
                    skill=self.skill, other_skill=n.skill, edit=edit, mean_delta=c.mean_delta,
                    p_value=c.p_value, n_pairs=c.n_pairs, before=c.incumbent,
                    after=c.candidate, task_deltas=c.task_deltas))
        return found

    def _verdict(self, n: Neighbour, words: str, incumbent: str, candidate: str
                 ) -> gate.Verdict:
        """The drop test for one neighbour, look by look (see the module)."""
        tasks = focus(n, words, self.size, self.seed)
        margin, reps = self.cfg.margin, self.cfg.val_repeats
        for repeats in screens(reps):
            verdict = self._look(n, tasks, incumbent, candidate, repeats)
            if not leans_worse(verdict.comparison.deltas):
                return no_drop(verdict)
        verdict = self._look(n, tasks, incumbent, candidate, reps)
        c = verdict.comparison
        if verdict.accepted or c.mean_delta >= -margin or c.p_value >= GREY_P:
            return verdict
        # The grey zone: half way first, a screen like the first looks; then the test.
        half = self._look(n, tasks, incumbent, candidate, (EXTEND + 1) * reps // 2)
        if half.comparison.mean_delta >= -margin or not leans_worse(half.comparison.deltas):
            return no_drop(half)
        return self._look(n, tasks, incumbent, candidate, EXTEND * reps)

    def _look(self, n: Neighbour, tasks: Sequence[Task], incumbent: str, candidate: str,
              repeats: int) -> gate.Verdict:
        """The drop test on ``repeats`` samples of each of ``tasks``."""
        before = self._rollouts(tasks, together(incumbent, n.text), repeats)
        after = self._rollouts(tasks, together(candidate, n.text), repeats)
        return dropped(before, after, cfg=self.cfg, test=self.test)

    def _rollouts(self, tasks: Sequence[Task], context: str, repeats: int) -> list[Rollout]:
        key = sha256_text(context)
        jobs = [(t, s) for s in range(repeats) for t in tasks]
        missing = [(t, s) for t, s in jobs if (key, t.id, s) not in self._drawn]
        if missing:
            drawn = replay_jobs(missing, context, self.target, executor=self.executor,
                                judge_for=self.judge_for, max_tokens=self.cfg.max_tokens,
                                temperature=self.cfg.temperature,
                                window=self.cfg.concurrency)
            for (t, s), rollout in zip(missing, drawn, strict=True):
                self._drawn[(key, t.id, s)] = rollout
        return [self._drawn[(key, t.id, s)] for t, s in jobs]


def withdraw(check: CrossCheck, doc: SkillDoc, against: Sequence[str]
             ) -> tuple[SkillDoc, list[GateDecision]]:
    """``doc`` without the entries that now lower one of the neighbours ``against``, and one
    decision per entry withdrawn (their contradictions are ``check``'s to report; see the
    module)."""
    decisions = []
    regions: tuple[Literal["learned", "slow"], ...] = ("learned", "slow")
    for region in regions if check and against else ():
        for entry in doc.entries(region):
            gone = Edit(op="delete", anchor=entry, region=region, origin="retire",
                        rationale="lowers a skill loaded beside it")
            without, outcome = apply_edit(doc, gone, allow_slow=region == "slow")
            if outcome.value != "applied":
                continue
            found = check.check(without.text, doc.text,
                                Edit(op="append", text=entry, region=region), read=False,
                                only=against)
            if found:
                worst = min(found, key=lambda c: c.mean_delta)
                decisions.append(GateDecision(
                    gone, True, f"withdrawn: {describe(worst)}", stage="cross",
                    mean_delta=worst.mean_delta, p_value=worst.p_value, n_pairs=worst.n_pairs))
                check.found.extend(found)
                doc = without
    return doc, decisions

