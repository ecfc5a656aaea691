"""The multilingual mining benchmark's requests, written as the four agents record them.

    python experiments/multilingual_data.py   # rewrites tests/data/multilingual_requests.jsonl

Each labelled request of ``tests/data/multilingual_families.py`` becomes one session of
one agent (Claude Code, Codex, Copilot CLI, VS Code Copilot Chat in turn), with the tool
calls its family's steps pick (seeded: the same data every run), written in that agent's
own transcript format; the real harvesters read them back, and ``requests_from_sessions``
turns them into the requests mining sees, fingerprints included. Nothing here knows the
fingerprint: it only writes transcripts.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.harvest.sources import make_source  # noqa: E402
from skillopt_sleep.mine.requests import requests_from_sessions  # noqa: E402
from tests.data.multilingual_families import FAMILIES, NEAR_MISSES, PROJECT  # noqa: E402

OUT = ROOT / "tests" / "data" / "multilingual_requests.jsonl"
EPOCH = datetime(2026, 10, 1, 9, 0, 0)
AGENTS = ("claude-code", "codex", "copilot-cli", "copilot-vscode")
Call = tuple[str, str, bool]  # (kind: sh/edit/read/write, command or path, ok)
_PEEKS: list[Call] = [
    ("sh", "ls", True),
    ("sh", "git status", True),
    ("read", "README.md", True),
    ("sh", "cat pyproject.toml", True),
    ("sh", "rg TODO api", True),
]


def plan(steps: list[tuple[str, Any]], rng: random.Random) -> list[Call]:
    """The calls an agent makes for one request: one pick per step, a failing first run of
    the family's check when its ``fail`` step says so, now and then a look around first."""
    fail = next((p for kind, p in steps if kind == "fail"), 0.0)
    calls: list[Call] = []
    if rng.random() < 0.35:
        calls.append(rng.choice(_PEEKS))
    failed = False
    for kind, choices in steps:
        if kind == "fail":
            continue
        pick = rng.choice(choices)
        if kind == "sh" and not failed and rng.random() < fail:
            failed = True
            calls.append(("sh", pick, False))
            continue
        calls.append((kind, pick, True))
    if failed and any(k in ("edit", "write") for k, _, _ in calls):
        first = next(c for c in calls if not c[2])
        calls.append((first[0], first[1], True))  # the agent fixed it: the check runs again
    return calls


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _uid(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, ":".join(map(str, parts))))


def _abs(path: str) -> str:
    return f"{PROJECT}/{path}"


