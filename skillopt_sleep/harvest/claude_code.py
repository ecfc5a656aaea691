"""Claude Code: ``$CLAUDE_CONFIG_DIR/projects/<slug>/<session>.jsonl`` (default ``~/.claude``).

A file is a DAG of records linked by ``parentUuid``. The live conversation is the path
from the last record back to the root (``logicalParentUuid`` bridges a compaction);
records off that path are abandoned rewind branches. One pass keeps a small digest per
record (never the raw record), then the live path selects which records become turns.
Excluded: sidechain records and subagent files (all three layouts), ``isMeta`` bodies
(the expansion of a slash command), compaction summaries, ``summary`` lines, local
command output, and every record type this reader does not know.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.harvest.base import HarvestStats, Resume, project_of, to_utc
from skillopt_sleep.harvest.build import SessionBuilder
from skillopt_sleep.harvest.claude_events import (
    FILE_TOOLS,
    LOCAL_COMMANDS,
    Events,
    events_of,
    snapshot_files,
)
from skillopt_sleep.harvest.lines import JsonLines
from skillopt_sleep.harvest.resume import CannotResume, ResumableSource
from skillopt_sleep.records import Session, Signal, Turn

__all__ = ["ClaudeCodeSource", "default_root"]

NAME = "claude-code"

SPILL_BYTES = 32 * 1024 * 1024
"""Files larger than this keep line offsets instead of events (see ``_Scan``)."""


def default_root() -> Path:
    return paths.claude_home()


class ClaudeCodeSource(ResumableSource):
    """Claude Code sessions under ``root`` (the folder that contains ``projects/``)."""

    name = NAME
    home = staticmethod(default_root)

    def discover(self) -> list[Path]:
        base = self.root / "projects"
        found: list[str] = []
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d != "subagents"]
            for name in files:
                if name.endswith(".jsonl") and not name.startswith("agent-") \
                        and name != "journal.jsonl":
                    found.append(os.path.join(folder, name))
        # Sorted as paths sort (part by part), without comparing Path objects: a large
        # tree's no-change pass spent a third of its time there.
        found.sort(key=lambda name: name.split(os.sep))
        return [Path(name) for name in found]

    def read_lines(self, lines: JsonLines, path: Path, resume: Resume | None
                   ) -> tuple[Session | None, dict[str, Any] | None]:
        """With ``resume``, the new records extend the archived session; when they do not
        continue its live path (a rewind to an earlier record, a parent that cannot be
        placed) ``CannotResume`` has the file read whole instead."""
        return _read(lines, path, self.stats, resume)


def _read(lines: JsonLines, path: Path, stats: HarvestStats, resume: Resume | None
          ) -> tuple[Session | None, dict[str, Any] | None]:
    b = SessionBuilder(NAME, stats)
    scan = _Scan(b, spill=lines.size - lines.start > SPILL_BYTES)
    old_tool_files: list[str] = []
    if resume is not None:
        old_tool_files = scan.resume(resume)
    for offset, record in lines:
        try:
            scan.add(offset, record)
        except (TypeError, AttributeError, KeyError, ValueError):
            stats.lines_skipped += 1
    live = scan.live()
    if scan.first:
        b.seen(to_utc(scan.first))
        b.seen(to_utc(scan.last))
    if scan.cwds:
        b.cwd = scan.cwds.most_common(1)[0][0]
        b.project = project_of(b.cwd)
    if resume is not None and b.cwd != resume.state["cwd"]:
        raise CannotResume  # earlier tool paths were made relative to another folder
    own_id = b.session_id
    b.session_id = b.session_id or path.stem
    snapshot_files = len(b.files)
    for name in old_tool_files:
        b.touched(name)
    open_slash = b.current if resume is not None and resume.state["slash"] else None
    last = _replay(b, scan.live_events(lines, live), open_slash)
    session = b.finish(str(path))
    if session is None or not own_id or last == "dropped" or b.overflow or lines.past_end \
            or b.files_redacted or not scan.clean:
        return session, None
    state = scan.state(session, snapshot_files)
    state["slash"] = last == "slash"
    return session, state


class _Scan:
    """One pass over a file: the parent links of every record and each record's events.

    Events are kept inline; in a file over ``SPILL_BYTES`` only their line's offset is,
    and the few on the live path are parsed again, so memory stays flat in file size.
    A resumed scan holds only the new records; ``base`` is how many came before, and
    the earlier live path is represented by its leaf alone.
    """

    def __init__(self, builder: SessionBuilder, spill: bool):
        self.b = builder
        self.spill = spill
        self.cwds: Counter[str] = Counter()
        self.position: dict[str, int] = {}
        self.parents: list[int | str | None] = []
        self.payloads: list[Events | int] = []
        self.stamps: list[str | None] = []
        self.first = ""
        self.last = ""
        self.base = 0
        self.leaf = ""
        self.clean = True  # no live record's parent had to be guessed

    def resume(self, resume: Resume) -> list[str]:
        """Take up an earlier read's state; returns its tool-touched files, to add later."""
        state, session = resume.state, resume.session
        self.base, self.leaf = state["records"], state["leaf"]
        self.position[self.leaf] = self.base - 1
        self.cwds.update(dict(state["cwds"]))
        self.first, self.last = state["first"], state["last"]
        b = self.b
        b.resume(session, state["dropped"], state["calls"])
        b.format_version, b.headless = state["version"], state["headless"]
        files = session.files_touched
        for name in files[: state["snapshot_files"]]:
            b.touched(name)
        return files[state["snapshot_files"] :]

    def state(self, session: Session, snapshot_files: int) -> dict[str, Any]:
        """What a later read of the grown file needs to continue from here."""
        b = self.b
        return {
            "records": self.base + len(self.parents), "leaf": self.leaf,
            "cwds": list(self.cwds.items()), "first": self.first, "last": self.last,
            "cwd": b.cwd, "version": b.format_version, "headless": b.headless,
            "snapshot_files": snapshot_files,
            "dropped": len(b.turns) + b.turn_base - len(session.turns),
            "calls": b.open_calls(session.turns),
        }

    def add(self, offset: int, record: dict[str, Any]) -> None:
        get = record.get
        kind = get("type")
        if kind == "file-history-snapshot":
            snapshot_files(record, self.b)
            return
        uuid = get("uuid")
        if type(uuid) is not str or get("isSidechain") is True:
            return
        self.envelope(get)
        parent = get("parentUuid")
        if parent is None and kind == "system":
            parent = get("logicalParentUuid")
        when = get("timestamp")
        if type(when) is str and when:
            if not self.first or when < self.first:
                self.first = when
            if when > self.last:
                self.last = when
        else:
            when = None
        events = events_of(record, self.b) if kind == "user" or kind == "assistant" else ()
        self.position[uuid] = self.base + len(self.parents)
        self.leaf = uuid
        # A parent seen earlier is stored as its index: no second copy of its uuid.
        self.parents.append(self.position.get(parent, parent) if type(parent) is str
                            else None)
        self.payloads.append(offset if self.spill and events else events)
        self.stamps.append(when if events else None)

    def envelope(self, get: Any) -> None:
        b = self.b
        if not b.session_id:
            sid = get("sessionId")
            if isinstance(sid, str):
                b.session_id = sid
        if not b.format_version:
            version = get("version")
            if isinstance(version, str):
                b.format_version = version
        cwd = get("cwd")
        if type(cwd) is str and cwd:
            self.cwds[cwd] += 1
        entry = get("entrypoint")
        if isinstance(entry, str) and entry.startswith("sdk"):
            b.headless = True

    def live(self) -> list[int]:
        """Positions in ``parents`` of the new live records, in file order."""
        if not self.base:
            path, self.clean = _live(self.parents, self.position)
            return path
        # Resumed: the path from the new leaf must come back to the old leaf through
        # parents known when each record was read; anything else changes the old path.
        keep: list[int] = []
        index = len(self.parents) - 1
        while index >= 0:
            keep.append(index)
            parent = self.parents[index]
            if type(parent) is not int:
                raise CannotResume
            if parent == self.base - 1:
                break
            if not self.base <= parent < self.base + index:
                raise CannotResume
            index = parent - self.base
        return keep[::-1]

    def live_events(self, lines: JsonLines, live: list[int]
                    ) -> Iterator[tuple[Events, str | None]]:
        for index in live:
            payload = self.payloads[index]
            if isinstance(payload, int):
                record = lines.line_at(payload)
                payload = events_of(record, self.b) if record is not None else ()
            yield payload, self.stamps[index]


