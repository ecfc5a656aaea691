"""The ``Judge`` protocol: score one answer to one task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from skillopt_sleep.records import Score, Task, ToolCall


@runtime_checkable
class Judge(Protocol):
    """Scores ``response`` to ``task``.

    Must never raise for a bad answer: a wrong answer is ``Score(hard=0, soft=…)``; a
    judgement that could not be made (an unparseable grader reply, a grader error) is
    ``Score(failed=True, rationale=why)``, which the gate excludes from its pairing and
    never counts as 0.
    """

    def score(self, task: Task, response: str, tool_calls: Sequence[ToolCall] = ()) -> Score: ...


class ScriptedJudge:
    """Mock ``Judge``: scores from a function of (task, response), records what it was shown."""

    def __init__(self, score: Callable[[Task, str], Score] | Score):
        self._score = score
        self.seen: list[tuple[str, str]] = []

    def score(self, task: Task, response: str, tool_calls: Sequence[ToolCall] = ()) -> Score:
        self.seen.append((task.id, response))
        return self._score if isinstance(self._score, Score) else self._score(task, response)
