"""``daemon run``: the service in the foreground, as a user service manager runs it.

Order matters: the pid lock first (a second daemon leaves before touching anything),
then logging, the service, the signal handlers, and the heartbeat loop. SIGTERM and
SIGINT end the loop; ``Service.stop`` then harvests what the watcher holds and waits for
a night in progress, which the pipeline checkpoints step by step.
"""

from __future__ import annotations

import logging
import signal
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import FrameType
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.daemon.state import DaemonLock
from skillopt_sleep.secrets import redact

__all__ = ["LOG_NAME", "serve", "setup_logging"]

LOG_NAME = "daemon.log"
QUEUE_DEBOUNCE = 2.0
log = logging.getLogger("skillopt_sleep.daemon")


class RedactingFormatter(logging.Formatter):
    """Log lines redacted as a whole, tracebacks included (an error names a URL, a
    command, a path)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))[0]


def setup_logging(folder: Path | None = None, *, to_stderr: bool = True) -> Path:
    """Rotating log in the platformdirs log dir (1 MB × 4), and stderr for the journal."""
    folder = paths.ensure(folder or paths.log_dir())
    logfile = folder / LOG_NAME
    root = logging.getLogger("skillopt_sleep")
    root.setLevel(logging.INFO)
    formatter = RedactingFormatter("%(asctime)s %(levelname)s %(message)s")
    handler = RotatingFileHandler(logfile, maxBytes=1 << 20, backupCount=3, encoding="utf-8")
    handler.setFormatter(formatter)
    root.addHandler(handler)
    if to_stderr:
        stream = logging.StreamHandler()
        stream.setFormatter(formatter)
        root.addHandler(stream)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    return logfile


def _build(overrides: dict[str, Any], watch: bool, debounce: float,
           max_load: float | None) -> Any:
    from skillopt_sleep.config import load
    from skillopt_sleep.daemon.queue import QueueWatcher
    from skillopt_sleep.daemon.service import Service, enrolled_projects
    from skillopt_sleep.daemon.watch import SessionWatcher
    from skillopt_sleep.harvest.sources import make_source

    projects = enrolled_projects(overrides)
    watcher = queue = None
    if watch:
        _migrate_archive()
        settings = load(flags={k: v for k, v in overrides.items()
                               if v is not None and k != "adopt"})
        sources = [make_source(name, include_headless=True) for name in settings.sources]
        watcher = SessionWatcher(sources, quiet=debounce)
        # The queue names finished sessions: a short pause only gathers a burst of hooks.
        queue = QueueWatcher(watcher=watcher, quiet=min(debounce, QUEUE_DEBOUNCE))
    return Service(projects, watcher=watcher, queue=queue, max_load=max_load)


def _migrate_archive() -> None:
    """Open the archive once before the harvesting threads start: on a fresh state dir,
    two first opens at once (the queue's and the watcher's) would race to migrate it."""
    from skillopt_sleep.archive.db import Archive

    Archive(paths.archive_path()).close()


def serve(overrides: dict[str, Any] | None = None, *, watch: bool = True,
          debounce: float = 120.0, stop: threading.Event | None = None,
          heartbeat: float = 60.0, max_load: float | None = None) -> int:
    """Run until SIGTERM/SIGINT (or ``stop`` is set). Raises ``LockHeld`` when another
    daemon serves this state dir."""
    lock = DaemonLock()
    lock.acquire()
    stop = stop or threading.Event()
    try:
        logfile = setup_logging()
        if lock.stale_pid:
            log.info("took over from daemon pid %d, which had died", lock.stale_pid)
        service = _build(overrides or {}, watch, debounce, max_load)
        service.heartbeat = heartbeat
        _on_signals(stop)
        service.start()
        log.info("logging to %s", logfile)
        while not stop.wait(heartbeat):
            service.tick()
        service.stop()
        return 0
    finally:
        lock.release()


def _on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread (tests run serve in one)

    def handle(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s, stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
