"""Sessions ingested as they end: watchdog observers on the agents' transcript folders.

The observer thread only records "this path changed at t" in a dict (a burst of a
thousand events on one file is one entry); a periodic ``flush`` harvests each file that
has been quiet for ``quiet`` seconds, alone, through ``harvest_files``. Harvesting never
runs on the observer thread and never on the scheduler's night executor, so neither
blocks the other. If a sync touches more files than ``max_pending``, the excess is not
tracked one by one: the source is marked and gets one checkpointed harvest instead, so
memory stays bounded and nothing is missed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from skillopt_sleep.harvest.base import Source

__all__ = ["Harvester", "SessionWatcher", "archive_harvester", "watch_dirs"]

log = logging.getLogger("skillopt_sleep.daemon")

Harvester = Callable[[Source, list[Path] | None], int]
"""Harvest these files of ``source`` (None: every changed file); returns sessions stored."""

_SUFFIXES = (".jsonl", ".json")
# Folders a source keeps its sessions under, watched recursively so new projects appear.
_BASES = {"claude-code": ("projects",), "codex": ("sessions", "archived_sessions"),
          "copilot-cli": ("session-state",)}


def watch_dirs(source: Source) -> list[tuple[Path, bool]]:
    """``(folder, recursive)`` pairs covering ``source``'s session files (existing ones only)."""
    root = getattr(source, "root", None)
    found: list[tuple[Path, bool]] = []
    if isinstance(root, Path):
        found = [(root / b, True) for b in _BASES.get(source.name, ()) if (root / b).is_dir()]
    covered = [folder for folder, _ in found]
    parents = sorted({p.parent for p in source.discover()})
    for parent in parents:
        if not any(parent == c or c in parent.parents for c in covered):
            found.append((parent, False))
    return found


def archive_harvester(source: Source, files: list[Path] | None) -> int:
    """The real harvester: files into the archive of the state dir (opened per call)."""
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.ingest import harvest, harvest_files
    from skillopt_sleep.paths import archive_path

    archive = Archive(archive_path())
    try:
        if files is None:
            return sum(1 for _ in harvest(archive, [source]))
        return sum(1 for _ in harvest_files(archive, [(source, p) for p in files]))
    finally:
        archive.close()


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: SessionWatcher, index: int):
        self.watcher = watcher
        self.index = index

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("deleted", "opened", "closed_no_write"):
            return
        raw = getattr(event, "dest_path", "") or event.src_path
        path = os.fsdecode(raw)
        if path.endswith(_SUFFIXES):
            self.watcher.note(self.index, path)


class SessionWatcher:
    """Debounced per-file harvesting of ``sources``; see the module docstring."""

    def __init__(self, sources: list[Source], harvester: Harvester = archive_harvester, *,
                 quiet: float = 120.0, max_pending: int = 20_000,
                 clock: Callable[[], float] = time.monotonic,
                 observer_factory: Callable[[], BaseObserver] = Observer):
        self.sources = sources
        self.harvester = harvester
        self.quiet = quiet
        self.max_pending = max_pending
        self.clock = clock
        self.observer_factory = observer_factory
        self.pending: dict[tuple[int, str], float] = {}
        self.overflowed: set[int] = set()
        self.watched: list[tuple[str, Path, bool]] = []
        self.harvested_files = 0
        self.harvested_sessions = 0
        self.failures = 0
        self._lock = threading.Lock()
        self._observer: BaseObserver | None = None

    def start(self) -> None:
        """Start observing; a folder that cannot be watched is logged and skipped."""
        self.stop()
        observer = self.observer_factory()
        self.watched = []
        for index, source in enumerate(self.sources):
            for folder, recursive in watch_dirs(source):
                try:
                    observer.schedule(_Handler(self, index), str(folder), recursive=recursive)
                except OSError as exc:
                    log.warning("cannot watch %s: %s", folder, exc)
                    continue
                self.watched.append((source.name, folder, recursive))
        observer.daemon = True
        observer.start()
        self._observer = observer
        log.info("watching %d folder(s)", len(self.watched))

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def note(self, index: int, path: str) -> None:
        """Called on the observer thread for every event: O(1), never touches the disk."""
        key = (index, path)
        with self._lock:
            if key in self.pending or len(self.pending) < self.max_pending:
                self.pending[key] = self.clock()
            else:
                self.overflowed.add(index)

    def forget(self, files: list[Path], before: float) -> int:
        """Drop pending files another path has just harvested (the SessionEnd queue), unless
        they changed again at or after ``before``; returns how many were dropped."""
        names = {str(p) for p in files}
        with self._lock:
            done = [k for k, t in self.pending.items() if k[1] in names and t < before]
            for key in done:
                del self.pending[key]
        return len(done)

    def due(self, now: float | None = None) -> tuple[dict[int, list[Path]], set[int]]:
        """Take the files quiet for ``quiet`` seconds, and the sources that overflowed."""
        now = self.clock() if now is None else now
        with self._lock:
            ready = [k for k, t in self.pending.items() if now - t >= self.quiet]
            for key in ready:
                del self.pending[key]
            overflowed, self.overflowed = self.overflowed, set()
        by_source: dict[int, list[Path]] = {}
        for index, path in ready:
            by_source.setdefault(index, []).append(Path(path))
        return by_source, overflowed

    def flush(self, now: float | None = None) -> int:
        """Harvest what is due; returns the number of files harvested. Never raises."""
        by_source, overflowed = self.due(now)
        done = 0
        for index in overflowed:
            by_source.pop(index, None)  # the full harvest covers them
            done += self._harvest(self.sources[index], None)
        for index, files in by_source.items():
            source = self.sources[index]
            try:
                known = set(source.discover())
            except OSError as exc:
                log.warning("%s: cannot list sessions: %s", source.name, exc)
                continue
            wanted = sorted(p for p in files if p in known)  # drops subagent files, temp files
            if wanted:
                done += self._harvest(source, wanted)
        return done

    def _harvest(self, source: Source, files: list[Path] | None) -> int:
        try:
            sessions = self.harvester(source, files)
        except Exception:  # one failed harvest must not stop the watcher; retried next change
            self.failures += 1
            log.exception("harvest of %s failed", source.name)
            return 0
        count = len(files) if files is not None else 1
        self.harvested_files += count
        self.harvested_sessions += sessions
        log.info("harvested %s: %s file(s), %d session(s)", source.name,
                 count if files is not None else "all changed", sessions)
        return count
