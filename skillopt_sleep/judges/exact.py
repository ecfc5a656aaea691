"""Exact-answer judge: normalised equality with the reference, or containment.

Normalisation forgives what a reader would: case, Unicode forms, runs of whitespace,
surrounding quotes, backticks or code fences, and a trailing full stop. ``hard`` is the
exact verdict; ``soft`` is partial credit from token overlap (F1 for equality, recall of
the reference's tokens for containment), so a near miss scores above a wild miss.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from skillopt_sleep.errors import JudgeError
from skillopt_sleep.records import JudgeSpec, Score, Task, ToolCall

if TYPE_CHECKING:
    from skillopt_sleep.models.base import LLM

_FENCE = re.compile(r"^```[\w+-]*\n?(.*?)\n?```$", re.DOTALL)
_TOKEN = re.compile(r"\w+", re.UNICODE)
_WRAPPERS = "\"'`“”‘’«»"


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    text = " ".join(text.casefold().split())
    text = text.strip(_WRAPPERS).strip()
    return text.rstrip(".").strip()


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text))


def token_f1(response: str, reference: str) -> float:
    got, want = Counter(_tokens(response)), Counter(_tokens(reference))
    overlap = sum((got & want).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(got.values()), overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def token_recall(response: str, reference: str) -> float:
    want = Counter(_tokens(reference))
    if not want:
        return 0.0
    return sum((Counter(_tokens(response)) & want).values()) / sum(want.values())


def validate(spec: JudgeSpec) -> JudgeSpec:
    if not normalise(spec.reference):
        raise JudgeError("an exact judge needs a non-empty reference answer")
    return spec


class ExactJudge:
    """Judge for ``JudgeSpec(kind="exact")``; ``spec.contains`` accepts containment."""

    def score(self, task: Task, response: str, tool_calls: Sequence[ToolCall] = ()) -> Score:
        spec = task.judge
        reference = normalise(spec.reference)
        if not reference:
            return Score(failed=True, rationale="no reference answer in the judge spec")
        answer = normalise(response)
        if spec.contains:
            hit = reference in answer
            soft = 1.0 if hit else token_recall(response, spec.reference)
            verdict = "contains the reference" if hit else "does not contain the reference"
        else:
            hit = answer == reference
            soft = 1.0 if hit else token_f1(response, spec.reference)
            verdict = "matches the reference" if hit else "differs from the reference"
        return Score(hard=float(hit), soft=soft, rationale=f"{verdict} (token overlap {soft:.2f})")


def make(spec: JudgeSpec, grader: LLM | None = None) -> ExactJudge:
    """The ``exact`` judge (``skillopt_sleep.tables.JUDGES``): the spec validated first."""
    validate(spec)
    return ExactJudge()
