"""One skill's night in the pipeline: what it is given beyond its own tasks, and what is kept.

``SkillNights.run`` builds a skill's ``NightInputs``: its tasks; the trigger check's other
installed skills and their tasks (``pipeline.triggers``; none when ``trigger_check`` is
off; one store of routing replies serves every skill's night of the run, since they ask
the target the same routing questions, and starts from the replies the project's earlier
runs kept: ``archive.route_replies``); the cross check's neighbours, whether one changed
since the skill's last night, and the learned entries due for retirement (``pipeline.companions``).

``SkillNights.keep`` stores what the finished nights leave behind (the memory of rejected
edits and meta notes, the learned entries' usage, and with it the report's entry table and
load figures, and the run's new routing replies) only once every skill's night ran: a
night stopped for hand-off answers is run again from the start, and must recall what it
recalled the first time to ask the same questions.

Imported only when a night runs: it loads the night (scipy, the judges), which a
nothing-new run never needs.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

from skillopt_sleep.archive import route_replies
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.judges.build import JudgeFor
from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.memory import recall, remember
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.night.trigger import RouteAnswers
from skillopt_sleep.pipeline import companions
from skillopt_sleep.pipeline.plan import night_config
from skillopt_sleep.pipeline.triggers import trigger_setup
from skillopt_sleep.records import NightResult, Task

__all__ = ["SkillNights"]


@dataclass
class SkillNights:
    """Tonight's nights of every skill of one project (see the module)."""

    archive: Archive
    settings: Settings
    project: str
    night_id: str
    by_skill: dict[str, list[Task]]
    roots: list[Path]
    judge_for: JudgeFor
    say: Callable[[str], None]
    new_description: dict[str, str]
    """Per skill trained tonight, the description its document is created with when it is
    not installed yet (the trigger check's card for it)."""
    executor: Executor | None = None
    """Where the replays run (``pipeline.cluster``); ``None``: each night's own threads."""
    answers: RouteAnswers = field(init=False)
    """The run's routing replies, shared by its skills' trigger checks: the ones the
    project's earlier runs kept, and those this run asks."""
    _finished: list[tuple[NightResult, list[Task], int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.answers = RouteAnswers(route_replies.stored(self.archive, self.project))

    def run(self, skill: str, text: str, models: tuple[LLM, LLM], seed: int) -> NightResult:
        """The night of ``skill`` (live document ``text``), not yet kept."""
        tasks = self.by_skill[skill]
        trigger = (trigger_setup(skill, self.by_skill, self.roots, self.new_description,
                                 self.answers) if self.settings.trigger_check else None)
        extra = companions.companions(self.archive, self.settings, self.project, skill, text,
                                      self.night_id, self.by_skill, self.roots)
        result = run_night(NightInputs(
            tasks=tasks,
            skill_text=text,
            skill_name=skill,
            target=models[0],
            optimizer=models[1],
            judge_for=self.judge_for,
            night_id=self.night_id,
            project=self.project,
            config=night_config(self.settings),
            memory=recall(self.archive, self.project, skill),
            seed=seed,
            progress=self.say,
            trigger=trigger,
            neighbours=extra.neighbours,
            retire=extra.retire,
            recheck=extra.recheck,
            cross_tasks=self.settings.cross_tasks,
            executor=self.executor,
        ))
        self._finished.append((result, tasks, extra.seq))
        return result

    def keep(self) -> None:
        """Store the finished nights' memory and usage (see the module)."""
        for result, tasks, seq in self._finished:
            remember(self.archive, result)
            companions.after_night(self.archive, result, tasks, seq)
        self._finished.clear()
        route_replies.keep(self.archive, self.project, self.answers.new())
