"""Shaping the engine's chat messages and tool schemas for each provider's wire format."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.errors import ModelError
from skillopt_sleep.records import Message, ToolCall


def split_system(messages: Sequence[Message]) -> tuple[str, list[Message]]:
    """System text (joined) and the user/assistant turns, same-role neighbours merged.

    Anthropic wants strictly alternating turns starting with the user; merging keeps a
    prompt the engine built from several user parts valid everywhere.
    """
    system: list[str] = []
    turns: list[Message] = []
    for message in messages:
        role, content = message.get("role", "user"), message.get("content", "")
        if role == "system":
            system.append(content)
        elif turns and turns[-1]["role"] == role:
            turns[-1] = {"role": role, "content": f"{turns[-1]['content']}\n\n{content}"}
        else:
            turns.append({"role": role if role == "assistant" else "user", "content": content})
    if not turns:
        raise ModelError("a model call needs at least one user message")
    return "\n\n".join(system), turns


def as_transcript(messages: Sequence[Message]) -> tuple[str, str]:
    """System text and one prompt holding the whole conversation, for one-shot CLIs."""
    system, turns = split_system(messages)
    if len(turns) == 1:
        return system, turns[0]["content"]
    parts = [f"## {t['role']}\n{t['content']}" for t in turns[:-1]]
    return system, "Earlier in this conversation:\n\n" + "\n\n".join(parts) + (
        f"\n\n## Now answer\n{turns[-1]['content']}")


def anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accept Anthropic (``input_schema``) or OpenAI (``parameters``/``function``) shapes."""
    shaped = []
    for tool in tools:
        spec = tool.get("function", tool)
        schema = spec.get("input_schema") or spec.get("parameters") or {"type": "object"}
        shaped.append({"name": spec["name"], "description": spec.get("description", ""),
                       "input_schema": schema})
    return shaped


def openai_tools(tools: Sequence[dict[str, Any]], *, responses: bool) -> list[dict[str, Any]]:
    """Chat Completions nests the function; the Responses API keeps it flat."""
    shaped = []
    for tool in tools:
        spec = tool.get("function", tool)
        function = {"name": spec["name"], "description": spec.get("description", ""),
                    "parameters": spec.get("parameters") or spec.get("input_schema")
                    or {"type": "object"}}
        shaped.append({"type": "function", **function} if responses
                      else {"type": "function", "function": function})
    return shaped


def tool_call(name: str, arguments: str | dict[str, Any] | None) -> ToolCall:
    """A requested tool call; arguments that are not a JSON object are kept raw."""
    if isinstance(arguments, dict):
        return ToolCall(name=name, args=arguments)
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    return ToolCall(name=name, args=parsed if isinstance(parsed, dict) else {"raw": arguments})
