"""A value given under a key that names a secret is judged in that key's context, in every
mapping the harvest keeps (a tool's input in all four transcript formats) and in every JSON
surface (``redact_tree``): ``{"password": "hunter2"}`` loses ``hunter2`` though the value
alone holds nothing any rule reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.harvest.scrub import Scrubber
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.records import Session, to_dict
from skillopt_sleep.secrets import find_secrets, redact, redact_tree, redact_value

from ._secret_shapes import BENIGN

SECRET_ARGS = {"password": "hunter2", "db_pass": "Tr0ub4dor&3", "apiKey": "s3cr3t-v4lue",
               "session_token": "correct horse battery staple",
               "signature": "Xq7vR2mK9pLw4ZtB8nYc"}
BENIGN_ARGS = {"max_tokens": "4000", "token": "${GITHUB_TOKEN}", "password": "<your-password>",
               "key": "src/app.py", "auth": "oauth", "command": "ls -la",
               "secret_name": "DB_PASSWORD", "api_key": "os.environ['API_KEY']"}
_TS = "2026-01-05T10:0{}:00Z"


@pytest.mark.parametrize(("key", "value"), sorted(SECRET_ARGS.items()))
def test_a_value_under_a_secret_key_is_redacted_whole(key: str, value: str) -> None:
    assert redact(value) == (value, 0)  # alone it holds nothing a rule reads
    assert redact_value(key, value) == ("[REDACTED:password_pair]", 1)


@pytest.mark.parametrize(("key", "value"), sorted(BENIGN_ARGS.items()))
def test_a_reference_placeholder_or_ordinary_key_keeps_its_value(key: str, value: str) -> None:
    assert redact_value(key, value) == (value, 0)


def test_the_key_context_is_the_assignment_rules_own() -> None:
    """The same judgement as the value after that key in JSON text: one notion of a secret
    key and a secret value, not a second list."""
    for key, value in [*SECRET_ARGS.items(), *BENIGN_ARGS.items()]:
        as_text = json.dumps({key: value})
        assert (redact_value(key, value)[1] > 0) == bool(find_secrets(as_text)), as_text


def test_redact_tree_judges_nested_values_under_their_keys() -> None:
    tree = {"input": {"password": "hunter2", "user": "bob"}, "rows": [{"token": "hunter2"}],
            "n": 3, "max_tokens": "4000"}
    clean = redact_tree(tree)
    assert "hunter2" not in json.dumps(clean)
    assert clean["input"]["user"] == "bob" and clean["n"] == 3 and clean["max_tokens"] == "4000"


def test_benign_look_alikes_under_their_own_keys_stay_as_they_are() -> None:
    """The benign corpus's texts as the values of ordinary argument names are kept."""
    scrubber = Scrubber()
    for text in BENIGN:
        args = {"command": text, "description": text, "content": text}
        assert redact_tree(args) == args
        assert scrubber.items(list(args.values()), ("ToolCall", "args")) == \
            [scrubber.text(text, 400) for text in args.values()]


# --- the four transcript formats' tool inputs ---------------------------------------------


def _lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _claude(home: Path, args: dict[str, str]) -> Path:
    base = {"cwd": "/p", "sessionId": "s1", "version": "2.0.1", "userType": "external",
            "isSidechain": False}
    messages = [
        ("user", {"role": "user", "content": "log in to the database"}),
        ("assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "mcp__db__connect", "input": args}]}),
        ("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "connected"}]}),
        ("assistant", {"role": "assistant", "content": "Connected."})]
    _lines(home / "projects" / "-p" / "s1.jsonl", [
        base | {"type": kind, "message": message, "uuid": f"u{n}",
                "parentUuid": f"u{n - 1}" if n else None, "timestamp": _TS.format(n)}
        for n, (kind, message) in enumerate(messages)])
    return home


def _codex(home: Path, args: dict[str, str]) -> Path:
    records: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "0199aaaa-0000-7000-8000-000000000001",
                                             "cwd": "/p", "cli_version": "0.50.0"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "log in to the database"}]}},
        {"type": "response_item", "payload": {  # arguments as the JSON text Codex writes
            "type": "function_call", "name": "db_connect", "call_id": "c1",
            "arguments": json.dumps(args)}},
        {"type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c1", "output": "connected"}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text",
                                                           "text": "Connected."}]}}]
    for n, record in enumerate(records):
        record["timestamp"] = _TS.format(n)
    _lines(home / "sessions" / "2026" / "01" / "05"
           / "rollout-2026-01-05T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl", records)
    return home


