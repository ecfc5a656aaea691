"""A user's history with a distinct canary secret in every string field a harvester reads,
for all four transcript formats.

Each planted field has a label (``<source> <record type> <field>``); its secret is
``ghp_`` + 36 characters unique to the label (a GitHub token shape: caught by vendor prefix
whatever the rules around it), and it is written next to a marker ``CANARY-<n>`` that is
no secret, so a test can tell that the planted text reached a surface redacted (marker
present, secret absent) rather than not at all.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_TS = "2026-01-05T10:0{}:00.000Z"


@dataclass(frozen=True)
class Field:
    label: str
    kept: bool = True
    """Whether the harvest keeps this field's text (the marker must then reach the archive);
    a working folder is read but not kept (it names the project)."""


FIELDS: tuple[Field, ...] = (
    Field("claude-code session id"),
    Field("claude-code cwd", kept=False),
    Field("claude-code user request"),
    Field("claude-code user request block"),
    Field("claude-code slash command args"),
    Field("claude-code answer"),
    Field("claude-code tool name"),
    Field("claude-code tool command"),
    Field("claude-code tool file path"),
    Field("claude-code tool file content"),
    Field("claude-code tool list arg"),
    Field("claude-code tool error output"),
    Field("claude-code snapshot file"),
    Field("codex session id"),
    Field("codex cwd", kept=False),
    Field("codex user message"),
    Field("codex answer"),
    Field("codex function name"),
    Field("codex function command"),
    Field("codex function output"),
    Field("codex custom tool input"),
    Field("codex exec stderr"),
    Field("copilot-cli session id"),
    Field("copilot-cli cwd", kept=False),
    Field("copilot-cli user message"),
    Field("copilot-cli answer"),
    Field("copilot-cli tool request name"),
    Field("copilot-cli tool request arguments"),
    Field("copilot-cli tool start arguments"),
    Field("copilot-cli tool error"),
    Field("copilot-cli modified file"),
    Field("copilot-vscode session id"),
    Field("copilot-vscode workspace folder", kept=False),
    Field("copilot-vscode request"),
    Field("copilot-vscode answer"),
    Field("copilot-vscode tool invocation message"),
    Field("copilot-vscode subagent name"),
    Field("copilot-vscode tool error output"),
    Field("copilot-vscode edited file"),
)
LABELS = [f.label for f in FIELDS]


def secret(label: str) -> str:
    return "ghp_" + hashlib.sha256(label.encode()).hexdigest()[:36]


def marker(label: str) -> str:
    return f"CANARY-{LABELS.index(label):02d}"


def plant(label: str) -> str:
    """The planted text: the marker, then the secret as a user would paste it."""
    return f"{marker(label)} uses {secret(label)} here"


def bare(label: str) -> str:
    """For an identifier or a path part: no spaces."""
    return f"{marker(label)}-{secret(label)}"


def _lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def write_claude(home: Path, project: Path) -> None:
    cwd = f"{project}/{bare('claude-code cwd')}"
    base = {"cwd": cwd, "sessionId": bare("claude-code session id"), "version": "2.0.1",
            "userType": "external", "isSidechain": False}
    records: list[dict[str, Any]] = []

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        n = len(records)
        records.append(base | extra | {
            "type": kind, "message": message, "uuid": f"u{n}",
            "parentUuid": f"u{n - 1}" if n else None, "timestamp": _TS.format(n % 10)})

    add("user", {"role": "user", "content": "fix the build " + plant("claude-code user request")})
    add("assistant", {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash " + plant("claude-code tool name"),
         "input": {"command": "make " + plant("claude-code tool command"),
                   "paths": ["a.txt", plant("claude-code tool list arg")]}},
        {"type": "tool_use", "id": "t2", "name": "Write",
         "input": {"file_path": f"{project}/src/{bare('claude-code tool file path')}.py",
                   "content": "TOKEN = 1\n" + plant("claude-code tool file content")}}]})
    add("user", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "Exit code 2\nmake: failed " + plant("claude-code tool error output")},
        {"type": "tool_result", "tool_use_id": "t2", "content": "written"}]})
    add("assistant", {"role": "assistant", "content": [
        {"type": "text", "text": "Fixed it. " + plant("claude-code answer")}]})
    add("user", {"role": "user", "content": [
        {"type": "text", "text": "now run the tests " + plant("claude-code user request block")}]})
    add("assistant", {"role": "assistant", "content": "Done."})
    add("user", {"role": "user", "content": (
        "<command-name>/review</command-name><command-args>"
        + plant("claude-code slash command args") + "</command-args>")})
    add("assistant", {"role": "assistant", "content": "Reviewed."})
    records.append({"type": "file-history-snapshot", "messageId": "m1", "snapshot": {
        "trackedFileBackups": {f"notes/{bare('claude-code snapshot file')}.md": {}}}})
    slug = "".join(c if c.isalnum() else "-" for c in str(project))
    _lines(home / ".claude" / "projects" / slug / "canary-claude.jsonl", records)


def write_codex(home: Path, project: Path) -> None:
    sid = bare("codex session id")
    records: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {
            "id": sid, "cwd": f"{project}/{bare('codex cwd')}", "cli_version": "0.50.0",
            "originator": "codex_cli_rs"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "deploy it " + plant("codex user message")}]}},
        {"type": "response_item", "payload": {
            "type": "function_call", "name": "shell " + plant("codex function name"),
            "call_id": "c1", "arguments": json.dumps(
                {"command": ["bash", "-lc", "deploy " + plant("codex function command")]})}},
        {"type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c1", "output": json.dumps(
                {"output": "failed " + plant("codex function output"),
                 "metadata": {"exit_code": 1}})}},
        {"type": "response_item", "payload": {
            "type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
            "input": "*** Begin Patch\n" + plant("codex custom tool input")}},
        {"type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "c3",
            "arguments": json.dumps({"command": ["ls"]})}},
        {"type": "event_msg", "payload": {
            "type": "exec_command_end", "call_id": "c3", "exit_code": 2,
            "stderr": "ls: denied " + plant("codex exec stderr")}},
        {"type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Deployed. " + plant("codex answer")}]}},
    ]
    for n, record in enumerate(records):
        record["timestamp"] = _TS.format(n)
    folder = home / ".codex" / "sessions" / "2026" / "01" / "05"
    _lines(folder / "rollout-2026-01-05T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl",
           records)


def write_copilot_cli(home: Path, project: Path) -> None:
    events: list[tuple[str, dict[str, Any]]] = [
        ("session.start", {"sessionId": bare("copilot-cli session id"),
                           "copilotVersion": "1.0.102",
                           "context": {"cwd": f"{project}/{bare('copilot-cli cwd')}"}}),
        ("user.message", {"content": "list the files " + plant("copilot-cli user message")}),
        ("assistant.message", {"content": "Listing. " + plant("copilot-cli answer"),
                               "toolRequests": [{
                                   "toolCallId": "k1",
                                   "name": "bash " + plant("copilot-cli tool request name"),
                                   "arguments": {"command": "ls " + plant(
                                       "copilot-cli tool request arguments")}}]}),
        ("tool.execution_start", {"toolCallId": "k2", "toolName": "view", "arguments": {
            "path": "src " + plant("copilot-cli tool start arguments")}}),
        ("tool.execution_complete", {"toolCallId": "k1", "success": False, "result": {
            "content": "ls: cannot open " + plant("copilot-cli tool error")}}),
        ("tool.execution_complete", {"toolCallId": "k2", "success": True}),
        ("session.shutdown", {"codeChanges": {"filesModified": [
            f"{project}/{bare('copilot-cli modified file')}.txt"]}}),
    ]
    records = [{"type": kind, "data": data, "id": f"e{n}", "timestamp": _TS.format(n)}
               for n, (kind, data) in enumerate(events)]
    _lines(home / ".copilot" / "session-state" / "canary-cli" / "events.jsonl", records)


def write_copilot_vscode(home: Path, project: Path) -> None:
    workspace = home / ".config" / "Code" / "User" / "workspaceStorage" / "canaryws"
    workspace.mkdir(parents=True, exist_ok=True)
    folder = f"{project}/{bare('copilot-vscode workspace folder')}"
    (workspace / "workspace.json").write_text(json.dumps({"folder": f"file://{folder}"}))
    response = [
        {"value": "Here is the change. " + plant("copilot-vscode answer")},
        {"kind": "toolInvocationSerialized", "toolCallId": "v1", "isComplete": True,
         "invocationMessage": {"value": "Reading " + plant(
             "copilot-vscode tool invocation message")}},
        {"kind": "toolInvocationSerialized", "toolCallId": "v2", "toolId": "runSubagent",
         "isComplete": True, "toolSpecificData": {
             "kind": "subagent", "agentName": plant("copilot-vscode subagent name")}},
        {"kind": "toolInvocationSerialized", "toolCallId": "v3", "toolId": "run_in_terminal",
         "isComplete": True, "resultDetails": {"isError": True, "output": [
             {"value": "denied " + plant("copilot-vscode tool error output")}]}},
        {"kind": "textEditGroup", "uri": {
            "path": f"{project}/{bare('copilot-vscode edited file')}.py"}},
    ]
    state = {"version": 3, "creationDate": 1767607200000, "lastMessageDate": 1767607260000,
             "sessionId": bare("copilot-vscode session id"), "requests": [{
                 "requestId": "r1", "timestamp": 1767607200000,
                 "message": {"text": "add a test " + plant("copilot-vscode request")},
                 "response": response, "result": {}, "modelState": {
                     "value": 1, "completedAt": 1767607260000}}]}
    _lines(workspace / "chatSessions" / "canary.jsonl", [{"kind": 0, "v": state}])


def write_all(home: Path, project: Path) -> None:
    write_claude(home, project)
    write_codex(home, project)
    write_copilot_cli(home, project)
    write_copilot_vscode(home, project)


# --- the persona's own history, a distinct secret in each text leaf ----------------------

_TEXT_KEYS = {"text", "content", "message", "output", "arguments", "command", "stdout",
              "stderr", "aggregated_output", "prompt", "input", "cmd"}


class Planter:
    """Appends ``CANARY-p<n>`` and a secret of its own to every text leaf it walks."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}

    def text(self, value: str, where: str) -> str:
        if value.lstrip().startswith(("{", "[")):
            try:
                inner = json.loads(value)
            except ValueError:
                pass
            else:
                return json.dumps(self.walk(inner, where))
        label = f"persona {where} #{len(self.secrets)}"
        self.secrets[label] = secret(label)
        return f"{value} CANARY-p{len(self.secrets)} {self.secrets[label]}"

    def walk(self, node: Any, where: str, key: str = "") -> Any:
        if isinstance(node, dict):
            return {k: self.walk(v, where, k) for k, v in node.items()}
        if isinstance(node, list):
            return [self.walk(v, where, key) for v in node]
        if isinstance(node, str) and key in _TEXT_KEYS and node:
            return self.text(node, f"{where}.{key}")
        return node

    def plant_file(self, path: Path, where: str) -> None:
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.dumps(self.walk(json.loads(line), where)))
            except ValueError:
                out.append(line)
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
