"""Judges score one answer to one task; ``build_judge`` picks one for a ``JudgeSpec``.

The kinds are the rows of ``skillopt_sleep.tables.JUDGES``. Specs are validated here, when
a task is loaded: a rules spec with a bad op, an exact spec without a reference or a
rubric spec without a rubric (or without a grader model) is a ``JudgeError`` at load
time, never a silently failing judgement during a night.

Internal: the public API is ``skillopt_sleep.__all__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillopt_sleep.errors import JudgeError
from skillopt_sleep.judges.base import Judge, ScriptedJudge
from skillopt_sleep.records import JudgeSpec
from skillopt_sleep.tables import JUDGES

if TYPE_CHECKING:
    from skillopt_sleep.models.base import LLM

__all__ = ["Judge", "ScriptedJudge", "build_judge"]


def build_judge(spec: JudgeSpec, grader_llm: LLM | None = None) -> Judge:
    """The judge for ``spec``; a rubric judge grades with ``grader_llm``."""
    if spec.kind not in JUDGES:
        raise JudgeError(f"unknown judge kind {spec.kind!r}; known: {JUDGES.valid()}")
    judge: Judge = JUDGES.get(spec.kind)(spec, grader_llm)
    return judge