def claude(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    names = {"sh": "Bash", "edit": "Edit", "read": "Read", "write": "Write"}
    msgs: list[tuple[str, Any]] = [("user", text)]
    for n, (kind, arg, ok) in enumerate(calls):
        cid = f"toolu_{_uid(sid, n)[:20]}"
        args = (
            {"command": arg, "description": "Run"}
            if kind == "sh"
            else {"file_path": _abs(arg)}
            | (
                {"old_string": "a", "new_string": "b"}
                if kind == "edit"
                else {"content": "x"}
                if kind == "write"
                else {}
            )
        )
        msgs.append(
            ("assistant", [{"type": "tool_use", "id": cid, "name": names[kind], "input": args}])
        )
        result = {
            "type": "tool_result",
            "tool_use_id": cid,
            "content": "ok" if ok else "Exit code 1\nFAILED",
        }
        msgs.append(("user", [result | ({} if ok else {"is_error": True})]))
    msgs.append(("assistant", [{"type": "text", "text": "Done."}]))
    lines, parent = [], None
    for j, (role, content) in enumerate(msgs):
        uid = _uid(sid, "m", j)
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            message |= {
                "id": f"msg_{uid[:8]}",
                "model": "claude-sonnet-4-5",
                "type": "message",
                "stop_reason": "end_turn" if j == len(msgs) - 1 else "tool_use",
            }
        lines.append(
            {
                "type": role,
                "uuid": uid,
                "parentUuid": parent,
                "sessionId": sid,
                "cwd": PROJECT,
                "version": "2.1.330",
                "entrypoint": "cli",
                "isSidechain": False,
                "userType": "external",
                "timestamp": _iso(at + timedelta(seconds=j)),
                "message": message,
            }
        )
        parent = uid
    path = root / ".claude" / "projects" / "-home-dev-shop" / f"{sid}.jsonl"
    return _write(path, lines)


def codex(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": _iso(at), "type": kind, "payload": payload}

    lines = [
        line(
            "session_meta",
            {
                "id": sid,
                "timestamp": _iso(at),
                "cwd": PROJECT,
                "originator": "codex_cli_rs",
                "cli_version": "0.169.0",
                "source": "cli",
                "model_provider": "openai",
            },
        ),
        line("turn_context", {"cwd": PROJECT, "model": "gpt-5"}),
        line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        ),
        line("event_msg", {"type": "user_message", "message": text}),
    ]
    for n, (kind, arg, ok) in enumerate(calls):
        cid = f"call_{_uid(sid, n)[:20]}"
        if kind in ("edit", "write"):
            verb = "Update" if kind == "edit" else "Add"
            patch = f"*** Begin Patch\n*** {verb} File: {_abs(arg)}\n@@\n-a\n+b\n*** End Patch"
            lines += [
                line(
                    "response_item",
                    {
                        "type": "custom_tool_call",
                        "name": "apply_patch",
                        "input": patch,
                        "call_id": cid,
                    },
                ),
                line(
                    "response_item",
                    {
                        "type": "custom_tool_call_output",
                        "call_id": cid,
                        "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}}),
                    },
                ),
            ]
            continue
        cmd = arg if kind == "sh" else f"sed -n '1,200p' {arg}"
        lines += [
            line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": cmd}),
                    "call_id": cid,
                },
            ),
            line(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": f"Process exited with code {0 if ok else 1}\nOutput:\n",
                },
            ),
        ]
    lines += [
        line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Done."}],
            },
        ),
        line("event_msg", {"type": "agent_message", "message": "Done."}),
    ]
    path = (
        root
        / ".codex"
        / "sessions"
        / f"{at:%Y/%m/%d}"
        / f"rollout-{at:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    )
    return _write(path, lines)


def copilot_cli(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    names = {"sh": "bash", "edit": "edit", "read": "view", "write": "create"}
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "session.start",
            {
                "sessionId": sid,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": "1.0.102",
                "startTime": _iso(at),
                "context": {"cwd": PROJECT, "gitRoot": PROJECT},
            },
        ),
        ("user.message", {"content": text, "transformedContent": text, "turnId": "0"}),
        ("assistant.turn_start", {"turnId": "0"}),
    ]
    for n, (kind, arg, ok) in enumerate(calls):
        cid = f"toolu_{_uid(sid, n)[:24]}"
        args = {"command": arg, "description": "Run"} if kind == "sh" else {"path": _abs(arg)}
        done: dict[str, Any] = {
            "toolCallId": cid,
            "turnId": "0",
            "success": True,
            "result": {"content": "ok"},
        }
        if kind == "sh":
            done["shellExecution"] = {"exitCode": 0 if ok else 1}
        events += [
            (
                "tool.execution_start",
                {"toolCallId": cid, "toolName": names[kind], "arguments": args, "turnId": "0"},
            ),
            ("tool.execution_complete", done),
        ]
    events += [
        (
            "assistant.message",
            {"content": "Done.", "messageId": _uid(sid, "a"), "toolRequests": []},
        ),
        ("assistant.turn_end", {"turnId": "0"}),
    ]
    lines = [
        {
            "type": kind,
            "data": data,
            "id": _uid(sid, "e", i),
            "timestamp": _iso(at + timedelta(seconds=i)),
            "parentId": None,
        }
        for i, (kind, data) in enumerate(events)
    ]
    return _write(root / ".copilot" / "session-state" / sid / "events.jsonl", lines)


