"""GitHub Copilot CLI: ``$COPILOT_HOME/session-state/<id>/events.jsonl`` (default ``~/.copilot``).

An append-only event log ``{type, data, id, parentId, timestamp, agentId?}``. It is the
authoritative record (the ``session-store.db`` index has no tool failures and no subagent
separation). Events of a subagent carry ``agentId`` / ``data.parentToolCallId``; they are
attributed to the parent tool call (counted in its arguments), never to the main thread.
The project comes from ``session.start`` ``context.cwd`` (``workspace.yaml`` as fallback);
sessions driven by VS Code name their folder in ``vscode.metadata.json``.

A grown log is read from its checkpoint. The resume state keeps every tool call's place
in the archived turns (a later event may fail it, repeat its id, or be a subagent's work
counted on it) and the id, folder, version and headless flag the events gave; the
sidecar files are consulted again after each read, as a from-scratch read does.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from skillopt_sleep import paths
from skillopt_sleep.harvest.base import HarvestStats, Resume, project_of, to_utc
from skillopt_sleep.harvest.build import SessionBuilder
from skillopt_sleep.harvest.lines import JsonLines
from skillopt_sleep.harvest.resume import (
    ResumableSource,
    carry_over,
    check_same_session,
    saved_state,
)
from skillopt_sleep.harvest.terminal import plain
from skillopt_sleep.records import SENTINEL, Session, Signal

__all__ = ["CopilotCliSource", "default_root"]

NAME = "copilot-cli"

_HEADLESS_MARK = "non-interactive mode"
_HIDDEN_TOOLS = {"report_intent"}


def default_root() -> Path:
    return paths.copilot_home()


class CopilotCliSource(ResumableSource):
    """Copilot CLI sessions under ``root`` (the folder that contains ``session-state/``)."""

    name = NAME
    home = staticmethod(default_root)

    def discover(self) -> list[Path]:
        base = self.root / "session-state"
        found: list[Path] = []
        try:
            entries = list(os.scandir(base))
        except OSError:
            return []
        for entry in entries:
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "events.jsonl")):
                found.append(Path(entry.path) / "events.jsonl")
            elif entry.is_file() and entry.name.endswith(".jsonl"):
                found.append(Path(entry.path))  # the flat layout of older builds
        return sorted(found)

    def read_lines(self, lines: JsonLines, path: Path, resume: Resume | None
                   ) -> tuple[Session | None, dict[str, Any] | None]:
        return _read(lines, path, self.stats, resume)


class _Reader:
    def __init__(self, builder: SessionBuilder):
        self.b = builder

    def event(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        data = record.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            raise TypeError("event without a type or a data object")  # counted as skipped
        when = to_utc(record.get("timestamp"))
        self.b.seen(when)
        parent = data.get("parentToolCallId") or record.get("agentId")
        if parent:
            self.subagent(str(parent), kind, data)
            return
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, data, when)
        elif "abort" in kind:
            self.b.signal(Signal.INTERRUPTED)

    def start(self, data: dict[str, Any], when: datetime | None) -> None:
        b = self.b
        b.session_id = str(data.get("sessionId") or b.session_id)
        b.format_version = str(data.get("copilotVersion") or data.get("version") or "")
        context = data.get("context")
        if isinstance(context, dict) and isinstance(context.get("cwd"), str):
            b.cwd = context["cwd"]
        b.seen(to_utc(data.get("startTime")))

    def system(self, data: dict[str, Any], when: datetime | None) -> None:
        content = str(data.get("content") or "")
        if _HEADLESS_MARK in content:
            self.b.headless = True
        if SENTINEL in content:
            self.b.sentinel = True

    def user(self, data: dict[str, Any], when: datetime | None) -> None:
        content = data["content"]
        if not isinstance(content, str):
            raise TypeError("user.message content is not text")
        if content.strip():
            self.b.start_turn(content, when)

    def assistant(self, data: dict[str, Any], when: datetime | None) -> None:
        content = data.get("content")
        if isinstance(content, str):
            self.b.answer(content)
        for request in data.get("toolRequests") or []:
            if isinstance(request, dict):
                self.tool(str(request.get("toolCallId", "")), request.get("name"),
                          request.get("arguments"))

    def tool_start(self, data: dict[str, Any], when: datetime | None) -> None:
        self.tool(str(data.get("toolCallId", "")), data.get("toolName"), data.get("arguments"))

    def tool(self, call_id: str, name: Any, args: Any) -> None:
        if not isinstance(name, str) or name in _HIDDEN_TOOLS or call_id in self.b.calls:
            return
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {"input": args}
        self.b.add_tool(call_id, name, args)

    def tool_done(self, data: dict[str, Any], when: datetime | None) -> None:
        # 1.0.10x reports a shell command that ran but exited non-zero as a success, with
        # the code in ``shellExecution.exitCode``.
        shell = data.get("shellExecution")
        code = shell.get("exitCode") if isinstance(shell, dict) else None
        exited = isinstance(code, int) and code != 0
        call_id = str(data.get("toolCallId", ""))
        if data.get("success") is not False and not exited:
            self.b.tool_result(call_id, True)
            return
        result = data.get("result") or data.get("error")
        head = ""
        if isinstance(result, dict):
            head = str(result.get("content") or result.get("message") or "")
        elif isinstance(result, str):
            head = result
        head = plain(head)
        if exited and data.get("success") is not False:
            self.b.tool_result(call_id, False, f"exit {code}: {head}", Signal.NONZERO_EXIT,
                               code if isinstance(code, int) else None)
        else:
            self.b.tool_result(call_id, False, head,
                               exit_code=code if isinstance(code, int) else None)

    def shutdown(self, data: dict[str, Any], when: datetime | None) -> None:
        changes = data.get("codeChanges")
        files = changes.get("filesModified") if isinstance(changes, dict) else None
        for name in files if isinstance(files, list) else []:
            if isinstance(name, str):
                self.b.touched(name)

    def subagent(self, parent: str, kind: str, data: dict[str, Any]) -> None:
        """A subagent's event: counted on the tool call that started it, nowhere else."""
        call = self.b.calls.get(parent)
        if call is None:
            return
        if kind == "tool.execution_start":
            call.args["subagent_tool_calls"] = int(call.args.get("subagent_tool_calls", 0)) + 1
        elif kind == "tool.execution_complete" and data.get("success") is False:
            call.args["subagent_tool_errors"] = int(call.args.get("subagent_tool_errors", 0)) + 1


