"""The ``Source`` protocol, the shared line reader, project identity, times and checkpoints.

A source reads one agent's transcripts. It never raises for bad content: a line that is
not JSON, has the wrong shape or is too long is skipped and counted in ``HarvestStats``;
only a store that cannot be read at all is a ``HarvestError``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.harvest.lines import MAX_LINE_BYTES, JsonLines, tail_hash
from skillopt_sleep.records import Checkpoint, Session

__all__ = [
    "MAX_LINE_BYTES",
    "AgentHomeSource",
    "Checkpoint",
    "FileRead",
    "HarvestStats",
    "Resume",
    "Source",
    "SourceBase",
    "checkpoint_from",
    "checkpoint_of",
    "file_changed",
    "iter_json_lines",
    "iter_records",
    "parse_since",
    "project_of",
    "to_utc",
]

_CHUNK = 1 << 16


@runtime_checkable
class Source(Protocol):
    """One agent's transcript store.

    ``name`` is the source id used in turn ids (``claude-code``, ``codex``, …).
    ``discover()`` lists the session files under the source's root (an empty list when the
    root does not exist). ``sessions_from(path)`` yields the cleaned sessions of one file
    (live branch only, meta records and engine self-sessions removed, secrets redacted).
    ``sessions(since)`` yields those of every discovered file that ended at or after
    ``since`` (a UTC datetime, or None for all).

    None of them raises for bad content: undecodable bytes, truncated or junk lines,
    unknown record types and wrong JSON types are skipped and counted in ``stats``.
    An unreadable file (permissions, vanished) is counted in ``stats.files_failed``.
    """

    name: str
    stats: HarvestStats

    def discover(self) -> list[Path]: ...

    def sessions(self, since: datetime | None = None) -> Iterator[Session]: ...

    def sessions_from(self, path: Path) -> Iterator[Session]: ...


@dataclass
class Resume:
    """Where a grown file's earlier read stopped: its line offset, the per-file state that
    read saved, and the session it archived (which the new records extend)."""

    offset: int
    state: dict[str, Any]
    session: Session


@dataclass
class FileRead:
    """One file's sessions, the checkpoint of what was read, and the state a later read can
    resume from (None: the next read of this file starts from its beginning)."""

    sessions: list[Session]
    checkpoint: Checkpoint | None = None
    state: dict[str, Any] | None = None
    failed: bool = False


@dataclass
class HarvestStats:
    """What a harvest read and what it threw away, for the summary line and the tests."""

    files_read: int = 0
    files_unchanged: int = 0
    files_failed: int = 0
    files_resumed: int = 0
    resume_fallbacks: int = 0
    bytes_read: int = 0
    lines_read: int = 0
    lines_skipped: int = 0
    lines_too_long: int = 0
    secrets_redacted: int = 0
    sessions: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "files_read": self.files_read,
            "files_unchanged": self.files_unchanged,
            "files_failed": self.files_failed,
            "files_resumed": self.files_resumed,
            "resume_fallbacks": self.resume_fallbacks,
            "bytes_read": self.bytes_read,
            "lines_read": self.lines_read,
            "lines_skipped": self.lines_skipped,
            "lines_too_long": self.lines_too_long,
            "secrets_redacted": self.secrets_redacted,
            "sessions_by_source": dict(self.sessions),
            "sessions_dropped": dict(self.dropped),
            "errors": self.errors[:20],
        }

    def add_counts(self, lines: JsonLines) -> None:
        """Add what one file's reader counted."""
        self.bytes_read += lines.bytes_read
        self.lines_read += lines.lines_read
        self.lines_skipped += lines.lines_skipped
        self.lines_too_long += lines.lines_too_long

    def fail(self, path: Path, exc: BaseException) -> None:
        self.files_failed += 1
        self.errors.append(f"{path}: {type(exc).__name__}: {exc}")


# --- the shared parts of a source ----------------------------------------------------


class SourceBase:
    """``sessions(since)`` as every source serves it: ``sessions_from`` over ``discover()``."""

    def discover(self) -> list[Path]:
        raise NotImplementedError

    def sessions_from(self, path: Path) -> Iterator[Session]:
        raise NotImplementedError

    def sessions(self, since: datetime | None = None) -> Iterator[Session]:
        for path in self.discover():
            for session in self.sessions_from(path):
                if since is None or (session.ended_at and session.ended_at >= since):
                    yield session


class AgentHomeSource(SourceBase):
    """A source under one agent's home folder (``home()`` when no ``root`` is given), which
    leaves out headless sessions unless ``include_headless``.

    ``sessions_from`` serves what ``read_session`` makes of a file read whole; a source
    that resumes grown files reads them its own way and still counts through ``admit``.
    """

    name: str

    def __init__(self, root: Path | None = None, *, include_headless: bool = False,
                 stats: HarvestStats | None = None):
        self.root = root or self.home()
        self.include_headless = include_headless
        self.stats = stats or HarvestStats()

    @staticmethod
    def home() -> Path:
        raise NotImplementedError

    def read_session(self, path: Path) -> Session | None:
        raise NotImplementedError

    def admit(self, session: Session) -> bool:
        """Whether ``session`` is served; counted as harvested or as a dropped headless one."""
        if session.headless and not self.include_headless:
            self.stats.dropped["headless"] += 1
            return False
        self.stats.sessions[self.name] += 1
        return True

    def sessions_from(self, path: Path) -> Iterator[Session]:
        try:
            session = self.read_session(path)
        except OSError as exc:
            self.stats.fail(path, exc)
            return
        if session is not None and self.admit(session):
            yield session


