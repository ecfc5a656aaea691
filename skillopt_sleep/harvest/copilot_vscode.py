"""VS Code GitHub Copilot Chat: ``<User>/workspaceStorage/<hash>/chatSessions/<id>.jsonl|.json``.

Three shapes, told apart by content: the current operation log (``{"kind": 0, "v": state}``
then set / splice / delete operations on paths), the legacy single JSON document, and an
"Export Chat" document (no id, no dates). The op-log is replayed past a damaged line: the
line is counted and skipped, and an operation that depended on it fails alone (counted),
so one bad line before a request's ``result`` no longer loses the session (a live writer's
truncated tail is the same case, at the end). A ``.json`` document that does not parse
keeps every request that still reads on its own (``_salvage``) and counts the rest.
The project is the folder named by ``workspace.json`` next to ``chatSessions``.
Stable, Insiders, VSCodium, portable and remote-server roots are all searched.

A grown op-log is read whole again: each operation edits a document that earlier ones
built, so resuming would mean keeping the whole document (unredacted) as state.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from skillopt_sleep.harvest.base import (
    HarvestStats,
    SourceBase,
    iter_json_lines,
    project_of,
    to_utc,
)
from skillopt_sleep.harvest.build import SessionBuilder
from skillopt_sleep.harvest.terminal import plain
from skillopt_sleep.records import SENTINEL, Session, Signal

__all__ = ["CopilotVSCodeSource", "default_roots"]

NAME = "copilot-vscode"

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
_VARIANTS = ("Code", "Code - Insiders", "VSCodium", "Code - OSS")
_TEXT_KINDS = {None, "markdownContent", "markdownVuln"}


def default_roots() -> list[Path]:
    """Every ``workspaceStorage`` folder VS Code may use on this machine."""
    home = Path.home()
    if sys.platform == "darwin":
        bases = [home / "Library" / "Application Support" / v for v in _VARIANTS]
    elif sys.platform == "win32":
        appdata = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming"))
        bases = [appdata / v for v in _VARIANTS]
    else:
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        bases = [config / v for v in _VARIANTS]
    roots = [b / "User" / "workspaceStorage" for b in bases]
    portable = os.environ.get("VSCODE_PORTABLE")
    if portable:
        roots.append(Path(portable) / "user-data" / "User" / "workspaceStorage")
    for server in (".vscode-server", ".vscode-server-insiders", ".vscodium-server"):
        roots.append(home / server / "data" / "User" / "workspaceStorage")
    return roots


class CopilotVSCodeSource(SourceBase):
    """Copilot Chat sessions under ``roots`` (``workspaceStorage`` folders)."""

    name = NAME
    many_roots = True
    """One source spans every VS Code flavour's ``workspaceStorage`` (``make_source``)."""

    def __init__(self, roots: list[Path] | Path | None = None, *,
                 include_headless: bool = False, stats: HarvestStats | None = None):
        if isinstance(roots, Path):
            roots = [roots]
        self.roots = roots if roots is not None else default_roots()
        self.include_headless = include_headless
        self.stats = stats or HarvestStats()

    def discover(self) -> list[Path]:
        found: list[Path] = []
        for root in self.roots:
            try:
                workspaces = [e.path for e in os.scandir(root) if e.is_dir()]
            except OSError:
                continue
            for workspace in workspaces:
                folder = os.path.join(workspace, "chatSessions")
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                found += [Path(folder) / n for n in names if n.endswith((".jsonl", ".json"))]
        return sorted(found)

    def sessions_from(self, path: Path) -> Iterator[Session]:
        try:
            state = _load(path, self.stats)
        except OSError as exc:
            self.stats.fail(path, exc)
            return
        if not isinstance(state, dict):
            return
        try:
            session = _session(state, path, self.stats)
        except (TypeError, AttributeError, KeyError, ValueError) as exc:
            self.stats.fail(path, exc)
            return
        if session is None:
            return
        self.stats.sessions[NAME] += 1
        yield session


# --- reading the document -----------------------------------------------------------------


def _load(path: Path, stats: HarvestStats) -> Any:
    if path.stat().st_size > MAX_DOCUMENT_BYTES:
        stats.lines_too_long += 1
        stats.lines_skipped += 1
        return None
    if path.suffix == ".json":
        stats.files_read += 1
        raw = path.read_bytes()
        stats.bytes_read += len(raw)
        text = raw.decode("utf-8", errors="replace")
        try:
            return json.loads(text)
        except ValueError:
            return _salvage(text, stats)
    return _replay(path, stats)