_HANDLERS = {
    "session.start": _Reader.start,
    "system.message": _Reader.system,
    "user.message": _Reader.user,
    "assistant.message": _Reader.assistant,
    "tool.execution_start": _Reader.tool_start,
    "tool.execution_complete": _Reader.tool_done,
    "session.shutdown": _Reader.shutdown,
}


def _read(lines: JsonLines, path: Path, stats: HarvestStats, resume: Resume | None
          ) -> tuple[Session | None, dict[str, Any] | None]:
    reader = _Reader(SessionBuilder(NAME, stats))
    b = reader.b
    if resume is not None:
        carry_over(b, resume)
    for _offset, record in lines:
        try:
            reader.event(record)
        except (TypeError, AttributeError, KeyError, ValueError):
            stats.lines_skipped += 1
    own_id, log_cwd = b.session_id, b.cwd
    _sidecars(path.parent, b)
    if not b.session_id:
        b.session_id = path.parent.name if path.name == "events.jsonl" else path.stem
    b.project = project_of(b.cwd)
    session = b.finish(str(path))
    check_same_session(session, resume)
    return session, saved_state(b, session, lines, own_id, log_cwd, every_call=True)


def _sidecars(folder: Path, b: SessionBuilder) -> None:
    """``workspace.yaml`` and ``vscode.metadata.json`` fill what the log left out."""
    if b.cwd:
        return
    try:
        meta = json.loads((folder / "vscode.metadata.json").read_text("utf-8", "replace"))
        path = meta.get("workspaceFolder", {}).get("folderPath")
        if isinstance(path, str) and path:
            b.cwd = path
            return
    except (OSError, ValueError, AttributeError):
        pass
    try:
        workspace = yaml.safe_load((folder / "workspace.yaml").read_text("utf-8", "replace"))
        if isinstance(workspace, dict) and isinstance(workspace.get("cwd"), str):
            b.cwd = workspace["cwd"]
    except (OSError, yaml.YAMLError):
        pass
