"""Running sources against the archive: checkpoints decide which files are read at all.

A file whose stat matches its checkpoint is not opened. A file that only grew (same
identity, the bytes before its old last-line offset unchanged) is read from that offset
when its source saved a resume state: the new records extend the archived session. A new
or rewritten file, or one whose source cannot resume, is read whole and its sessions
replace their earlier copies, so turn ids stay stable and a rewind or compaction that
changed the live branch is reflected. The checkpoint describes exactly the bytes read
(the read stops at the size the file had when opened), so bytes appended during a
harvest are picked up by the next one, never lost.

The SessionEnd queue is drained here too: ``harvest_new`` reads the queued transcripts
first, then every configured source's new bytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_checkpoints, load_resume, load_session, save_batch
from skillopt_sleep.config import Settings
from skillopt_sleep.harvest.base import Checkpoint, HarvestStats, Resume, Source, file_changed
from skillopt_sleep.harvest.parallel import read_files
from skillopt_sleep.harvest.sources import Filter, make_source
from skillopt_sleep.records import Session
from skillopt_sleep.tables import SOURCES

__all__ = ["QUEUE_SOURCES", "drain_queue", "harvest", "harvest_files", "harvest_new"]

QUEUE_SOURCES = frozenset(SOURCES.names(plugins=False))
"""Sources a queued session may name: the built-in ones, whose hooks write the queue."""


def drain_queue(state: Path) -> list[dict[str, Any]]:
    """Take every queued SessionEnd entry; a bad line is returned as ``{"bad": …}``.

    The queue file is renamed before reading, so an entry the hook appends meanwhile lands
    in a fresh file and is read next time, never lost. A renamed copy left by a process that
    died before deleting it is taken too.
    """
    queue = paths.queue_file(state)
    taken = _orphaned_takes(queue)
    if queue.exists():
        mine = queue.with_suffix(f".{os.getpid()}.taking")
        os.replace(queue, mine)
        taken.append(mine)
    entries: list[dict[str, Any]] = []
    for path in taken:
        entries += _read_queue_file(path)
        path.unlink()
    return entries


def _orphaned_takes(queue: Path) -> list[Path]:
    found = []
    for path in (
        sorted(queue.parent.glob(f"{queue.stem}.*.taking")) if queue.parent.is_dir() else []
    ):
        import psutil  # here: only a left-over take needs its process looked up

        pid = path.suffixes[-2].lstrip(".") if len(path.suffixes) >= 2 else ""
        if not pid.isdigit() or not psutil.pid_exists(int(pid)):
            found.append(path)
    return found


def _read_queue_file(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            entries.append({"bad": line[:200]})
            continue
        entries.append(entry if isinstance(entry, dict) else {"bad": line[:200]})
    return entries


def harvest_new(archive: Archive, state: Path, settings: Settings) -> dict[str, int]:
    """The queued transcripts first, then every configured source's new bytes."""
    stats = HarvestStats()
    counts = {"queued": 0, "queue_skipped": 0, "sessions": 0}
    items = []
    for entry in drain_queue(state):
        path, source = entry.get("transcript_path"), entry.get("source", "claude-code")
        if not path or source not in QUEUE_SOURCES or not Path(path).is_file():
            counts["queue_skipped"] += 1
            continue
        items.append((make_source(source, stats=stats), Path(path)))
    wanted = Filter(include_headless=settings.include_headless)
    counts["queued"] = sum(1 for _ in harvest_files(archive, items, wanted))
    sources = [make_source(name, stats=stats) for name in settings.sources]
    counts["sessions"] = sum(1 for _ in harvest(archive, sources, wanted))
    return counts


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
