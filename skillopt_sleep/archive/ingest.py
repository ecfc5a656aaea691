"""Running sources against the archive: checkpoints decide which files are read at all.

A file whose stat matches its checkpoint is not opened. A file that only grew (same
identity, the bytes before its old last-line offset unchanged) is read from that offset
when its source saved a resume state: the new records extend the archived session. A new
or rewritten file, or one whose source cannot resume, is read whole and its sessions
replace their earlier copies, so turn ids stay stable and a rewind or compaction that
changed the live branch is reflected. The checkpoint describes exactly the bytes read
(the read stops at the size the file had when opened), so bytes appended during a
harvest are picked up by the next one, never lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_checkpoints, load_resume, load_session, save_batch
from skillopt_sleep.harvest.base import Checkpoint, Resume, Source, file_changed
from skillopt_sleep.harvest.parallel import read_files
from skillopt_sleep.harvest.sources import Filter
from skillopt_sleep.records import Session

__all__ = ["harvest", "harvest_files"]

def harvest(archive: Archive, sources: Iterable[Source], wanted: Filter | None = None,
            *, rescan: bool = False) -> Iterator[Session]:
    """Harvest every new or changed file of ``sources`` into ``archive``; yield wanted sessions.

    Sources should be built with ``include_headless=True`` so headless sessions are
    archived (flagged) and ``wanted`` decides whether to return them. Never raises for bad
    content; an unreadable file is counted and retried next time.
    """
    wanted = wanted or Filter()
    with _Batch(archive) as batch:
        for source in sources:
            checkpoints = {} if rescan else load_checkpoints(archive, source.name)
            changed: list[Path] = []
            grown: dict[Path, Checkpoint] = {}
            for path in source.discover():
                if wanted.since is not None and _older_than(path, wanted.since):
                    continue
                previous = checkpoints.get(str(path))
                change = file_changed(path, previous)
                if change == "unchanged":
                    source.stats.files_unchanged += 1
                    continue
                if change == "appended" and previous is not None:
                    grown[path] = previous
                changed.append(path)
            yield from _harvest_paths(batch, source, changed, wanted, grown)


def harvest_files(archive: Archive, items: Iterable[tuple[Source, Path]],
                  wanted: Filter | None = None) -> Iterator[Session]:
    """Harvest named files (the SessionEnd queue) whatever their checkpoints say."""
    wanted = wanted or Filter()
    with _Batch(archive) as batch:
        for source, path in items:
            yield from _harvest_paths(batch, source, [path], wanted)


class _Batch:
    """Archive writes grouped into a few transactions: a commit per file costs a sync each.

    A checkpoint is always written with its file's sessions, in the same transaction, so
    a crash loses at most the pending files' checkpoints, and those files are read again.
    """

    def __init__(self, archive: Archive, files: int = 200):
        self.archive = archive
        self.files = files
        self.pending: list[tuple[Checkpoint | None, list[Session]]] = []

    def __enter__(self) -> _Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()

    def add(self, snapshot: Checkpoint | None, sessions: list[Session]) -> None:
        self.pending.append((snapshot, sessions))
        if len(self.pending) >= self.files:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            save_batch(self.archive, self.pending)
            self.pending = []


def _harvest_paths(batch: _Batch, source: Source, paths: list[Path], wanted: Filter,
                   grown: dict[Path, Checkpoint] | None = None) -> Iterator[Session]:
    grown = grown or {}
    resumes = {path: r for path, previous in grown.items()
               if (r := _resume_of(batch.archive, source, previous)) is not None}
    whole = [path for path in paths if path not in resumes]
    # Grown files are read in-process (they are few and small); the rest may go to workers.
    resumed = ((path, source.read(path, resumes[path]))  # type: ignore[attr-defined]
               for path in paths if path in resumes)
    for _path, result in chain(resumed, read_files(source, whole)):
        if result.failed:
            continue  # not checkpointed: the next harvest tries this file again
        snapshot = result.checkpoint
        if snapshot is not None:  # None: not a file on disk (a mock source)
            snapshot.sessions = [s.session_id for s in result.sessions]
        batch.add(snapshot, result.sessions)
        for session in result.sessions:
            if wanted.keep(session, source.stats):
                yield session


def _resume_of(archive: Archive, source: Source, previous: Checkpoint) -> Resume | None:
    """What a grown file's read can start from: its saved state and archived session."""
    if not hasattr(source, "read") or len(previous.sessions) != 1:
        return None
    state = load_resume(archive, previous.path)
    if state is None:
        return None
    session = load_session(archive, source.name, previous.sessions[0])
    if session is None or session.path != previous.path:
        return None  # another file now holds that session id: start over
    return Resume(previous.offset, state, session)


def _older_than(path: Path, since: datetime) -> bool:
    """A file last written before ``since`` cannot hold activity after it."""
    try:
        return path.stat().st_mtime < since.timestamp()
    except OSError:
        return False
