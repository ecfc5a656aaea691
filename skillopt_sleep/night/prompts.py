"""Every prompt the night sends. Each starts with the sentinel line (see ``records.SENTINEL``).

Reflection prompts carry machine-readable blocks (``<skill>``, ``<minibatch>``,
``<rejected>``, ``<mode>``) so that any optimizer, a real model or the persona simulator,
reads the same evidence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from skillopt_sleep.models.base import tag
from skillopt_sleep.records import GateDecision, Message, Rollout, Task

REPLAY_SYSTEM = (
    "You are a coding agent working for a developer. The skill document below holds their "
    "standing instructions; follow it whenever it applies.\n<skill>\n{skill}\n</skill>"
)

REFLECT_SYSTEM = """You improve a skill document that a coding agent reads before each task.
You see the current skill, a minibatch of tasks the agent answered with it (with the
grader's rationale), edits tried before that were rejected (do not propose them again),
and notes on which kinds of edit helped. Propose at most {max_edits} small edits that would
make the agent succeed on tasks like these in general — not on one instance.

Edit operations, each on one bullet entry of the learned region:
  append       {{"op": "append", "text": NEW}}
  insert_after {{"op": "insert_after", "anchor": EXISTING, "text": NEW}}
  replace      {{"op": "replace", "anchor": EXISTING, "text": NEW}}
  delete       {{"op": "delete", "anchor": EXISTING}}
Each entry is one line of at most 400 characters. Never add secrets, URLs, shell commands
that download and run code, or text that overrides other instructions.
For each edit, list in "tasks" the ids of the minibatch tasks it would fix.
Reply with JSON only:
{{"edits": [{{"op": ..., "text": ..., "anchor": ..., "rationale": ..., "tasks": [...]}}]}}"""


def replay_messages(skill: str, task: Task) -> list[Message]:
    user = f"<task>\n{task.intent}\n</task>"
    if task.context:
        user += f"\n<context>\n{task.context}\n</context>"
    return [
        {"role": "system", "content": tag(REPLAY_SYSTEM.format(skill=skill))},
        {"role": "user", "content": tag(user)},
    ]


def minibatch_json(items: Sequence[tuple[Task, Rollout]], excerpt: int = 600) -> str:
    return json.dumps(
        [
            {
                "task_id": t.id,
                "intent": t.intent,
                "score": round(r.score.soft, 3),
                "passed": r.score.hard >= 1.0,
                "rationale": r.score.rationale,
                "response": r.response[:excerpt],
            }
            for t, r in items
        ],
        ensure_ascii=False,
        indent=1,
    )


def rejected_json(rejected: Sequence[GateDecision], limit: int = 30) -> str:
    return json.dumps(
        [
            {
                "op": d.edit.op,
                "text": d.edit.text,
                "anchor": d.edit.anchor,
                "stage": d.stage,
                "reason": d.reason,
                "mean_delta": round(d.mean_delta, 4),
            }
            for d in rejected[:limit]
        ],
        ensure_ascii=False,
        indent=1,
    )


def reflect_messages(
    *,
    mode: str,
    skill: str,
    items: Sequence[tuple[Task, Rollout]],
    rejected: Sequence[GateDecision],
    notes: Sequence[str],
    max_edits: int,
    comparison: str = "",
) -> list[Message]:
    body = [
        f"<mode>{mode}</mode>",
        f"<skill>\n{skill}\n</skill>",
        f"<minibatch>\n{minibatch_json(items)}\n</minibatch>",
        f"<rejected>\n{rejected_json(rejected)}\n</rejected>",
        "<meta_notes>\n" + "\n".join(f"- {n}" for n in notes) + "\n</meta_notes>",
    ]
    if comparison:
        body.append(f"<comparison>\n{comparison}\n</comparison>")
    return [
        {"role": "system", "content": tag(REFLECT_SYSTEM.format(max_edits=max_edits))},
        {"role": "user", "content": tag("\n".join(body))},
    ]


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def json_replies(text: str) -> Iterator[Any]:
    """The JSON values an optimizer reply may hold, most likely first: the whole reply, each
    fenced block, then the span from the first ``{`` to the last ``}``. Models wrap JSON in
    prose or fences often enough that each reader tries all three."""
    candidates = [text.strip(), *(m.group(1) for m in _FENCE.finditer(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start: end + 1])
    for candidate in candidates:
        try:
            yield json.loads(candidate)
        except json.JSONDecodeError:
            continue
