"""Judges score one answer to one task; ``build_judge`` picks one for a ``JudgeSpec``.

Specs are validated here, when a task is loaded: a rules spec with a bad op, an exact
spec without a reference or a rubric spec without a rubric (or without a grader model)
is a ``JudgeError`` at load time, never a silently failing judgement during a night.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillopt_sleep.errors import JudgeError
from skillopt_sleep.judges.base import Judge
from skillopt_sleep.records import JudgeSpec

if TYPE_CHECKING:
    from skillopt_sleep.models.base import LLM

__all__ = ["Judge", "build_judge"]


def build_judge(spec: JudgeSpec, grader_llm: LLM | None = None) -> Judge:
    """The judge for ``spec``; a rubric judge grades with ``grader_llm``."""
    if spec.kind == "rules":
        from skillopt_sleep.judges.rules import RulesJudge, validate_checks

        validate_checks(spec.checks)
        return RulesJudge()
    if spec.kind == "exact":
        from skillopt_sleep.judges.exact import ExactJudge, validate

        validate(spec)
        return ExactJudge()
    if spec.kind == "rubric":
        from skillopt_sleep.judges.rubric import RubricJudge
        from skillopt_sleep.judges.rubric import validate as validate_rubric

        validate_rubric(spec)
        if grader_llm is None:
            raise JudgeError("a rubric judge needs a grader model (--judge MODEL)")
        return RubricJudge(grader_llm)
    raise JudgeError(f"unknown judge kind {spec.kind!r}; known: rules, exact, rubric")