def copilot_vscode(root: Path, sid: str, text: str, calls: list[Call], at: datetime) -> Path:
    parts: list[dict[str, Any]] = []
    for n, (kind, arg, ok) in enumerate(calls):
        cid = f"call_{_uid(sid, n)[:12]}"
        if kind == "sh":
            part: dict[str, Any] = {
                "kind": "toolInvocationSerialized",
                "toolId": "run_in_terminal",
                "toolCallId": cid,
                "invocationMessage": {"value": f"Running `{arg}`"},
                "isComplete": True,
                "toolSpecificData": {"kind": "terminal", "commandLine": {"original": arg}},
            }
            if not ok:
                part["resultDetails"] = {"isError": True, "output": [{"value": "exit code 1"}]}
            parts.append(part)
        elif kind == "read":
            parts.append(
                {
                    "kind": "toolInvocationSerialized",
                    "toolId": "copilot_readFile",
                    "toolCallId": cid,
                    "invocationMessage": {"value": f"Reading [](file://{_abs(arg)}#1-1)"},
                    "isComplete": True,
                }
            )
        else:
            parts.append(
                {"kind": "textEditGroup", "uri": {"path": _abs(arg), "scheme": "file"}, "edits": []}
            )
    parts.append({"value": "Done.", "supportThemeIcons": False})
    ms = int(at.timestamp() * 1000)
    state = {
        "version": 3,
        "creationDate": ms,
        "sessionId": sid,
        "initialLocation": "panel",
        "requests": [
            {
                "requestId": f"request_{sid[:8]}",
                "timestamp": ms,
                "message": {"text": text, "parts": [{"kind": "text", "text": text}]},
                "agent": {
                    "extensionId": {
                        "value": "GitHub.copilot-chat",
                        "_lower": "github.copilot-chat",
                    },
                    "id": "github.copilot.editsAgent",
                    "name": "agent",
                },
                "response": parts,
                "result": {"timings": {"totalElapsed": 900}},
                "modelState": {"value": 1, "completedAt": ms + 900},
            }
        ],
    }
    storage = root / "Code" / "User" / "workspaceStorage" / "shop0001"
    _write(storage / "workspace.json", None, {"folder": f"file://{PROJECT}"})
    return _write(storage / "chatSessions" / f"{sid}.jsonl", [{"kind": 0, "v": state}])


def _write(
    path: Path, lines: list[dict[str, Any]] | None, whole: dict[str, Any] | None = None
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if lines is None:
        path.write_text(json.dumps(whole), encoding="utf-8")
    else:
        path.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
        )
    return path


WRITERS: dict[str, Callable[[Path, str, str, list[Call], datetime], Path]] = {
    "claude-code": claude,
    "codex": codex,
    "copilot-cli": copilot_cli,
    "copilot-vscode": copilot_vscode,
}


def labelled() -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """``(label, language, text, steps)`` of every request: family members, then singles."""
    for name, family in FAMILIES.items():
        for lang, texts in family["text"].items():
            for text in texts:
                yield name, lang, text, family["steps"]
    for miss in NEAR_MISSES:
        yield f"near:{miss.get('work', miss['id'])}", miss["lang"], miss["text"], miss["steps"]


def build(root: Path, seed: int = 0) -> list[dict[str, Any]]:
    """Write every request's session under ``root`` and harvest it back: the requests as
    mining sees them, each with its ``family`` label and ``lang``."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n, (label, lang, text, steps) in enumerate(labelled()):
        agent = AGENTS[n % len(AGENTS)]
        sid = _uid("multilingual", seed, n)
        path = WRITERS[agent](root, sid, text, plan(steps, rng), EPOCH + timedelta(hours=n))
        sessions = list(make_source(agent, root).sessions_from(path))
        found = list(requests_from_sessions(sessions))
        if len(found) != 1:
            raise RuntimeError(f"{agent} session {path} gave {len(found)} requests")
        request = found[0]
        out.append(
            {
                "id": request.id,
                "session_id": request.session_id,
                "project": request.project,
                "source": request.source,
                "text": request.text,
                "actions": request.actions,
                "family": label,
                "lang": lang,
            }
        )
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="multilingual-") as tmp:
        rows = build(Path(tmp))
    OUT.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} requests, {len({r['family'] for r in rows})} labels -> {OUT}")


if __name__ == "__main__":
    main()
