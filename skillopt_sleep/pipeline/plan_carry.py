"""What tonight's night would not replay because the skill's last night left the answers.

A night reuses its incumbent's answers that the last night's final skill drew and no gate
decision selected (``night.carry``): only for the same document (hash), the same task
(``carry.task_key``) and, on the validation split, from the sample the last night left off
at. The plan counts them against the incumbent's side only, which it knows for certain; the
candidates' answers are new by definition:

- *test*: the report's before side, ``test_repeats`` samples of each test task;
- *validation*: the incumbent's gate pairs, one block of ``repeats`` samples from the
  carried first sample on, and the reported validation figure's round, which the carried
  answers make free (``Night._val_mean`` reads what is drawn);
- *train*: the first step's minibatch, the incumbent's for certain; the seed chooses its
  tasks, so the plan counts the carried share of the train tasks, rounded down.

A live document that is not the last night's final skill (a proposal not adopted, a hand
edit) reuses nothing, and neither does a changed task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.archive.carried import carried
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.night.carry import reusable
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.measure import sampled
from skillopt_sleep.records import Split, Task
from skillopt_sleep.skilldoc import parse

__all__ = ["Reused", "reused"]


@dataclass(frozen=True)
class Reused:
    """Target calls of the incumbent's side that the carried answers serve, per split."""

    train: int = 0
    validation: int = 0
    test: int = 0

    def by_split(self) -> dict[str, int]:
        return {"train": self.train, "validation": self.validation, "test": self.test}

    @property
    def total(self) -> int:
        return self.train + self.validation + self.test


def reused(archive: Archive, project: str, skill: str, text: str, tasks: Sequence[Task],
           cfg: NightConfig) -> Reused:
    """The carried answers tonight's night of ``skill`` (live document ``text``, ``tasks``)
    would reuse, counted as the module says."""
    last = carried(archive, project, skill)
    tasks = sampled(tasks, cfg.test_tasks)  # only the test split's sample is scored
    current = parse(text).hash
    split_of = {t.id: t.split for t in tasks}
    held: dict[str, set[tuple[str, int]]] = {s.value: set() for s in Split}
    for r in reusable(tasks, last):
        if r.skill_hash == current:
            held[split_of[r.task_id]].add((r.task_id, r.sample))
    n = {s.value: sum(t.split == s.value for t in tasks) for s in Split}
    test = sum(s < cfg.test_repeats for _, s in held[Split.TEST.value])
    window = range(last.first, last.first + cfg.repeats_for(n[Split.VALIDATION.value]))
    val = sum(s in window for _, s in held[Split.VALIDATION.value])
    report = n[Split.VALIDATION.value] if held[Split.VALIDATION.value] else 0
    n_train = n[Split.TRAIN.value]
    pairs = sum(s < cfg.train_samples for _, s in held[Split.TRAIN.value])
    train = min(cfg.train_batch or n_train, n_train) * pairs // n_train if n_train else 0
    return Reused(train=train, validation=val + report, test=test)
