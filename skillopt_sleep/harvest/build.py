"""Assembling a ``Session`` from the pieces a format reader finds, the same way for all.

Readers call ``start_turn`` for each real user request, then ``add_tool`` /
``tool_result`` / ``answer`` / ``signal`` for what follows it; ``finish`` redacts then
clips every string of the session in one walk (``scrub``), numbers the turns, sets
reactions and drops sessions that must not come back (engine self-sessions carrying the
sentinel, sessions without a single request). Readers hand texts over whole: a cut made
before redaction can leave a secret unrecognisable.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.scrub import LIMITS, Scrubber, mark_clean
from skillopt_sleep.harvest.signals import set_reactions
from skillopt_sleep.records import SENTINEL, Session, Signal, ToolCall, Turn

__all__ = ["MAX_ANSWER", "MAX_TURNS", "SessionBuilder", "skill_from_text", "small_args"]

MAX_REQUEST = LIMITS[("Turn", "request")]
MAX_ANSWER = LIMITS[("Turn", "final_answer")]
MAX_ERROR_HEAD = LIMITS[("ToolCall", "error_head")]
MAX_ARG = LIMITS[("ToolCall", "args")]
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
        self._scrub = Scrubber()

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
        turn = Turn(id="", index=len(self.turns),
                    request=self._scrub.held(request.strip(), MAX_REQUEST), timestamp=when)
        self.turns.append(turn)
        return turn

    def add_tool(self, call_id: str, name: str, args: Any = None) -> ToolCall | None:
        turn = self.current
        if turn is None or self.overflow:
            return None
        # Unknown until a completion says otherwise: a call cut off never reads as a success.
        call = ToolCall(name=self._scrub.held(name or "?", LIMITS[("ToolCall", "name")]),
                        ok=None, args=self._held_args(small_args(args)))
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
        call.error_head = self._scrub.held(error.strip(), MAX_ERROR_HEAD)
        self.signal(signal)

    def answer(self, text: str) -> None:
        turn = self.current
        if turn is not None and text.strip() and not self.overflow:
            turn.final_answer = self._scrub.held(text.strip(), MAX_ANSWER)

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
        session = Session(
            source=self.source, session_id=self.session_id or "unknown", project=self.project,
            started_at=self.started_at, ended_at=self.ended_at,
            format_version=self.format_version, headless=self.headless, turns=turns,
            skills_used=list(self.skills), path=path,
        )
        self._scrub.scrub(session)
        before = self._scrub.count
        session.files_touched = self._scrub.items(list(self.files), ("Session", "files_touched"))
        self.files_redacted = self._scrub.count - before
        for index, turn in enumerate(turns):
            turn.index = index
            turn.id = f"{self.source}:{session.session_id}:{index}"
        set_reactions(turns)
        self.stats.secrets_redacted += self._scrub.count
        self._scrub.count = 0
        return session

    def tail(self, text: str, limit: int) -> str:
        """The last ``limit`` characters of ``text``, secrets masked first: a cut made before
        masking can split a secret past its rule's anchor (``mongodb+srv://user:``) and let
        the rest through."""
        return self._scrub.text(text)[-limit:]

    def _held_args(self, args: dict[str, Any]) -> dict[str, Any]:
        return {k: self._scrub.held(v, MAX_ARG, k) if isinstance(v, str) else v
                for k, v in args.items()}

    def resume(self, session: Session, dropped: int, calls: dict[str, list[int]]) -> None:
        """Continue ``session``, as archived from an earlier read of the same file.

        Its turns are final except the last, which new records may still extend; text
        already in them is marked ``Clean`` and not redacted again (redaction need not be
        idempotent), while text new records set is redacted by ``finish`` as usual.
        ``dropped`` counts turns the earlier read dropped; ``calls`` maps the tool-call ids
        still awaiting a failure to ``[turn, call]`` positions in ``session.turns``
        (turn -1: a call of a dropped turn).
        """
        mark_clean(session)
        self.session_id = session.session_id
        self.turns = list(session.turns)
        self.turn_base = dropped
        self.skills = dict.fromkeys(session.skills_used)
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
    """Tool arguments kept for mining: scalars only, strings whole (``finish`` redacts
    them, then cuts them to ``MAX_ARG``)."""
    if not isinstance(args, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, value in list(args.items())[:12]:
        if isinstance(value, str | bool | int | float) or value is None:
            kept[str(key)] = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value[:20]):
            kept[str(key)] = " ".join(value[:20])
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
