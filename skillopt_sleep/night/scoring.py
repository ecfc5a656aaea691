"""Scoring for one night: each skill's rollouts drawn once, through the night's executor.

Rollouts are cached by (skill hash, task, sample), so the incumbent is never re-run:
every candidate of a step is compared with the same incumbent rollouts. Validation pairs
are drawn lazily in rounds (every task's first sample, then every task's second …) so that
a sequential gate can stop after a few pairs and a later comparison that needs more extends
the same list. The tasks an edit *touches* come first (``lead``): those judged by the check
the answers it cites failed (``usage.evidenced``: what it claims to fix, whatever its
words), then those it shares a distinctive word with what they are judged on
(``usage.touched``): every sample of them a comparison may draw, in rounds among
themselves, then the other tasks in rounds. A task
the edit cannot touch gives a tie or a coin flip, so a sequential test decides on the
pairs that carry its evidence: an accepted edit's comparison took 13.6 pairs where, with
the touched tasks first only within each round, it took 22.3 (analyst, seeds 0–9; the
gate study in the README). The order depends only on the tasks, the edit's words and
citations (and the train answers it cites), the sample numbers, never on a validation
answer or the executor, so the test's error rates stand and a night is the same at any
concurrency. An edit that helps the tasks it touches can so be
accepted before any task it does not touch is drawn: a harm it does there is left to the
own look (``night.demands``), which reads it against every demand of the skill's tasks, and
to the night's last look (``night.whole``), which scores every validation task once with
the skill the night ends with.

A comparison's winner keeps its pairs as the new incumbent's (``won``): they are biased
upward by the win, which can only make the next candidate's test harder, never easier, and
saves replaying the incumbent after every accept. What is *reported* of a skill's
validation score (``drawn``) and what is carried to the next night leave them out.

Train tasks are scored one minibatch at a time (``minibatch``): only the tasks reflection
will read this step, each rollout cached by (skill hash, task, sample) so an unchanged
incumbent is never replayed on a task it already answered.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import Executor

from skillopt_sleep.models.base import LLM
from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.replay import JudgeFor, replay_jobs
from skillopt_sleep.night.usage import evidenced, failed_checks, novel, touched
from skillopt_sleep.records import Rollout, Split, Task
from skillopt_sleep.skilldoc import SkillDoc


class Scorer:
    """Replays tasks with a skill in context, once per (split, skill, sample)."""

    def __init__(
        self,
        splits: dict[str, list[Task]],
        target: LLM,
        judge_for: JudgeFor,
        config: NightConfig,
        executor: Executor,
    ):
        self.splits = splits
        self.target = target
        self.judge_for = judge_for
        self.cfg = config
        self.executor = executor
        self._by_task: dict[tuple[str, str, int], Rollout] = {}
        self.won: set[tuple[str, str, int]] = set()
        """(skill hash, task, sample) of the pairs a skill won its gate on (see the module)."""

    def pairs(self, split: str, doc: SkillDoc, first: int, n: int,
              lead: Sequence[Task] = (), repeats: int = 0, lead_repeats: int = 0
              ) -> list[Rollout]:
        """The first ``n`` rollouts of ``doc`` on ``split`` in rounds, samples numbered from
        ``first`` (``lead``'s ``lead_repeats`` samples first, or ``repeats``); drawn only as
        far as not drawn before."""
        return self.tasks(doc, self._order(split, first, n, lead, repeats, lead_repeats))

    def rounds(self, split: str, doc: SkillDoc, repeats: int, first: int = 0) -> list[Rollout]:
        """``repeats`` samples of every task of ``split`` (round-robin order)."""
        return self.pairs(split, doc, first, repeats * len(self.splits[split]))

    def drawn(self, split: str, doc: SkillDoc, first: int = 0) -> list[Rollout]:
        """``doc``'s answers on ``split`` drawn so far from sample ``first`` on, in rounds,
        without the pairs it won its gate on (nothing new is drawn)."""
        order = {t.id: i for i, t in enumerate(self.splits[split])}
        held = [(s, order[t], r) for (h, t, s), r in self._by_task.items()
                if h == doc.hash and t in order and s >= first and (h, t, s) not in self.won]
        return [r for _, _, r in sorted(held, key=lambda x: (x[0], x[1]))]

    def compare(self, test: gate.GateTest, incumbent: SkillDoc, candidate: SkillDoc,
                first: int, repeats: int, words: str = "", cited: Sequence[str] = (),
                adds: str | None = None, lead_repeats: int = 0) -> gate.Verdict:
        """The gate on validation: pairs (samples from ``first``, at most ``repeats`` of each
        task) drawn look by look until ``test`` decides or the pairs run out. The tasks the
        edit's evidence points at lead (``lead``), then any other its ``words`` touch.

        Which edit is *familiar* (tested at ``familiar_alpha``, screened from the first
        look; ``night.sequential``) is decided by ``screen``: ``behaviour`` (the default), by
        whether its first look's pairs differ at all, which the sequential test reads
        itself; ``words``, by its added text ``adds`` (``usage.novel``: no word of what the
        tasks are judged on, or only words one line of ``incumbent`` holds together)."""
        val, cfg = Split.VALIDATION.value, self.cfg
        lead = self.lead(incumbent, cited, words)
        familiar: bool | None = None
        if cfg.screen == "words":
            familiar = adds is not None and not novel(adds, incumbent.text, self.splits[val])
        alpha = min(cfg.alpha, cfg.familiar_alpha) if familiar else cfg.alpha

        more = max(0, lead_repeats - repeats) * len(lead)

        def draw(n: int) -> tuple[list[Rollout], list[Rollout]]:
            return (self.pairs(val, incumbent, first, n, lead, repeats, lead_repeats),
                    self.pairs(val, candidate, first, n, lead, repeats, lead_repeats))

        verdict = gate.compare(test, draw, max_pairs=repeats * len(self.splits[val]) + more,
                               metric=cfg.metric, alpha=alpha, margin=cfg.margin,
                               no_regression=cfg.no_regression, familiar=familiar,
                               familiar_alpha=min(cfg.alpha, cfg.familiar_alpha))
        if verdict.accepted:
            pairs = self._order(val, first, verdict.comparison.n_pairs, lead, repeats,
                                lead_repeats)
            self.won.update((candidate.hash, t.id, s) for t, s in pairs)
        return verdict

    def lead(self, incumbent: SkillDoc, cited: Sequence[str], words: str) -> list[Task]:
        """The validation tasks a comparison draws first: those judged by a check every
        cited task's held answers failed (``usage.evidenced``; the incumbent's answers, or
        any skill's when it has none), then those ``words`` touch (``usage.touched``; none
        under ``screen = "behaviour-only"``, only these under ``"words"``). Fixed before any
        validation answer is drawn, so the test's null law holds as it is."""
        tasks = self.splits[Split.VALIDATION.value]
        if self.cfg.screen == "words":
            return touched(words, tasks)
        first = evidenced(*self._evidence(incumbent, cited), tasks) if cited else []
        if self.cfg.screen == "behaviour-only":
            return first
        seen = {t.id for t in first}
        return first + [t for t in touched(words, tasks) if t.id not in seen]

    def _evidence(self, incumbent: SkillDoc, cited: Sequence[str]
                  ) -> tuple[list[set[str]], list[set[str]]]:
        """The checks each cited task's held answers failed, and those of every train task
        the night holds answers of (``usage.evidenced``): the incumbent's answers, or any
        skill's for a task it has none of."""
        train = {t.id for t in self.splits.get(Split.TRAIN.value, [])} | set(cited)
        held: dict[str, dict[bool, list[str]]] = {}
        for (h, t, _), r in self._by_task.items():
            if t in train and r.usable:
                held.setdefault(t, {True: [], False: []})[h == incumbent.hash].append(
                    r.score.rationale)
        failed = {t: failed_checks(by[True] or by[False]) for t, by in held.items()}
        return [failed[t] for t in cited if t in failed], list(failed.values())

    def has_won(self, doc: SkillDoc) -> bool:
        """Did ``doc`` win a comparison tonight?"""
        return any(h == doc.hash for h, _, _ in self.won)

    def preload(self, rollouts: Sequence[Rollout]) -> None:
        """Answers drawn before (an earlier night's, ``night.carry``): never replayed."""
        for r in rollouts:
            self._by_task[(r.skill_hash, r.task_id, r.sample)] = r

    def rollouts_of(self, skill_hash: str) -> list[Rollout]:
        """Every answer held for the skill of ``skill_hash``, drawn or preloaded, but the
        pairs it won its gate on."""
        return [r for k, r in self._by_task.items() if k[0] == skill_hash and k not in self.won]

    def _order(self, split: str, first: int, n: int, lead: Sequence[Task] = (),
               repeats: int = 0, lead_repeats: int = 0) -> list[tuple[Task, int]]:
        """The first ``n`` (task, sample) of ``split``: ``lead_repeats`` (at least
        ``repeats``) rounds of ``lead``, then ``repeats`` rounds of the other tasks from
        ``first`` (then every task, past both)."""
        tasks = self.splits[split]
        if not tasks:
            return []
        ahead = {t.id for t in lead}
        rest = [t for t in tasks if t.id not in ahead]
        deep = max(repeats, lead_repeats)
        order = [(t, first + s) for group, rounds in ((lead, deep), (rest, repeats)) if group
                 for s in range(rounds) for t in group]
        past = first + deep
        order += [(tasks[i % len(tasks)], past + i // len(tasks))
                  for i in range(max(0, n - len(order)))]
        return order[:n]

    def minibatch(
        self, split: str, doc: SkillDoc, size: int, seed: int, samples: int = 1
    ) -> list[Rollout]:
        """``size`` tasks of ``split`` drawn by ``seed`` (the same seed, the same tasks), each
        scored ``samples`` times with ``doc``; rollouts already drawn for ``doc`` are reused."""
        tasks = self.splits[split]
        chosen = random.Random(seed).sample(tasks, min(size, len(tasks)))
        return self.tasks(doc, [(t, s) for t in chosen for s in range(samples)])

    def tasks(self, doc: SkillDoc, jobs: Sequence[tuple[Task, int]]) -> list[Rollout]:
        """``doc``'s rollouts of the (task, sample) ``jobs``, drawing only the missing ones."""
        missing = [(t, s) for t, s in jobs if (doc.hash, t.id, s) not in self._by_task]
        drawn = replay_jobs(
            missing,
            doc.text,
            self.target,
            executor=self.executor,
            judge_for=self.judge_for,
            max_tokens=self.cfg.max_tokens,
            temperature=self.cfg.temperature,
            window=self.cfg.concurrency,
        ) if missing else []
        for (task, sample), rollout in zip(missing, drawn, strict=True):
            self._by_task[(doc.hash, task.id, sample)] = rollout
        return [self._by_task[(doc.hash, t.id, s)] for t, s in jobs]