def _live(parents: list[int | str | None], position: dict[str, int]
          ) -> tuple[list[int], bool]:
    """Indices on the path from the last record back to the root, in file order.

    A parent that is missing (a line lost to corruption) continues with the record just
    before in the file, so one bad line cannot cut a session in half.
    """
    keep: set[int] = set()
    clean = True
    index: int | None = len(parents) - 1 if parents else None
    while index is not None and index not in keep:
        keep.add(index)
        parent = parents[index]
        if isinstance(parent, str):  # its parent came later in the file, or never
            clean = False
            parent = position.get(parent, index - 1 if index > 0 else None)
        index = parent
    return sorted(keep), clean


def _replay(b: SessionBuilder, live: Iterator[tuple[Events, str | None]],
            open_slash: Turn | None = None) -> str:
    """Turn the live records' events into turns.

    Returns ``slash`` when the last turn is a slash command that counts, ``dropped`` when
    it is one that does not (whether it counts may change with what follows), else "".
    ``open_slash`` is a resumed session's last turn when that is a slash command: local
    command output after it would remove it, which a resumed read cannot do.
    """
    slash_turns: list[Any] = []
    local: set[int] = set()
    for event, when in _interrupts_read(live):
        tag = event[0]
        if tag in ("req", "slash"):
            turn = b.start_turn(event[1], to_utc(when))
            if tag == "slash" and turn is not None:
                slash_turns.append(turn)
        elif tag == "int":
            b.signal(Signal.INTERRUPTED)
        elif tag == "local":
            if open_slash is not None and open_slash is b.current:
                raise CannotResume
            if slash_turns and slash_turns[-1] is b.current:
                local.add(id(b.current))
        elif tag == "text":
            b.answer(event[1])
        elif tag == "tool":
            _tool(b, event)
        elif tag == "res":
            _result(b, event)
    for turn in slash_turns:
        # A local command (/clear, /model…) is handled by the CLI itself: no request.
        name = turn.request.split(maxsplit=1)[0].lstrip("/")
        if id(turn) in local or (name in LOCAL_COMMANDS and not turn.final_answer):
            turn.request = ""
    last = b.current
    if open_slash is not None and last is open_slash:
        return "slash"
    if slash_turns and slash_turns[-1] is last:
        return "slash" if last.request else "dropped"
    return ""