def _copilot_cli(home: Path, args: dict[str, str]) -> Path:
    events: list[tuple[str, dict[str, Any]]] = [
        ("session.start", {"sessionId": "k", "copilotVersion": "1.0.102",
                           "context": {"cwd": "/p"}}),
        ("user.message", {"content": "log in to the database"}),
        ("assistant.message", {"content": "Connecting.", "toolRequests": [
            {"toolCallId": "k1", "name": "db_connect", "arguments": args}]}),
        ("tool.execution_start", {"toolCallId": "k2", "toolName": "db_query",
                                  "arguments": args}),
        ("tool.execution_complete", {"toolCallId": "k1", "success": True}),
        ("tool.execution_complete", {"toolCallId": "k2", "success": True})]
    _lines(home / "session-state" / "k" / "events.jsonl", [
        {"type": kind, "data": data, "id": f"e{n}", "timestamp": _TS.format(n)}
        for n, (kind, data) in enumerate(events)])
    return home


def _copilot_vscode(home: Path, args: dict[str, str]) -> Path:
    workspace = home / "ws1"
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text(json.dumps({"folder": "file:///p"}))
    response = [{"kind": "toolInvocationSerialized", "toolCallId": "v1", "toolId": "db_connect",
                 "isComplete": True, "toolSpecificData": {"kind": "input", "rawInput": args}},
                {"value": "Connected."}]
    state = {"version": 3, "creationDate": 1767607200000, "lastMessageDate": 1767607260000,
             "sessionId": "v", "requests": [{
                 "requestId": "r1", "timestamp": 1767607200000,
                 "message": {"text": "log in to the database"}, "response": response,
                 "result": {}, "modelState": {"value": 1, "completedAt": 1767607260000}}]}
    _lines(workspace / "chatSessions" / "v.jsonl", [{"kind": 0, "v": state}])
    return home


WRITERS = {"claude-code": _claude, "codex": _codex, "copilot-cli": _copilot_cli,
           "copilot-vscode": _copilot_vscode}
KEEPS_ARGS = {"claude-code", "codex", "copilot-cli"}
"""The formats whose reader keeps a tool's input (VS Code's keeps a subagent's name only)."""


def _harvest(name: str, tmp_path: Path, args: dict[str, str]) -> list[Session]:
    root = WRITERS[name](tmp_path / name, args)
    return list(make_source(name, root).sessions())


def _args_of(sessions: list[Session]) -> list[dict[str, Any]]:
    return [call.args for s in sessions for turn in s.turns for call in turn.tool_calls
            if call.args]


LONG = "hunter2-" * 60  # past the argument's limit: redacted as the reader hands it over


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_tool_inputs_under_secret_keys_are_redacted_in_every_format(name: str, tmp_path: Path
                                                                   ) -> None:
    sessions = _harvest(name, tmp_path, {**SECRET_ARGS, "passphrase": LONG, "user": "bob"})
    assert sessions and sessions[0].turns[0].tool_calls, f"{name}: no tool call read"
    dump = json.dumps([to_dict(s) for s in sessions])
    for value in [*SECRET_ARGS.values(), LONG[:20]]:
        assert value not in dump, (name, value)
    kept = _args_of(sessions)
    assert bool(kept) is (name in KEEPS_ARGS), f"{name}: tool arguments kept: {kept}"
    for args in kept:
        assert args["user"] == "bob"
        assert args["password"] == "[REDACTED:password_pair]"


@pytest.mark.parametrize("name", sorted(KEEPS_ARGS))
def test_tool_inputs_under_ordinary_keys_are_kept_in_every_format(name: str, tmp_path: Path
                                                                 ) -> None:
    kept = _args_of(_harvest(name, tmp_path, BENIGN_ARGS))
    assert kept, f"{name}: no tool arguments kept"
    for args in kept:
        assert args == BENIGN_ARGS
