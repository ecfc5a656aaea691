"""Sessions of one request each, written as the four agents record them (for benchmarks).

``WRITERS[agent](root, session_id, text, calls, when)`` writes one session under ``root``
laid out as the agent lays it out (``.claude/projects/…``, ``.codex/sessions/…``,
``.copilot/session-state/…``, ``Code/User/workspaceStorage/…``) and returns its path.
``calls`` are ``(kind, argument, ok)``: ``sh`` a command, ``edit``/``write``/``read`` a
path relative to ``PROJECT``; a failed command exits 1.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

PROJECT = "/srv/dev/shop"
Call = tuple[str, str, bool]  # (kind: sh/edit/read/write, command or path, ok)
Json = dict[str, Any]


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def uid(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, ":".join(map(str, parts))))


def _abs(path: str) -> str:
    return f"{PROJECT}/{path}"


def _write(path: Path, lines: list[Json] | None, whole: Json | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if lines is None:
        path.write_text(json.dumps(whole), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                        encoding="utf-8")
    return path


def _claude_call(sid: str, n: int, kind: str, arg: str, ok: bool) -> list[tuple[str, Any]]:
    names = {"sh": "Bash", "edit": "Edit", "read": "Read", "write": "Write"}
    cid = f"toolu_{uid(sid, n)[:20]}"
    args: Json = {"command": arg, "description": "Run"} if kind == "sh" else {
        "file_path": _abs(arg)}
    if kind == "edit":
        args |= {"old_string": "a", "new_string": "b"}
    elif kind == "write":
        args |= {"content": "x"}
    result: Json = {"type": "tool_result", "tool_use_id": cid,
                    "content": "ok" if ok else "Exit code 1\nFAILED"}
    return [("assistant", [{"type": "tool_use", "id": cid, "name": names[kind], "input": args}]),
            ("user", [result | ({} if ok else {"is_error": True})])]


def claude(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    msgs: list[tuple[str, Any]] = [("user", text)]
    for n, (kind, arg, ok) in enumerate(calls):
        msgs += _claude_call(sid, n, kind, arg, ok)
    msgs.append(("assistant", [{"type": "text", "text": "Done."}]))
    lines, parent = [], None
    for j, (role, content) in enumerate(msgs):
        key = uid(sid, "m", j)
        message: Json = {"role": role, "content": content}
        if role == "assistant":
            message |= {"id": f"msg_{key[:8]}", "model": "claude-sonnet-4-5", "type": "message",
                        "stop_reason": "end_turn" if j == len(msgs) - 1 else "tool_use"}
        lines.append({"type": role, "uuid": key, "parentUuid": parent, "sessionId": sid,
                      "cwd": PROJECT, "version": "2.1.330", "entrypoint": "cli",
                      "isSidechain": False, "userType": "external",
                      "timestamp": _iso(at + timedelta(seconds=j)), "message": message})
        parent = key
    return _write(root / ".claude" / "projects" / "-home-dev-shop" / f"{sid}.jsonl", lines)


def _codex_call(sid: str, n: int, kind: str, arg: str, ok: bool) -> list[Json]:
    """The two response items of one call: an ``apply_patch`` edit, or a command."""
    cid = f"call_{uid(sid, n)[:20]}"
    if kind in ("edit", "write"):
        verb = "Update" if kind == "edit" else "Add"
        patch = f"*** Begin Patch\n*** {verb} File: {_abs(arg)}\n@@\n-a\n+b\n*** End Patch"
        done = json.dumps({"output": "Success.", "metadata": {"exit_code": 0}})
        return [{"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": cid},
                {"type": "custom_tool_call_output", "call_id": cid, "output": done}]
    cmd = arg if kind == "sh" else f"sed -n '1,200p' {arg}"
    return [{"type": "function_call", "name": "exec_command",
             "arguments": json.dumps({"cmd": cmd}), "call_id": cid},
            {"type": "function_call_output", "call_id": cid,
             "output": f"Process exited with code {0 if ok else 1}\nOutput:\n"}]


def codex(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    def line(kind: str, payload: Json) -> Json:
        return {"timestamp": _iso(at), "type": kind, "payload": payload}

    meta = {"id": sid, "timestamp": _iso(at), "cwd": PROJECT, "originator": "codex_cli_rs",
            "cli_version": "0.169.0", "source": "cli", "model_provider": "openai"}
    lines = [line("session_meta", meta), line("turn_context", {"cwd": PROJECT, "model": "gpt-5"}),
             line("response_item", {"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": text}]}),
             line("event_msg", {"type": "user_message", "message": text})]
    for n, (kind, arg, ok) in enumerate(calls):
        lines += [line("response_item", item) for item in _codex_call(sid, n, kind, arg, ok)]
    lines += [line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": "Done."}]}),
              line("event_msg", {"type": "agent_message", "message": "Done."})]
    name = f"rollout-{at:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    return _write(root / ".codex" / "sessions" / f"{at:%Y/%m/%d}" / name, lines)


def _copilot_call(sid: str, n: int, kind: str, arg: str, ok: bool) -> list[tuple[str, Json]]:
    names = {"sh": "bash", "edit": "edit", "read": "view", "write": "create"}
    cid = f"toolu_{uid(sid, n)[:24]}"
    args = {"command": arg, "description": "Run"} if kind == "sh" else {"path": _abs(arg)}
    done: Json = {"toolCallId": cid, "turnId": "0", "success": True, "result": {"content": "ok"}}
    if kind == "sh":
        done["shellExecution"] = {"exitCode": 0 if ok else 1}
    return [("tool.execution_start", {"toolCallId": cid, "toolName": names[kind],
                                      "arguments": args, "turnId": "0"}),
            ("tool.execution_complete", done)]


def copilot_cli(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    start = {"sessionId": sid, "version": 1, "producer": "copilot-agent",
             "copilotVersion": "1.0.102", "startTime": _iso(at),
             "context": {"cwd": PROJECT, "gitRoot": PROJECT}}
    events: list[tuple[str, Json]] = [
        ("session.start", start),
        ("user.message", {"content": text, "transformedContent": text, "turnId": "0"}),
        ("assistant.turn_start", {"turnId": "0"})]
    for n, (kind, arg, ok) in enumerate(calls):
        events += _copilot_call(sid, n, kind, arg, ok)
    events += [("assistant.message", {"content": "Done.", "messageId": uid(sid, "a"),
                                      "toolRequests": []}),
               ("assistant.turn_end", {"turnId": "0"})]
    lines = [{"type": kind, "data": data, "id": uid(sid, "e", i),
              "timestamp": _iso(at + timedelta(seconds=i)), "parentId": None}
             for i, (kind, data) in enumerate(events)]
    return _write(root / ".copilot" / "session-state" / sid / "events.jsonl", lines)


def _vscode_part(sid: str, n: int, kind: str, arg: str, ok: bool) -> Json:
    cid = f"call_{uid(sid, n)[:12]}"
    if kind == "sh":
        part: Json = {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal",
                      "toolCallId": cid, "invocationMessage": {"value": f"Running `{arg}`"},
                      "isComplete": True,
                      "toolSpecificData": {"kind": "terminal", "commandLine": {"original": arg}}}
        if not ok:
            part["resultDetails"] = {"isError": True, "output": [{"value": "exit code 1"}]}
        return part
    if kind == "read":
        return {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile", "toolCallId": cid,
                "invocationMessage": {"value": f"Reading [](file://{_abs(arg)}#1-1)"},
                "isComplete": True}
    return {"kind": "textEditGroup", "uri": {"path": _abs(arg), "scheme": "file"}, "edits": []}


def copilot_vscode(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    parts = [_vscode_part(sid, n, kind, arg, ok) for n, (kind, arg, ok) in enumerate(calls)]
    parts.append({"value": "Done.", "supportThemeIcons": False})
    ms = int(at.timestamp() * 1000)
    agent = {"extensionId": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"},
             "id": "github.copilot.editsAgent", "name": "agent"}
    request = {"requestId": f"request_{sid[:8]}", "timestamp": ms,
               "message": {"text": text, "parts": [{"kind": "text", "text": text}]},
               "agent": agent, "response": parts, "result": {"timings": {"totalElapsed": 900}},
               "modelState": {"value": 1, "completedAt": ms + 900}}
    state = {"version": 3, "creationDate": ms, "sessionId": sid, "initialLocation": "panel",
             "requests": [request]}
    storage = root / "Code" / "User" / "workspaceStorage" / "shop0001"
    _write(storage / "workspace.json", None, {"folder": f"file://{PROJECT}"})
    return _write(storage / "chatSessions" / f"{sid}.jsonl", [{"kind": 0, "v": state}])


WRITERS: dict[str, Callable[[Path, str, str, list[Call], datetime], Path]] = {
    "claude-code": claude, "codex": codex, "copilot-cli": copilot_cli,
    "copilot-vscode": copilot_vscode}