def _interrupts_read(live: Iterator[tuple[Events, str | None]]
                     ) -> Iterator[tuple[tuple[Any, ...], str | None]]:
    """The live records' events one by one, with a "doesn't want to proceed" result that
    the user's ``[Request interrupted by user…]`` follows dropped: the user's Esc cut that
    call off (it stays unfinished), nothing was refused; the interrupt is kept."""
    held: tuple[tuple[Any, ...], str | None] | None = None
    for events, when in live:
        for event in events:
            if held is not None and event[0] != "int":
                yield held
            held = None
            if event[0] == "res" and event[4]:  # refused by its text: wait for what follows
                held = (event, when)
            else:
                yield event, when
    if held is not None:
        yield held


def _tool(b: SessionBuilder, event: tuple[Any, ...]) -> None:
    _, call_id, name, args = event
    b.add_tool(call_id, name, args)
    path = args.get("file_path") or args.get("notebook_path")
    if name in FILE_TOOLS and isinstance(path, str):
        b.touched(_relative(path, b.cwd))


def _result(b: SessionBuilder, event: tuple[Any, ...]) -> None:
    _, call_id, ok, head, refused, interrupted, code = event
    signal = (Signal.REFUSED_TOOL if refused else
              Signal.NONZERO_EXIT if code is not None and code != 0 else Signal.TOOL_ERROR)
    b.tool_result(call_id, ok, head, signal, code)
    if interrupted:
        b.signal(Signal.INTERRUPTED)


def _relative(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path