# --- reading ----------------------------------------------------------------------------


def iter_json_lines(
    path: Path, stats: HarvestStats, *, start: int = 0, stop_at_bad: bool = False,
    max_line: int = MAX_LINE_BYTES,
) -> Iterator[dict[str, Any]]:
    """Yield each JSON-object line of ``path`` from byte ``start`` up to its size at open.

    Lines are read in binary and decoded leniently. Undecodable, non-object and overlong
    lines are counted in ``stats`` and skipped; with ``stop_at_bad`` (op-logs, where a later
    line depends on every earlier one) reading stops at the first bad line instead.
    """
    for _offset, record in iter_records(path, stats, start=start, stop_at_bad=stop_at_bad,
                                        max_line=max_line):
        yield record


def iter_records(
    path: Path, stats: HarvestStats, *, start: int = 0, stop_at_bad: bool = False,
    max_line: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``iter_json_lines`` with each record's byte offset in the file."""
    with JsonLines(path, start=start, stop_at_bad=stop_at_bad, max_line=max_line) as lines:
        stats.files_read += 1
        try:
            yield from lines
        finally:
            stats.add_counts(lines)


# --- identity and time ------------------------------------------------------------------


@lru_cache(maxsize=4096)
def project_of(cwd: str) -> str:
    """Project identity: the git root containing ``cwd``, else ``cwd``; real path, no slash."""
    if not cwd:
        return ""
    path = os.path.realpath(os.path.expanduser(cwd))
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return _strip(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            return _strip(path)
        probe = parent


def _strip(path: str) -> str:
    return path.rstrip("/\\") or path[:1]


def to_utc(value: Any) -> datetime | None:
    """An ISO-8601 string (``Z`` or offset) or epoch seconds/milliseconds as aware UTC."""
    try:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, UTC)
        if isinstance(value, str) and value:
            text = value.strip().replace(" ", "T", 1)
            parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
            if parsed.tzinfo is None:
                return parsed.replace(tzinfo=UTC)
            return parsed.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def parse_since(text: str | None) -> datetime | None:
    """A ``--since`` value as UTC; a time without a zone is ambiguous and refused."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip()[:-1] + "+00:00"
                                       if text.strip().endswith("Z") else text.strip())
    except ValueError as exc:
        raise ConfigError(f"--since {text!r} is not an ISO-8601 time: {exc}") from exc
    if value.tzinfo is None:
        raise ConfigError(
            f"--since {text!r} has no time zone; add one, e.g. {text}Z or {text}+02:00"
        )
    return value.astimezone(UTC)


# --- checkpoints ------------------------------------------------------------------------


def checkpoint_of(path: Path, source: str, sessions: list[str]) -> Checkpoint | None:
    """A checkpoint of ``path`` as it is now (None when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            offset = _last_newline(handle, st.st_size)
            digest = tail_hash(handle, offset)
    except OSError:
        return None
    return Checkpoint(str(path), source, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                      offset, digest, sessions)


def checkpoint_from(lines: JsonLines, path: Path, source: str) -> Checkpoint:
    """The checkpoint of what ``lines`` read, from the same open file."""
    st = lines.stat
    return Checkpoint(str(path), source, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                      lines.end, lines.tail_hash(), [])


def _last_newline(handle: Any, size: int) -> int:
    pos = size
    while pos > 0:
        start = max(0, pos - _CHUNK)
        handle.seek(start)
        block = handle.read(pos - start)
        index = block.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        pos = start
    return 0


def file_changed(path: Path, previous: Checkpoint | None) -> str:
    """``new``, ``unchanged``, ``appended`` or ``rewritten`` relative to ``previous``.

    A stat that matches is ``unchanged`` without reading a byte; otherwise the bytes before
    the old last-line offset are hashed to tell an append from a rotation or rewrite.
    """
    if previous is None:
        return "new"
    try:
        st = path.stat()
    except OSError:
        return "unchanged"
    same_file = (st.st_dev, st.st_ino) == (previous.device, previous.inode)
    if same_file and st.st_size == previous.size and st.st_mtime_ns == previous.mtime_ns:
        return "unchanged"
    if not same_file or st.st_size < previous.offset:
        return "rewritten"
    try:
        with open(path, "rb") as handle:
            digest = tail_hash(handle, previous.offset)
    except OSError:
        return "unchanged"
    return "appended" if digest == previous.tail_hash else "rewritten"
