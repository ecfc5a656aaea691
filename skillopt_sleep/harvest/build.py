"""Assembling a ``Session`` from the pieces a format reader finds, the same way for all.

Readers call ``start_turn`` for each real user request, then ``add_tool`` /
``tool_result`` / ``answer`` / ``signal`` for what follows it; ``finish`` clips, redacts,
numbers the turns, sets reactions and drops sessions that must not come back (engine
self-sessions carrying the sentinel, sessions without a single request).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.signals import set_reactions
from skillopt_sleep.records import SENTINEL, Session, Signal, ToolCall, Turn
from skillopt_sleep.secrets import may_hold_secrets, redact

__all__ = ["MAX_ANSWER", "MAX_TURNS", "SessionBuilder", "skill_from_text", "small_args"]

MAX_REQUEST = 8000
MAX_ANSWER = 4000
MAX_ERROR_HEAD = 300
MAX_ARG = 400
MAX_TURNS = 2000
MAX_FILES = 500

# A skill folder may hold capitals, spaces and non-ASCII letters; quotes, separators and
# shell punctuation end it.
_SKILL_PATH = re.compile(r"""((?:[^\s/"'`]+/)*)skills/([^/\\"'`\n\r\t$|;&<>]{1,128})/SKILL\.md""")
# Claude Code's plugin cache: ``plugins/cache/<marketplace>/<plugin>/<version>/skills/…``
# and the marketplaces' clones: ``plugins/marketplaces/<marketplace>/plugins/<plugin>/skills/…``.
_PLUGIN = re.compile(
    r"(?:^|/)plugins/(?:cache/[^/]+/([^/]+)/[^/]+|marketplaces/(?:[^/]+/)*?([^/]+))/$"
)


def skill_from_text(text: str) -> str | None:
    """The skill in a path like ``…/skills/<name>/SKILL.md`` (a skill read), if any; a skill
    read from a Claude Code plugin is named as the agent names it, ``plugin:name``."""
    match = _SKILL_PATH.search(text)
    if not match:
        return None
    name = match.group(2).strip()
    if name in ("", ".", ".."):
        return None
    plugin = _PLUGIN.search(match.group(1))
    if plugin:
        return f"{plugin.group(1) or plugin.group(2)}:{name}"
    return name


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class SessionBuilder:
    """Collects one session's turns; cheap per call, since readers call it per record."""

    def __init__(self, source: str, stats: HarvestStats):
        self.source = source
        self.stats = stats
        self.session_id = ""
        self.cwd = ""
        self.project = ""
        self.format_version = ""
        self.headless = False
        self.sentinel = False
        self.started_at: datetime | None = None
        self.ended_at: datetime | None = None
        self.turns: list[Turn] = []
        self.files: dict[str, None] = {}
        self.skills: dict[str, None] = {}
        self.calls: dict[str, ToolCall] = {}
        self.overflow = False
        self.turn_base = 0  # turns of an earlier read that were dropped (resumed sessions)
        self.files_redacted = 0
        # Objects carried over from an archived copy: their text is already clipped and
        # redacted, and redacting it again could change it (see ``resume``).
        self._done: set[int] = set()
        self._raw: set[int] = set()

    @property
    def current(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def seen(self, when: datetime | None) -> None:
        if when is None:
            return
        if self.started_at is None or when < self.started_at:
            self.started_at = when
        if self.ended_at is None or when > self.ended_at:
            self.ended_at = when

    def start_turn(self, request: str, when: datetime | None = None) -> Turn | None:
        if SENTINEL in request:
            self.sentinel = True
        if len(self.turns) + self.turn_base >= MAX_TURNS:
            self.overflow = True
            return None
        turn = Turn(id="", index=len(self.turns), request=_clip(request.strip(), MAX_REQUEST),
                    timestamp=when)
        self.turns.append(turn)
        return turn

    def add_tool(self, call_id: str, name: str, args: Any = None) -> ToolCall | None:
        turn = self.current
        if turn is None or self.overflow:
            return None
        # Unknown until a completion says otherwise: a call cut off never reads as a success.
        call = ToolCall(name=name or "?", ok=None, args=small_args(args))
        turn.tool_calls.append(call)
        if call_id:
            self.calls[call_id] = call
        skill = _skill_of(name, args)
        if skill:
            self.skills[skill] = None
        return call

    def tool_result(self, call_id: str, ok: bool, error: str = "",
                    signal: Signal = Signal.TOOL_ERROR, exit_code: int | None = None) -> None:
        """A completion of ``call_id``: ``ok`` marks it done, a failure is kept once and
        signalled on the current turn (``exit_code``: the code the result stated)."""
        call = self.calls.get(call_id)
        if call is None or call.ok is False:
            return
        if ok:
            call.ok = True
            return
        call.ok = False
        call.exit_code = exit_code
        call.error_head = _clip(error.strip(), MAX_ERROR_HEAD)
        self._raw.add(id(call))
        self.signal(signal)

    def answer(self, text: str) -> None:
        turn = self.current
        if turn is not None and text.strip() and not self.overflow:
            turn.final_answer = text
            self._raw.add(id(turn))

    def signal(self, signal: Signal) -> None:
        turn = self.current
        if turn is not None and signal.value not in turn.signals:
            turn.signals.append(signal.value)

    def touched(self, path: str) -> None:
        if path and len(self.files) < MAX_FILES:
            self.files[path] = None

    def finish(self, path: str) -> Session | None:
        """The session, or None when it is dropped (counted in ``stats.dropped``)."""
        if self.sentinel:
            self.stats.dropped["sentinel"] += 1
            return None
        turns = [t for t in self.turns if t.request]
        if not turns:
            self.stats.dropped["empty"] += 1
            return None
        session_id = self.session_id or "unknown"
        for index, turn in enumerate(turns):
            turn.index = index
            turn.id = f"{self.source}:{session_id}:{index}"
            self._redact_turn(turn)
        set_reactions(turns)
        before = self.stats.secrets_redacted
        files = ([self._redact(f) for f in self.files] if may_hold_secrets(list(self.files))
                 else list(self.files))
        self.files_redacted = self.stats.secrets_redacted - before
        return Session(
            source=self.source, session_id=session_id, project=self.project,
            started_at=self.started_at, ended_at=self.ended_at,
            format_version=self.format_version, headless=self.headless, turns=turns,
            files_touched=files, skills_used=list(self.skills), path=path,
        )

    def tail(self, text: str, limit: int) -> str:
        """The last ``limit`` characters of ``text``, secrets masked first: a cut made before
        masking can split a secret past its rule's anchor (``mongodb+srv://user:``) and let
        the rest through."""
        return self._redact(text)[-limit:]

    def _redact(self, text: str) -> str:
        clean, count = redact(text)
        self.stats.secrets_redacted += count
        return clean

    def _redact_turn(self, turn: Turn) -> None:
        done, raw = self._done, self._raw
        fresh = id(turn) not in done
        if fresh or id(turn) in raw:
            turn.final_answer = _clip(turn.final_answer.strip(), MAX_ANSWER)
        if not may_hold_secrets(self._texts(turn)):
            return
        if fresh:
            turn.request = self._redact(turn.request)
        if fresh or id(turn) in raw:
            turn.final_answer = self._redact(turn.final_answer)
        for call in turn.tool_calls:
            if id(call) not in done or id(call) in raw:
                call.error_head = self._redact(call.error_head)
            if id(call) not in done:
                call.args = {k: self._redact(v) if isinstance(v, str) else v
                             for k, v in call.args.items()}

    def _texts(self, turn: Turn) -> list[str]:
        """Every text of ``turn`` that ``_redact_turn`` may change."""
        done, raw = self._done, self._raw
        texts = [turn.request] if id(turn) not in done else []
        if id(turn) not in done or id(turn) in raw:
            texts.append(turn.final_answer)
        for call in turn.tool_calls:
            if id(call) not in done or id(call) in raw:
                texts.append(call.error_head)
            if id(call) not in done:
                texts.extend(v for v in call.args.values() if isinstance(v, str))
        return texts

    def resume(self, session: Session, dropped: int, calls: dict[str, list[int]]) -> None:
        """Continue ``session``, as archived from an earlier read of the same file.

        Its turns are final except the last, which new records may still extend; text
        already in them is not redacted again (redaction is not idempotent when a secret
        sits inside another shape). ``dropped`` counts turns the earlier read dropped;
        ``calls`` maps the tool-call ids still awaiting a failure to ``[turn, call]``
        positions in ``session.turns`` (turn -1: a call of a dropped turn).
        """
        self.session_id = session.session_id
        self.turns = list(session.turns)
        self.turn_base = dropped
        self.skills = dict.fromkeys(session.skills_used)
        self._done = {id(t) for t in self.turns}
        self._done.update(id(c) for t in self.turns for c in t.tool_calls)
        for call_id, (turn, position) in calls.items():
            self.calls[call_id] = (self.turns[turn].tool_calls[position] if turn >= 0
                                   else ToolCall(name="?", ok=None))

    def open_calls(self, kept: list[Turn], every: bool = False) -> dict[str, list[int]]:
        """``calls`` as positions in ``kept`` (what ``finish`` returned), for ``resume``:
        those still awaiting a completion or a failure, or with ``every`` the failed ones
        too."""
        where: dict[int, list[int]] = {}
        for t_index, turn in enumerate(kept):
            for c_index, call in enumerate(turn.tool_calls):
                where[id(call)] = [t_index, c_index]
        return {call_id: where.get(id(call), [-1, 0])
                for call_id, call in self.calls.items() if call.ok is not False or every}


def small_args(args: Any) -> dict[str, Any]:
    """Tool arguments kept for mining: scalars only, strings clipped."""
    if not isinstance(args, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, value in list(args.items())[:12]:
        if isinstance(value, str):
            kept[str(key)] = _clip(value, MAX_ARG)
        elif isinstance(value, bool | int | float) or value is None:
            kept[str(key)] = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value[:20]):
            kept[str(key)] = _clip(" ".join(value[:20]), MAX_ARG)
    return kept


def _skill_of(name: str, args: Any) -> str | None:
    """A skill the agent loaded: Claude's ``Skill`` tool, or any tool reading a SKILL.md."""
    if not isinstance(args, dict):
        return None
    if name == "Skill":
        value = args.get("skill") or args.get("command") or args.get("name")
        return (value.strip().lstrip("/") or None) if isinstance(value, str) else None
    for value in args.values():
        if isinstance(value, str) and "SKILL.md" in value:
            found = skill_from_text(value)
            if found:
                return found
        elif isinstance(value, list):
            joined = " ".join(v for v in value if isinstance(v, str))
            if "SKILL.md" in joined:
                return skill_from_text(joined)
    return None
