"""What the agent CLIs print: ``claude -p --output-format json`` events and ``codex exec
--json`` lines, read into answers, tool calls and usage. Junk lines are skipped."""

from __future__ import annotations

import json
from typing import Any

from skillopt_sleep.records import ToolCall, Usage

__all__ = ["claude_tool_calls", "codex_item", "codex_usage", "json_events"]


def json_events(stdout: str) -> list[dict[str, Any]]:
    """A JSON array (``--verbose``), one object, or JSON Lines; junk lines are skipped."""
    text = stdout.strip()
    try:
        data = json.loads(text) if text else []
    except ValueError:
        data = []
        for line in text.splitlines():
            try:
                data.append(json.loads(line))
            except ValueError:
                continue
    data = data if isinstance(data, list) else [data]
    return [e for e in data if isinstance(e, dict)]


def claude_tool_calls(events: list[dict[str, Any]]) -> list[ToolCall]:
    calls: dict[str, ToolCall] = {}
    for event in events:
        content = (event.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                calls[str(block.get("id"))] = ToolCall(name=str(block.get("name")),
                                                       args=dict(block.get("input") or {}))
            elif block.get("type") == "tool_result" and block.get("is_error"):
                call = calls.get(str(block.get("tool_use_id")))
                if call is not None:
                    call.ok = False
                    call.error_head = str(block.get("content"))[:200]
    return list(calls.values())


def codex_usage(raw: dict[str, Any]) -> Usage:
    cached = int(raw.get("cached_input_tokens", 0))
    return Usage(input_tokens=max(0, int(raw.get("input_tokens", 0)) - cached),
                 output_tokens=int(raw.get("output_tokens", 0)), cache_read_tokens=cached)


def codex_item(item: dict[str, Any], texts: list[str], calls: list[ToolCall]) -> None:
    kind = item.get("type")
    if kind == "agent_message":
        texts.append(str(item.get("text") or ""))
    elif kind == "command_execution":
        exit_code = item.get("exit_code")
        calls.append(ToolCall(name="exec_command", args={"cmd": item.get("command")},
                              ok=exit_code == 0,
                              error_head="" if exit_code == 0 else
                              str(item.get("aggregated_output") or "")[:200]))
    elif kind in ("file_change", "mcp_tool_call", "web_search"):
        calls.append(ToolCall(name=str(kind), args={k: v for k, v in item.items()
                                                     if k not in ("id", "type")},
                              ok=item.get("status") != "failed"))
