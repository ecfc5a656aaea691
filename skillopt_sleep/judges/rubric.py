"""Rubric judge: a grader model scores the answer against the task's rubric.

The grader replies with JSON ``{"score": 0-10, "pass": bool, "reason": "…"}``. ``soft`` is
score/10; ``hard`` is the grader's ``pass`` (or score ≥ 7 when it gives none). A reply that
cannot be parsed is asked again (another sample, so a cache cannot replay the same
garbage); if every attempt fails, or the grader errs, the result is
``Score(failed=True)`` — "judge failed", excluded from the gate's pairing, never a 0.
With ``repeats=3`` the task is judged three times and the median taken.

Credentials refused, a dollar cap and a pending handoff still raise: they stop the night
rather than turn into failed judgements.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.errors import AuthError, BudgetExceeded, HandoffPending, JudgeError, ModelError
from skillopt_sleep.models.base import LLM, tag
from skillopt_sleep.records import JudgeSpec, Message, Score, Task, ToolCall

GRADER_SYSTEM = """\
You grade one answer of a coding agent against a rubric. Be strict and consistent.
Reply with one JSON object and nothing else:
{"score": <integer 0-10>, "pass": <true|false>, "reason": "<one or two sentences>"}"""

_SCORE_LINE = re.compile(r"score\W{0,3}\s*(\d+(?:\.\d+)?)\s*(?:/\s*10)?", re.IGNORECASE)
_STOPPERS = (AuthError, BudgetExceeded, HandoffPending)


@dataclass
class Verdict:
    score: float
    passed: bool
    reason: str


def validate(spec: JudgeSpec) -> JudgeSpec:
    if not spec.rubric.strip():
        raise JudgeError("a rubric judge needs a non-empty rubric")
    if spec.repeats not in (1, 3, 5):
        raise JudgeError(f"rubric repeats must be 1, 3 or 5 (a median needs an odd count), "
                         f"got {spec.repeats}")
    return spec


def parse_verdict(reply: str, pass_at: float = 7.0) -> Verdict | None:
    """The grader's verdict, or None when the reply holds no usable score."""
    data = _first_json_object(reply)
    if data is not None and "score" in data:
        try:
            score = float(data["score"])
        except (TypeError, ValueError):
            return None
        if not 0 <= score <= 10:
            return None
        passed = data.get("pass")
        return Verdict(score, passed if isinstance(passed, bool) else score >= pass_at,
                       str(data.get("reason", "")).strip())
    match = _SCORE_LINE.search(reply)
    if match and 0 <= float(match.group(1)) <= 10:
        score = float(match.group(1))
        return Verdict(score, score >= pass_at, reply.strip()[:300])
    return None


def _first_json_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _outcome(call: ToolCall) -> str:
    return "unknown" if call.ok is None else "ok" if call.ok else "failed"


def grading_prompt(task: Task, response: str, tool_calls: Sequence[ToolCall]) -> list[Message]:
    tools = ", ".join(f"{c.name}({_outcome(c)})" for c in tool_calls) or "none"
    body = (f"## Task\n{task.intent}\n\n"
            + (f"## Context\n{task.context}\n\n" if task.context else "")
            + f"## Rubric\n{task.judge.rubric}\n\n## Tools the agent ran\n{tools}\n\n"
            f"## Answer to grade\n{response}\n\nGrade the answer against the rubric.")
    return [{"role": "system", "content": GRADER_SYSTEM}, {"role": "user", "content": tag(body)}]


class RubricJudge:
    """Judge for ``JudgeSpec(kind="rubric")`` with ``grader`` as the grading model."""

    def __init__(self, grader: LLM, *, attempts: int = 3, repeats: int | None = None,
                 pass_at: float = 7.0, max_tokens: int = 400):
        self.grader = grader
        self.attempts = max(1, attempts)
        self.repeats = repeats
        self.pass_at = pass_at
        self.max_tokens = max_tokens

    def score(self, task: Task, response: str, tool_calls: Sequence[ToolCall] = ()) -> Score:
        if not task.judge.rubric.strip():
            return Score(failed=True, rationale="judge failed: no rubric in the judge spec")
        repeats = self.repeats or task.judge.repeats or 1
        prompt = grading_prompt(task, response, tool_calls)
        verdicts: list[Verdict] = []
        problems: list[str] = []
        for sample in range(repeats):
            verdict, problem = self._once(prompt, sample, sampled=repeats > 1)
            if verdict is None:
                problems.append(problem)
            else:
                verdicts.append(verdict)
        if not verdicts:
            return Score(failed=True, rationale=f"judge failed: {problems[-1]}")
        return _median(verdicts, len(problems))

    def _once(self, prompt: list[Message], sample: int,
              sampled: bool) -> tuple[Verdict | None, str]:
        problem = ""
        for attempt in range(self.attempts):
            try:
                reply = self.grader.complete(
                    prompt, max_tokens=self.max_tokens, temperature=1.0 if sampled else 0.0,
                    seed=sample * self.attempts + attempt).text
            except _STOPPERS:
                raise
            except ModelError as exc:
                return None, f"grader error: {exc}"
            verdict = parse_verdict(reply, self.pass_at)
            if verdict is not None:
                return verdict, ""
            problem = (f"unparseable grader reply after {attempt + 1} attempt(s): "
                       f"{reply.strip()[:200]!r}")
        return None, problem


def _median(verdicts: list[Verdict], failures: int) -> Score:
    ordered = sorted(verdicts, key=lambda v: v.score)
    middle = ordered[(len(ordered) - 1) // 2]
    soft = statistics.median(v.score for v in verdicts) / 10
    hard = float(sum(v.passed for v in verdicts) * 2 > len(verdicts))
    note = "" if len(verdicts) == 1 else (
        f" (median of {len(verdicts)}: " + ", ".join(f"{v.score:g}" for v in ordered)
        + (f"; {failures} failed" if failures else "") + ")")
    return Score(hard=hard, soft=soft, rationale=f"{middle.reason}{note}")


def make(spec: JudgeSpec, grader: LLM | None = None) -> RubricJudge:
    """The ``rubric`` judge (``skillopt_sleep.tables.JUDGES``), graded by ``grader``."""
    validate(spec)
    if grader is None:
        raise JudgeError("a rubric judge needs a grader model (--judge MODEL)")
    return RubricJudge(grader)
