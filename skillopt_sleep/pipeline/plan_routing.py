"""What tonight's trigger checks would ask that the project's earlier runs already asked.

A night routes each skill's current description on its train tasks, one sample of its
validation tasks and the report's tasks (its own and the other skills'), and each such
call is answered from the replies earlier runs kept (``archive.route_replies``) when the
installed cards, the task and the sample are the same (``trigger.route_key``). When every
one of those picks is stored and none shows a miss or a false trigger, the night asks the
optimizer for no description and its trigger check makes no call at all
(``night.describe``: a round asks only when the picks show something wrong). Otherwise the
plan's upper bound stands, less the calls already answered.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.config import Settings
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.describe import report_samples
from skillopt_sleep.night.measure import sampled
from skillopt_sleep.night.trigger import installed, jobs, parse_choice, route_key, route_messages
from skillopt_sleep.pipeline.triggers import trigger_setup
from skillopt_sleep.records import Split, Task
from skillopt_sleep.skilldoc import parse

__all__ = ["Known", "known"]


@dataclass(frozen=True)
class Known:
    """The stored answers to one skill's routing calls tonight."""

    stored: int = 0
    """Routing calls for the current description already answered."""
    settled: bool = False
    """Every pick that decides whether to ask is stored, the report's too, and none is
    wrong: the trigger check makes no call."""


def _jobs(cfg: NightConfig, own: Sequence[Task], foreign: Sequence[Task]
          ) -> list[tuple[Task, int, bool, bool]]:
    """``(task, sample, own, decides)`` of the current description's routing calls;
    ``decides``: a wrong pick there makes the night ask for descriptions."""
    report, first, reps = report_samples(cfg)
    # The report routes the test split's sample, as the night does (``night.measure``).
    own, foreign = sampled(own, cfg.test_tasks), sampled(foreign, cfg.test_tasks)
    # With no wrong train pick, one validation sample decides (``Describer._wrong``).
    looks = ((Split.TRAIN.value, 0, 1, True), (Split.VALIDATION.value, 0, 1, True),
             (report, first, reps, False))
    return [(t, s, is_own, decides) for split, start, n, decides in looks
            for t, s, is_own in jobs([t for t in own if t.split == split],
                                     [t for t in foreign if t.split == split], n, start)]


def known(settings: Settings, cfg: NightConfig, skill: str, text: str,
          by_skill: Mapping[str, Sequence[Task]], roots: list[Path],
          new_description: Mapping[str, str], replies: Mapping[str, str]) -> Known:
    """What ``replies`` already answer of the night of ``skill`` (live document ``text``)."""
    setup = trigger_setup(skill, by_skill, roots, new_description)
    cards = installed(skill, parse(text).description, setup.others)
    names = [c.name for c in cards]
    stored, complete, wrong = 0, True, False
    for task, sample, own, decides in _jobs(cfg, by_skill.get(skill, ()), setup.foreign_tasks):
        reply = replies.get(route_key(settings.target, "", route_messages(cards, task),
                                      cfg.temperature, sample))
        if reply is None:
            complete = False
            continue
        stored += 1
        if decides:
            with contextlib.suppress(ValueError):  # a failed pick is neither right nor wrong
                wrong |= own != (parse_choice(reply, names) == skill)
    return Known(stored, complete and not wrong)

