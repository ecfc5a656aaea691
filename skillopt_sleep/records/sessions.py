"""What a harvest produces and the archive keeps: sessions, turns, tool calls, the miner's
requests, and the checkpoint of each file read."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

# --- harvest ----------------------------------------------------------------------------


class Signal(StrEnum):
    """Structured outcome signals of a turn (never inferred from English words)."""

    TOOL_ERROR = "tool_error"
    NONZERO_EXIT = "nonzero_exit"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    REFUSED_TOOL = "refused_tool"
    VOTE_UP = "vote_up"
    VOTE_DOWN = "vote_down"


class Reaction(StrEnum):
    """How the user's next message treated this turn's answer."""

    CORRECTION = "correction"
    APPROVAL = "approval"
    REPEAT = "repeat"
    NONE = "none"


@dataclass
class ToolCall:
    """One tool the agent ran. ``ok`` is False for structural failures (is_error, exit != 0)
    and None when no completion was recorded (the call was cut off, or is still running):
    unknown, never counted as a success or a failure. ``exit_code`` is the code a failed
    command's result stated, when it stated one."""

    name: str
    ok: bool | None = True
    args: dict[str, Any] = field(default_factory=dict)
    error_head: str = ""
    exit_code: int | None = None


@dataclass
class Turn:
    """One user request and what came of it. ``id`` is ``<source>:<session_id>:<index>``."""

    id: str
    index: int
    request: str
    final_answer: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    reaction: str = Reaction.NONE.value
    timestamp: datetime | None = None


@dataclass
class Session:
    """One agent session, cleaned: live branch only, no meta records, secrets redacted."""

    source: str
    session_id: str
    project: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    format_version: str = ""
    headless: bool = False
    turns: list[Turn] = field(default_factory=list)
    files_touched: list[str] = field(default_factory=list)
    skills_used: list[str] = field(default_factory=list)
    path: str = ""


# --- what the miner and the archive read of a harvest ---------------------------------

FAILURE_SIGNALS = frozenset(
    {Signal.TOOL_ERROR.value, Signal.NONZERO_EXIT.value, Signal.CANCELLED.value,
     Signal.INTERRUPTED.value, Signal.REFUSED_TOOL.value, Signal.VOTE_DOWN.value}
)
FAILURE_REACTIONS = frozenset({Reaction.CORRECTION.value, Reaction.REPEAT.value})


@dataclass
class Request:
    """A user's request and what came of it. ``correction`` is the user's next message
    when that message corrected this turn's answer ("no, use pytest -q")."""

    id: str
    session_id: str
    project: str
    text: str
    signal: list[str] = field(default_factory=list)
    source: str = ""
    skills_used: list[str] = field(default_factory=list)
    reaction: str = Reaction.NONE.value
    correction: str = ""
    final_answer: str = ""
    context: str = ""
    actions: list[str] = field(default_factory=list)
    """What the agent did for it: ``mine.fingerprint.features`` of the turn's tool calls."""

    @property
    def outcome(self) -> str:
        """``failure``, ``success`` or ``unknown``, from structured signals and the reaction."""
        if self.reaction in FAILURE_REACTIONS or FAILURE_SIGNALS.intersection(self.signal):
            return "failure"
        if self.reaction == Reaction.APPROVAL.value or Signal.VOTE_UP.value in self.signal:
            return "success"
        return "unknown"



@dataclass
class Checkpoint:
    """What a harvest saw of one file: identity, size, the last complete line, a tail hash."""

    path: str
    source: str
    device: int
    inode: int
    size: int
    mtime_ns: int
    offset: int
    tail_hash: str
    sessions: list[str] = field(default_factory=list)
    resume: dict[str, Any] | None = None