_REQUESTS = re.compile(r'"requests"\s*:\s*\[')
_REQUEST_START = re.compile(r'\{\s*"requestId"')
_HEAD_FIELD = re.compile(
    r'"(sessionId|version|creationDate|lastMessageDate)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


def _salvage(text: str, stats: HarvestStats) -> dict[str, Any] | None:
    """The requests of a damaged JSON document that still parse one by one; each damaged
    one is counted as a skipped line. Reading goes on at the next ``{"requestId"`` (how
    every request of a document starts); the id and dates before the requests are kept."""
    opened = _REQUESTS.search(text)
    if opened is None:
        stats.lines_skipped += 1
        return None
    decoder, requests, pos = json.JSONDecoder(), [], opened.end()
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            stats.lines_skipped += 1
            found = _REQUEST_START.search(text, pos + 1)
            if found is None:
                break
            pos = found.start()
            continue
        if isinstance(value, dict) and value:
            requests.append(value)
    if not requests:
        return None
    head = {m.group(1): json.loads(m.group(2)) for m in _HEAD_FIELD.finditer(text, 0,
                                                                          opened.start())}
    return {**head, "requests": requests}


def _replay(path: Path, stats: HarvestStats) -> Any:
    state: Any = None
    for op in iter_json_lines(path, stats):
        kind = op.get("kind")
        try:
            if kind == 0:
                state = op.get("v")
            elif kind in (1, 2, 3) and isinstance(op.get("k"), list):
                _apply(state, kind, op["k"], op.get("v"), op.get("i"))
            else:
                stats.lines_skipped += 1
        except (KeyError, IndexError, TypeError, ValueError):
            stats.lines_skipped += 1
    return state


def _apply(state: Any, kind: int, keys: list[Any], value: Any, index: Any) -> None:
    if not keys:
        raise ValueError("empty path")
    target = state
    for key in keys[:-1]:
        target = target[key]
    last = keys[-1]
    if kind == 1:
        if isinstance(target, list) and last == len(target):
            target.append(value)
        else:
            target[last] = value
    elif kind == 2:
        items = target[last] if not (isinstance(target, dict) and last not in target) else None
        if items is None:
            items = target[last] = []
        if isinstance(index, int):
            del items[index:]
        items.extend(value if isinstance(value, list) else [value])
    else:
        del target[last]


# --- from the document to a session -------------------------------------------------------


def _session(state: dict[str, Any], path: Path, stats: HarvestStats) -> Session | None:
    b = SessionBuilder(NAME, stats)
    b.session_id = str(state.get("sessionId") or path.stem)
    b.format_version = str(state.get("version") or "")
    b.cwd = _workspace_folder(path.parent.parent)
    b.seen(to_utc(state.get("creationDate")))
    b.seen(to_utc(state.get("lastMessageDate")))
    requests = state.get("requests")
    requests = [r for r in requests if isinstance(r, dict)] if isinstance(requests, list) else []
    # A request still running when the file was written is left out: the file changes when
    # it completes, and that harvest reads it whole (its checkpoint no longer matches).
    while requests and not _finished(requests[-1]):
        stats.dropped["unfinished"] += 1
        requests.pop()
    for request in requests:
        _request(b, request)
    b.project = project_of(b.cwd)
    return b.finish(str(path))


def _request(b: SessionBuilder, r: dict[str, Any]) -> None:
    if r.get("isSystemInitiated"):
        return
    message = r.get("message")
    text = message.get("text") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text.strip():
        return
    if SENTINEL in text:
        b.sentinel = True
    when = to_utc(r.get("timestamp"))
    b.seen(when)
    state = r.get("modelState")
    if isinstance(state, dict):
        b.seen(to_utc(state.get("completedAt")))
    agent = r.get("agent")
    if isinstance(agent, dict) and agent.get("extensionVersion") and "/" not in b.format_version:
        # session format / extension version: both matter when the format drifts
        b.format_version = f"{b.format_version or '?'}/{agent['extensionVersion']}"
    b.start_turn(text, when)
    if _finished(r):
        _response(b, r.get("response"))
        _outcome(b, r)
    else:
        # Cut off and never completed (a later request followed): the request happened,
        # its half-written answer is not an answer, and its tools' outcomes are unknown.
        _response(b, r.get("response"), answer=False)
        b.signal(Signal.INTERRUPTED)


def _finished(r: dict[str, Any]) -> bool:
    """Whether VS Code recorded the request's end: a ``result``, a cancel, or a model state
    past pending (0). A response alone is not an end: it streams in as it is written."""
    state = r.get("modelState")
    value = state.get("value") if isinstance(state, dict) else None
    if value == 0:
        return False
    return r.get("result") is not None or r.get("isCanceled") is True \
        or isinstance(value, int)


def _response(b: SessionBuilder, parts: Any, answer: bool = True) -> None:
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind in _TEXT_KINDS:
            value = part.get("value", part.get("content"))
            if isinstance(value, dict):
                value = value.get("value")
            if isinstance(value, str):
                texts.append(value)
        elif kind == "toolInvocationSerialized":
            _tool(b, part, len(b.current.tool_calls) if b.current else 0)
        elif kind == "textEditGroup":
            uri = part.get("uri")
            if isinstance(uri, dict) and isinstance(uri.get("path"), str):
                b.touched(uri["path"])
                # The edit is what the agent did in this turn (``mine.fingerprint``).
                b.add_tool("", "textEditGroup", {"path": uri["path"]})
    if texts and answer:
        b.answer("".join(texts))


_FILE_LINK = re.compile(r"\(file://([^)#\s]+)")


def _tool(b: SessionBuilder, part: dict[str, Any], position: int) -> None:
    name = part.get("toolId")
    data = part.get("toolSpecificData")
    if not isinstance(name, str):
        message = part.get("invocationMessage")
        name = message.get("value") if isinstance(message, dict) else message
        # The builder redacts the message, then cuts it: it is free text, not an id.
        name = str(name or "?")
    args: dict[str, Any] = {}
    if isinstance(data, dict) and isinstance(data.get("agentName"), str):
        args["agent"] = data["agentName"]
    message = part.get("pastTenseMessage") or part.get("invocationMessage")
    text = message.get("value") if isinstance(message, dict) else message
    link = _FILE_LINK.search(text) if isinstance(text, str) else None
    if link:  # "Reading [](file:///…/x.py#1-1)": the file a read or edit tool worked on
        args["path"] = unquote(link.group(1))
    line = data.get("commandLine") if isinstance(data, dict) else None
    if isinstance(line, dict):  # a terminal call: the command the user approved or edited
        command = line.get("toolEdited") or line.get("original")
        if isinstance(command, str):
            args["command"] = command
    call_id = str(part.get("toolCallId") or f"#{position}")
    b.add_tool(call_id, name, args)
    details = part.get("resultDetails")
    if isinstance(details, dict) and details.get("isError") is True:
        output = details.get("output")
        # Whole: the session's redaction cuts it after reading it (a cut here could split
        # a secret past the shape that finds it).
        head = plain(json.dumps(output, ensure_ascii=False)) if output is not None else ""
        b.tool_result(call_id, False, head)
    elif part.get("isComplete") is True:
        b.tool_result(call_id, True)


def _outcome(b: SessionBuilder, r: dict[str, Any]) -> None:
    result = r.get("result")
    error = result.get("errorDetails") if isinstance(result, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if r.get("isCanceled") is True or message == "Canceled":
        b.signal(Signal.CANCELLED)
    vote = r.get("vote")
    if vote == 1 or vote == "up":
        b.signal(Signal.VOTE_UP)
    elif vote == 0 or vote == "down" or r.get("voteDownReason"):
        b.signal(Signal.VOTE_DOWN)


def _workspace_folder(workspace: Path) -> str:
    """The folder a ``workspace.json`` names (a ``.code-workspace`` file: its folder)."""
    try:
        data = json.loads((workspace / "workspace.json").read_text("utf-8", "replace"))
    except (OSError, ValueError):
        return ""
    if not isinstance(data, dict):
        return ""
    uri = data.get("folder") or data.get("workspace") or data.get("configuration")
    if not isinstance(uri, str):
        return ""
    path = unquote(urlparse(uri).path) if "://" in uri else uri
    if sys.platform == "win32" and len(path) > 2 and path[0] == "/" and path[2] == ":":
        path = path[1:]
    if path.endswith(".code-workspace"):
        path = os.path.dirname(path)
    return path
