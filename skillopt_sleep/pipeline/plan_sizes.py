"""How big tonight's calls are, from what can be known before the first one.

Every replay carries the whole skill: its system block is the replay frame with the skill
in it (``night.prompts.replay_messages``), then the task. Those sizes are tonight's own
prompts, counted at ``CHARS_PER_TOKEN``. An answer's length cannot be read off the prompt;
it comes from the first of:

1. the skill's last night, metered: the mean output tokens of its target's replays (the
   trigger check's routing answers, capped at ``ROUTE_MAX_TOKENS``, left out);
2. the skill's last night's recorded answers (the report's before and after answers,
   clipped at 2,000 characters, so a long answer counts short);
3. the answers the developer's agent gave in the harvested sessions the tasks were mined
   from (clipped at 4,000 characters by the harvest);
4. ``DEFAULT_ANSWER_TOKENS``: 600, a few paragraphs with a code block, what the plan assumed
   before it could read any of these.

``pipeline.plan_price`` prices the skill's block as the provider's prompt cache does
(``models.caching``): each version of the skill the night replays writes it once (a batch of
replays sends its first call alone, ``night.replay``) and the rest of its replays read it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import final_answers
from skillopt_sleep.models.meter import CHARS_PER_TOKEN
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.night.trigger import ROUTE_MAX_TOKENS
from skillopt_sleep.records import JudgeSpec, NightResult, Task

__all__ = ["DEFAULT_ANSWER_TOKENS", "Sizes", "answers", "replay_answer_tokens", "sizes"]

DEFAULT_ANSWER_TOKENS = 600
_MIN_ANSWERS = 3
"""Fewer recorded answers than this say too little; the next source is read."""


@dataclass(frozen=True)
class Sizes:
    """One skill's replay, in tokens."""

    skill: int
    """The skill document, carried by every replay."""
    system: int
    """The replay's system block: the skill in its frame, the prefix a prompt cache serves."""
    prompt: int
    """A replay's whole prompt (the system block and the task), the mean over the tasks."""
    answer: int
    answer_source: str
    """Where ``answer`` comes from (see the module)."""


def _tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN


def _mean(values: Sequence[int]) -> int | None:
    return round(statistics.fmean(values)) if len(values) >= _MIN_ANSWERS else None


def _metered(last: NightResult | None) -> int | None:
    if last is None or not last.replay_answer_tokens:
        return None
    return round(last.replay_answer_tokens)


def _recorded(last: NightResult | None) -> int | None:
    if last is None:
        return None
    texts = [e.get(k) or "" for e in last.task_evidence for k in ("before_answer", "after_answer")]
    return _mean([_tokens(t) for t in texts if t])


def _harvested(archive: Archive, tasks: Sequence[Task]) -> int | None:
    ids = {m for t in tasks for m in t.meta.get("members", []) if isinstance(m, str)}
    return _mean([_tokens(answer) for answer in final_answers(archive, ids)])


def answers(archive: Archive | None, last: NightResult | None,
            tasks: Sequence[Task]) -> tuple[int, str]:
    """The tokens of a replay's answer and where the figure comes from."""
    if (n := _metered(last)) is not None:
        return n, "metered on the skill's last night"
    if (n := _recorded(last)) is not None:
        return n, "the skill's last night's answers"
    if archive is not None and (n := _harvested(archive, tasks)) is not None:
        return n, "the harvested sessions' answers"
    return DEFAULT_ANSWER_TOKENS, "assumed (no answers recorded yet)"


def sizes(skill: str, tasks: Sequence[Task], archive: Archive | None,
          last: NightResult | None) -> Sizes:
    """``skill``'s replays of ``tasks``, sized (see the module)."""
    prompts = [replay_messages(skill, t) for t in tasks] or [replay_messages(skill, _EMPTY)]
    system = _tokens(prompts[0][0]["content"])
    prompt = round(statistics.fmean(
        sum(_tokens(m["content"]) for m in messages) for messages in prompts))
    answer, source = answers(archive, last, tasks)
    return Sizes(_tokens(skill), system, prompt, answer, source)


_EMPTY = Task("", "", "", JudgeSpec())
"""A night with no task still has its frame and skill to size."""


def replay_answer_tokens(outputs: Sequence[int]) -> float:
    """The mean answer of a night's metered target calls, routing answers left out (they
    are capped at ``ROUTE_MAX_TOKENS``; a replay answer as short is left out with them)."""
    replies = [n for n in outputs if n > ROUTE_MAX_TOKENS]
    return statistics.fmean(replies) if replies else 0.0
