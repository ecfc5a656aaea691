"""Sessions harvested as they end: the SessionEnd hook's queue, watched.

The Claude Code hook appends one line per finished session to
``<state dir>/queue/sessions.jsonl`` (DESIGN.md, Contracts). A watchdog observer on the
queue folder arms a short debounce on each change of that file; when it expires the
queue is drained with the nights' own ``drain_queue`` and exactly the queued
transcripts are harvested with ``harvest_files``, so a session is archived seconds after
its hook fired. The transcript watcher stays the fallback for sessions no hook reported.

``drain_queue`` names its working copy after the pid, so two drains of one process must
never overlap. Nights drain the queue too (``run_once``): the service takes ``lock`` while
it marks a night as running, and a drain asked for during a night is put off until the
night ends (the night has harvested the queue itself by then).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from skillopt_sleep import paths
from skillopt_sleep.daemon.watch import SessionWatcher

__all__ = ["QueueHarvester", "QueueWatcher", "archive_queue_harvester"]

log = logging.getLogger("skillopt_sleep.daemon")

QueueHarvester = Callable[[list[tuple[str, Path]]], int]
"""Harvest these ``(source name, transcript)`` pairs; returns the sessions stored."""

MAX_BACKOFF = 600.0
"""Longest wait before retrying after failed harvests (doubling from ``quiet``)."""


def archive_queue_harvester(items: list[tuple[str, Path]]) -> int:
    """The real harvester: the named files into the state dir's archive, checkpoints aside."""
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.ingest import harvest_files
    from skillopt_sleep.harvest.base import HarvestStats
    from skillopt_sleep.harvest.sources import Filter, make_source

    stats = HarvestStats()
    sources = {name: make_source(name, stats=stats) for name in {n for n, _ in items}}
    archive = Archive(paths.archive_path())
    try:
        pairs = [(sources[name], path) for name, path in items]
        # Filter only chooses what is yielded back; every session is archived either way.
        return sum(1 for _ in harvest_files(archive, pairs, Filter(include_headless=True)))
    finally:
        archive.close()


class _Handler(FileSystemEventHandler):
    def __init__(self, queue: QueueWatcher):
        self.queue = queue

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("deleted", "opened", "closed_no_write"):
            return
        # A drain renames the queue away: that event's destination is not the queue file.
        raw = getattr(event, "dest_path", "") or event.src_path
        if os.path.basename(os.fsdecode(raw)) == self.queue.path.name:
            self.queue.note()


class QueueWatcher:
    """Debounced draining of the SessionEnd queue; see the module docstring."""

    def __init__(self, harvester: QueueHarvester = archive_queue_harvester, *,
                 state: Path | None = None, quiet: float = 2.0, max_wait: float = 30.0,
                 watcher: SessionWatcher | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 observer_factory: Callable[[], BaseObserver] = Observer):
        self.harvester = harvester
        self.state = state or paths.state_dir()
        self.path = paths.queue_file(self.state)
        self.quiet = quiet
        self.max_wait = max_wait
        self.watcher = watcher
        self.clock = clock
        self.observer_factory = observer_factory
        self.arm: Callable[[float], None] = lambda _delay: None
        """Set by the service: run ``drain`` in ``delay`` seconds, replacing an earlier plan."""
        self.busy: Callable[[], bool] = lambda: False
        """Set by the service: True while a night runs (it drains the queue itself)."""
        self.lock = threading.Lock()
        self.drained_entries = 0
        self.harvested_sessions = 0
        self.skipped = 0
        self.failures = 0
        self._streak = 0  # failed drains in a row, for the backoff
        self._first: float | None = None
        self._observer: BaseObserver | None = None

    def start(self) -> None:
        """Watch the queue folder (created if missing) and drain what queued meanwhile."""
        self.stop()
        paths.ensure(self.path.parent)
        observer = self.observer_factory()
        observer.schedule(_Handler(self), str(self.path.parent), recursive=False)
        observer.daemon = True
        observer.start()
        self._observer = observer
        log.info("watching the session queue %s", self.path)
        if self.path.exists():  # sessions that ended while no daemon ran
            self.arm(0.0)

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def note(self) -> None:
        """The queue changed (observer thread): (re)arm the debounce, bounded by ``max_wait``
        so a steady trickle of hooks cannot put the harvest off forever."""
        now = self.clock()
        with self.lock:
            if self._first is None:
                self._first = now
            delay = min(self.quiet, max(0.0, self._first + self.max_wait - now))
        if self._streak:
            delay = max(delay, min(MAX_BACKOFF, self.quiet * 2 ** self._streak))
        self.arm(delay)

    def resume(self) -> None:
        """A night ended: harvest what queued while it ran."""
        if self.path.exists():
            self.arm(self.quiet)

    def drain(self) -> int:
        """Drain the queue and harvest its transcripts; returns sessions stored. Never raises."""
        from skillopt_sleep.archive.ingest import drain_queue

        with self.lock:
            self._first = None
            if self.busy():
                log.info("session queue left to the night in progress")
                return 0
            try:
                entries = drain_queue(self.state)
            except OSError as exc:
                self.failures += 1
                log.warning("cannot drain the session queue %s: %s", self.path, exc)
                return 0
        if not entries:
            return 0
        return self._harvest(entries)

    def _harvest(self, entries: list[dict[str, Any]]) -> int:
        items = self._items(entries)
        started = self.watcher.clock() if self.watcher else 0.0
        try:
            sessions = self.harvester(items) if items else 0
        except Exception:  # never lost: the entries go back to the queue for a retry
            self.failures += 1
            self._streak += 1
            log.exception("harvest of %d queued session(s) failed", len(items))
            self._requeue(entries, {(name, str(p)) for name, p in items})
            return 0
        self._streak = 0
        self.drained_entries += len(entries)
        self.harvested_sessions += sessions
        if self.watcher is not None:  # already archived: no second read when they go quiet
            self.watcher.forget([p for _, p in items], before=started)
        log.info("harvested %d queued transcript(s), %d session(s); %d entr(ies) skipped",
                 len(items), sessions, len(entries) - len(items))
        return sessions

    def _items(self, entries: list[dict[str, Any]]) -> list[tuple[str, Path]]:
        """The harvestable entries, by the nights' rules; the others are counted."""
        from skillopt_sleep.archive.ingest import QUEUE_SOURCES

        items: list[tuple[str, Path]] = []
        for entry in entries:
            path, source = entry.get("transcript_path"), entry.get("source", "claude-code")
            if not isinstance(path, str) or not path or source not in QUEUE_SOURCES \
                    or not Path(path).is_file():
                self.skipped += 1
                log.warning("queued entry skipped (bad line, unknown source or no"
                            " transcript): %s", json.dumps(entry)[:200])
                continue
            items.append((str(source), Path(path)))
        return list(dict.fromkeys(items))  # a session queued twice is read once

    def _requeue(self, entries: list[dict[str, Any]], wanted: set[tuple[str, str]]) -> None:
        lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries
                        if (e.get("source", "claude-code"), e.get("transcript_path")) in wanted)
        try:  # one O_APPEND write, as the hook does, so a hook firing meanwhile is not torn
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, lines.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("cannot put %d entr(ies) back in the queue (the transcript watcher"
                      " and the night's full harvest still cover them): %s",
                      len(wanted), exc)
