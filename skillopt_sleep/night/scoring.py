"""Scoring for one night: each skill's rollouts drawn once, through the night's executor.

Rollouts are cached by (skill hash, task, sample), so the incumbent is never re-run:
every candidate of a step is compared with the same incumbent rollouts. Validation pairs
are drawn lazily in a fixed round-robin order (every task's first sample, then every task's
second …) so that a sequential gate can stop after a few pairs and a later comparison that
needs more extends the same list. The order depends only on the tasks and the sample
numbers, never on the executor, so a night is the same at any concurrency.

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
        self._drawn_max = 0

    def pairs(self, split: str, doc: SkillDoc, first: int, n: int) -> list[Rollout]:
        """The first ``n`` rollouts of ``doc`` on ``split`` in round-robin order, samples
        numbered from ``first``; drawn only as far as not drawn before."""
        return self.tasks(doc, self._order(split, first, n))

    def rounds(self, split: str, doc: SkillDoc, repeats: int, first: int = 0) -> list[Rollout]:
        """``repeats`` samples of every task of ``split`` (round-robin order)."""
        return self.pairs(split, doc, first, repeats * len(self.splits[split]))

    def drawn(self, split: str, doc: SkillDoc, first: int = 0) -> Sequence[Rollout]:
        """The round-robin prefix drawn so far for ``doc`` on ``split`` (nothing new is drawn)."""
        out = []
        for task, sample in self._order(split, first, self._drawn_max):
            rollout = self._by_task.get((doc.hash, task.id, sample))
            if rollout is None:
                break
            out.append(rollout)
        return out

    def compare(self, test: gate.GateTest, incumbent: SkillDoc, candidate: SkillDoc,
                first: int, repeats: int) -> gate.Verdict:
        """The gate on validation: pairs (samples from ``first``, at most ``repeats`` of
        each task) drawn look by look until ``test`` decides or the pairs run out."""
        val, cfg = Split.VALIDATION.value, self.cfg

        def draw(n: int) -> tuple[list[Rollout], list[Rollout]]:
            return self.pairs(val, incumbent, first, n), self.pairs(val, candidate, first, n)

        return gate.compare(test, draw, max_pairs=repeats * len(self.splits[val]),
                            metric=cfg.metric, alpha=cfg.alpha, margin=cfg.margin,
                            no_regression=cfg.no_regression)

    def preload(self, rollouts: Sequence[Rollout]) -> None:
        """Answers drawn before (an earlier night's, ``night.carry``): never replayed."""
        for r in rollouts:
            self._by_task[(r.skill_hash, r.task_id, r.sample)] = r
        self._drawn_max += len(rollouts)

    def rollouts_of(self, skill_hash: str) -> list[Rollout]:
        """Every answer held for the skill of ``skill_hash``, drawn or preloaded."""
        return [r for (h, _, _), r in self._by_task.items() if h == skill_hash]

    def _order(self, split: str, first: int, n: int) -> list[tuple[Task, int]]:
        tasks = self.splits[split]
        if not tasks:
            return []
        return [(tasks[i % len(tasks)], first + i // len(tasks)) for i in range(n)]

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
        ) if missing else []
        for (task, sample), rollout in zip(missing, drawn, strict=True):
            self._by_task[(doc.hash, task.id, sample)] = rollout
        self._drawn_max += len(missing)
        return [self._by_task[(doc.hash, t.id, s)] for t, s in jobs]

