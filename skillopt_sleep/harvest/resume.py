"""Reading a grown file from its checkpoint: the shared frame of the resumable sources.

A resumable source reads a file through ``read(path, resume)``. Without ``resume`` the
file is read whole; with it only the bytes after the checkpoint are read, and the builder
starts from the archived session plus the small state the earlier read saved. A format
reader raises ``CannotResume`` when the state cannot prove that the new records continue
the archived session the way a from-scratch read would; the file is then read whole.

State is saved only when a continuation can be exact: the session has its own id or a
stable fallback, no turn overflow, no record taken from an unterminated last line (the
next read would see that line again), no touched file whose name was redacted (the
archived names cannot be redacted a second time without risk of changing them), and no
secret in the state itself (it is stored in the archive as it is: a working folder or a
session id that held one means the file is read whole next time).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest.base import AgentHomeSource, FileRead, Resume, checkpoint_from
from skillopt_sleep.harvest.build import SessionBuilder
from skillopt_sleep.harvest.lines import JsonLines
from skillopt_sleep.records import Session
from skillopt_sleep.secrets import find_secrets, may_hold_secrets

__all__ = ["CannotResume", "ResumableSource", "carry_over", "check_same_session", "digest",
           "saved_state"]


class CannotResume(Exception):
    """The new records may not simply extend the archived session: read the whole file."""


class ResumableSource(AgentHomeSource):
    """An agent-home source that reads grown files from their checkpoint.

    Subclasses implement ``read_lines(lines, path, resume)``, returning the session (or
    None) and the state a later read may resume from (None: start over next time).
    """

    def sessions_from(self, path: Path) -> Iterator[Session]:
        yield from self.read(path).sessions

    def read_lines(self, lines: JsonLines, path: Path, resume: Resume | None
                   ) -> tuple[Session | None, dict[str, Any] | None]:
        raise NotImplementedError

    def read(self, path: Path, resume: Resume | None = None) -> FileRead:
        """``path``'s session, its checkpoint and the state a later read can resume from."""
        try:
            with JsonLines(path, start=resume.offset if resume else 0) as lines:
                self.stats.files_read += 1
                try:
                    session, state = self.read_lines(lines, path, resume)
                except CannotResume:
                    self.stats.resume_fallbacks += 1
                    return self.read(path)
                finally:
                    self.stats.add_counts(lines)
                checkpoint = checkpoint_from(lines, path, self.name)
        except OSError as exc:
            self.stats.fail(path, exc)
            return FileRead([], failed=True)
        if resume is not None:
            self.stats.files_resumed += 1
        if state is not None and _holds_secret(json.dumps(state, ensure_ascii=False)):
            state = None
        checkpoint.resume = state
        if session is None:
            return FileRead([], checkpoint, state)
        if not self.admit(session):
            return FileRead([], checkpoint, None)
        return FileRead([session], checkpoint, state)


def digest(text: str) -> str:
    """A text's sha256, so a state can recognise a repeated message without holding it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def carry_over(b: SessionBuilder, resume: Resume) -> None:
    """Start ``b`` from an archived session and the fields ``saved_state`` kept.

    The archived session's times and touched files are its own; the session id is the one
    the records gave (possibly none yet), so a read that falls back on the file name does
    so the same way as a from-scratch read.
    """
    state, session = resume.state, resume.session
    b.resume(session, state["dropped"], state["calls"])
    b.session_id = state["sid"]
    b.cwd, b.format_version, b.headless = state["cwd"], state["version"], state["headless"]
    b.started_at, b.ended_at = session.started_at, session.ended_at
    for name in session.files_touched:
        b.touched(name)


def saved_state(b: SessionBuilder, session: Session | None, lines: JsonLines, own_id: str,
                cwd: str, *, every_call: bool = False) -> dict[str, Any] | None:
    """The fields ``carry_over`` restores, or None when no exact continuation is possible.

    ``own_id`` and ``cwd`` are what the records said (before any fallback on the file name
    or a sidecar file); ``every_call`` keeps failed calls too, for a format whose later
    records refer back to any call (duplicates skipped, subagent work counted on it).
    """
    if session is None or b.overflow or lines.past_end or b.files_redacted:
        return None
    dropped = len(b.turns) + b.turn_base - len(session.turns)
    if every_call and dropped:
        return None  # a failed call of a dropped turn has no archived place to keep it
    return {
        "sid": own_id, "cwd": cwd, "version": b.format_version, "headless": b.headless,
        "dropped": dropped, "calls": b.open_calls(session.turns, every=every_call),
    }


def check_same_session(session: Session | None, resume: Resume | None) -> None:
    """A resumed read must end in the archived session id (a new id means another session)."""
    if resume is not None and session is not None \
            and session.session_id != resume.session.session_id:
        raise CannotResume


def _holds_secret(text: str) -> bool:
    """The prefilter first (never wrong, and most resume states clear it), then the rules."""
    return may_hold_secrets([text]) and bool(find_secrets(text))
