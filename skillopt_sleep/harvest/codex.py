"""Codex: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``archived_sessions/``.

Lines are ``{timestamp, type, payload}``. Every user and assistant message is written
twice (a ``response_item`` and an ``event_msg`` mirror, adjacent, in either order); a
mirror is recognised by its text and counted once. Injected context (environment,
AGENTS.md, permissions) arrives as user messages and is not a request; the VS Code
extension wraps the request in an IDE-context preamble whose tail after
"## My request for Codex:" is the request. Failures come from exit codes, interrupts from
``turn_aborted``; ``compacted`` summaries are not requests.

A grown rollout is read from its checkpoint. Folding compares each message with the last
user request and the last answer through their sha256, so the resume state holds those
digests (never the texts, which would sit unredacted in the archive) and a mirror whose
two halves straddle the checkpoint is still folded. The state also keeps the calls whose
exit code may come later and the id, folder, version and headless flag the records gave.
The IDE preamble is stripped per message: it leaves no state behind.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.harvest.base import HarvestStats, Resume, project_of, to_utc
from skillopt_sleep.harvest.build import SessionBuilder
from skillopt_sleep.harvest.lines import JsonLines
from skillopt_sleep.harvest.resume import (
    ResumableSource,
    carry_over,
    check_same_session,
    digest,
    saved_state,
)
from skillopt_sleep.harvest.terminal import plain
from skillopt_sleep.records import SENTINEL, Session, Signal

__all__ = ["CodexSource", "default_root"]

NAME = "codex"

_INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions",
             "<INSTRUCTIONS>", "<codex_internal_context", "<permissions instructions",
             "<collaboration_mode", "<user_shell_command", "<turn_aborted", "<skill>",
             "<world_state")
_IDE_MARK = "## My request for Codex:"
_EXIT_TEXT = re.compile(r"(?:Exit code|Process exited with code):?\s*(-?\d+)")
_ABORTED = re.compile(r"aborted(?: by user)?\.?$", re.IGNORECASE)
_ABORT_LINES = 6
"""Lines of an output searched for the abort text: newer Codex opens every output with a
header (``Chunk ID: …``, ``Wall time: 12.0 seconds``) before it."""
_HEADLESS_ORIGINATORS = ("codex_exec", "codex_sdk_ts")
_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")


def default_root() -> Path:
    return paths.codex_home()


class CodexSource(ResumableSource):
    """Codex rollouts under ``root`` (the ``CODEX_HOME``)."""

    name = NAME
    home = staticmethod(default_root)

    def discover(self) -> list[Path]:
        """Live and archived rollouts; one file per session id, the newest by mtime."""
        newest: dict[str, tuple[float, Path]] = {}
        for tree in ("sessions", "archived_sessions"):
            for folder, _dirs, files in os.walk(self.root / tree):
                for name in files:
                    if not (name.startswith("rollout-") and name.endswith(".jsonl")):
                        continue
                    path = Path(folder) / name
                    match = _UUID_TAIL.search(name[: -len(".jsonl")])
                    key = match.group(1) if match else str(path)
                    try:
                        mtime = path.stat().st_mtime
                    except OSError:
                        continue
                    if key not in newest or mtime > newest[key][0]:
                        newest[key] = (mtime, path)
        return sorted(p for _, p in newest.values())

    def read_lines(self, lines: JsonLines, path: Path, resume: Resume | None
                   ) -> tuple[Session | None, dict[str, Any] | None]:
        return _read(lines, path, self.stats, resume)


class _Reader:
    """Per-file state: the builder plus what is needed to fold the mirrored messages.

    ``last_user`` and ``last_answer`` are digests ("" for none): the last request, and
    the last answer since it.
    """

    def __init__(self, builder: SessionBuilder):
        self.b = builder
        self.last_user = ""
        self.last_answer = ""
        self.cut_off: set[str] = set()
        """Calls an interrupt cut off: no later output may mark them finished."""

    def line(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            raise TypeError("payload is not an object")  # counted as a skipped line
        when = to_utc(record.get("timestamp"))
        self.b.seen(when)
        if kind == "session_meta":
            self.meta(payload)
        elif kind == "turn_context":
            if isinstance(payload.get("cwd"), str) and not self.b.cwd:
                self.b.cwd = payload["cwd"]
        elif kind == "response_item":
            self.item(payload, when)
        elif kind == "event_msg":
            self.event(payload, when)

    def meta(self, p: dict[str, Any]) -> None:
        b = self.b
        if isinstance(p.get("id"), str) and not b.session_id:
            b.session_id = p["id"]
        if isinstance(p.get("cwd"), str):
            b.cwd = p["cwd"]
        b.format_version = str(p.get("cli_version") or b.format_version)
        originator = str(p.get("originator") or "")
        if originator in _HEADLESS_ORIGINATORS or p.get("source") == "exec":
            b.headless = True
        for key in ("instructions", "base_instructions"):
            if SENTINEL in json.dumps(p.get(key) or "")[:200000]:
                b.sentinel = True

    def item(self, p: dict[str, Any], when: datetime | None) -> None:
        kind = p.get("type")
        if kind == "message":
            text = "".join(c.get("text", "") for c in p.get("content") or []
                           if isinstance(c, dict) and isinstance(c.get("text"), str))
            if p.get("role") == "user":
                self.user(text, when)
            elif p.get("role") == "assistant":
                self.assistant(text)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self.call(p)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(str(p.get("call_id", "")), p.get("output"))

    def event(self, p: dict[str, Any], when: datetime | None) -> None:
        kind = p.get("type")
        if kind == "user_message" and isinstance(p.get("message"), str):
            self.user(p["message"], when)
        elif kind == "agent_message" and isinstance(p.get("message"), str):
            self.assistant(p["message"])
        elif kind == "turn_aborted":
            self.b.signal(Signal.INTERRUPTED)
            self.last_user = ""  # the same words typed again after an abort are a new turn
        elif kind == "item_completed" and isinstance(p.get("item"), dict):
            self.completed(p["item"])
        elif kind == "exec_command_end":
            code = p.get("exit_code")
            call_id = str(p.get("call_id", ""))
            if code == 0:
                self.b.tool_result(call_id, True)
            elif isinstance(code, int):
                head = p.get("stderr") or p.get("aggregated_output") or ""
                self.b.tool_result(call_id, False,
                                   f"exit {code}: {self.b.tail(plain(str(head)), 400)}",
                                   Signal.NONZERO_EXIT, code)

    def user(self, text: str, when: datetime | None) -> None:
        if SENTINEL in text:
            self.b.sentinel = True
        request = _request_of(text)
        if not request:
            return
        key = digest(request)
        if key == self.last_user and not self.last_answer:
            return  # the mirror of the message just seen
        self.last_user, self.last_answer = key, ""
        self.b.start_turn(request, when)

    def assistant(self, text: str) -> None:
        if not text.strip():
            return
        key = digest(text)
        if key == self.last_answer:
            return
        self.last_answer = key
        self.b.answer(text)

    def call(self, p: dict[str, Any]) -> None:
        raw = p.get("arguments", p.get("input", p.get("action")))
        args: Any = raw
        if isinstance(raw, str):
            try:
                args = json.loads(raw)
            except ValueError:
                args = {"input": raw}
        name = str(p.get("name") or p.get("type") or "?")
        call_id = str(p.get("call_id") or p.get("id") or "")
        self.b.add_tool(call_id, name, args if isinstance(args, dict) else {})

    def output(self, call_id: str, output: Any) -> None:
        code, text = _exit_of(output)
        if code is not None and code != 0:
            self.b.tool_result(call_id, False,
                               f"exit {code}: {self.b.tail(plain(text), 400)}",
                               Signal.NONZERO_EXIT, code)
        elif code is None and _aborted(text):
            # The output Codex writes for a call the user's interrupt cut off ("aborted by
            # user", after the wall time in newer versions): it never finished.
            self.unfinished(call_id)
        elif call_id not in self.cut_off:
            self.b.tool_result(call_id, True)

    def completed(self, item: dict[str, Any]) -> None:
        """``item_completed`` (0.1xx): a command's final status. ``failed`` with no exit
        code is a call the user cut off, whatever its output said before."""
        if item.get("type") != "CommandExecution":
            return
        call_id, code = str(item.get("id") or ""), item.get("exit_code")
        if item.get("status") == "failed" and not isinstance(code, int):
            self.unfinished(call_id)

    def unfinished(self, call_id: str) -> None:
        self.cut_off.add(call_id)
        call = self.b.calls.get(call_id)
        if call is not None and call.ok is True:
            call.ok = None


def _aborted(text: str) -> bool:
    return any(_ABORTED.match(line.strip())
               for line in text.strip().splitlines()[:_ABORT_LINES])


def _exit_of(output: Any) -> tuple[int | None, str]:
    """The exit code and text of a tool output (a JSON string in ≤0.1xx, plain text later)."""
    if isinstance(output, str):
        try:
            value = json.loads(output)
        except ValueError:
            match = _EXIT_TEXT.search(output[:300])
            return (int(match.group(1)) if match else None), output
        output = value
    if isinstance(output, dict):
        meta = output.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else output.get("exit_code")
        text = output.get("output") if isinstance(output.get("output"), str) else ""
        return (code if isinstance(code, int) else None), str(text)
    return None, ""


def _request_of(text: str) -> str:
    """The user's request inside a message, or "" for injected context."""
    stripped = text.strip()
    if _IDE_MARK in stripped:
        return stripped.rsplit(_IDE_MARK, 1)[1].strip()
    if stripped.startswith(_INJECTED):
        return ""
    return stripped


def _read(lines: JsonLines, path: Path, stats: HarvestStats, resume: Resume | None
          ) -> tuple[Session | None, dict[str, Any] | None]:
    reader = _Reader(SessionBuilder(NAME, stats))
    b = reader.b
    if resume is not None:
        carry_over(b, resume)
        reader.last_user, reader.last_answer = resume.state["fold"]
    for _offset, record in lines:
        try:
            reader.line(record)
        except (TypeError, AttributeError, KeyError, ValueError):
            stats.lines_skipped += 1
    own_id = b.session_id
    if not b.session_id:
        match = _UUID_TAIL.search(path.stem)
        b.session_id = match.group(1) if match else path.stem
    b.project = project_of(b.cwd)
    session = b.finish(str(path))
    check_same_session(session, resume)
    state = saved_state(b, session, lines, own_id, b.cwd)
    if state is not None:
        state["fold"] = [reader.last_user, reader.last_answer]
    return session, state
