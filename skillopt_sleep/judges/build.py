"""Which judge scores each task of a night, rubric graders metered like any model call.

``default_judge_for`` needs no model: rules and exact tasks. ``build_judge_for`` adds a
grader model for rubric tasks, built from the settings only if a rubric task needs one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from skillopt_sleep.config import Settings
from skillopt_sleep.judges import build_judge
from skillopt_sleep.judges.base import Judge
from skillopt_sleep.judges.rules import RulesJudge
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.build import metered
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.records import Task

__all__ = ["JudgeFor", "build_judge_for", "default_judge_for"]

JudgeFor = Callable[[Task], Judge]


@functools.cache
def _rules_judge() -> RulesJudge:
    return RulesJudge()


def default_judge_for(task: Task) -> Judge:
    """Rules tasks use the rules judge; other kinds come from the judges factory."""
    if task.judge.kind == "rules":
        return _rules_judge()
    return build_judge(task.judge)


def build_judge_for(settings: Settings, ledger: Ledger | None = None) -> JudgeFor:
    """Judges per task; rubric tasks are graded by ``judge`` (default: the optimizer's model),
    metered under the role "judge"; the grader is built only if a rubric task needs one."""
    graders: list[LLM] = []

    def judge_for(task: Task) -> Judge:
        if task.judge.kind != "rubric":
            return default_judge_for(task)
        if not graders:
            graders.append(
                metered(settings, "judge", settings.judge or settings.optimizer, ledger)
            )
        return build_judge(task.judge, graders[0])

    return judge_for
