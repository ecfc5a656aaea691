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

from .. import paths
from .state import DaemonLock

__all__ = ["LOG_NAME", "serve", "setup_logging"]

LOG_NAME = "daemon.log"
log = logging.getLogger("skillopt_sleep.daemon")


def setup_logging(folder: Path | None = None, *, to_stderr: bool = True) -> Path:
    """Rotating log in the platformdirs log dir (1 MB × 4), and stderr for the journal."""
    folder = paths.ensure(folder or paths.log_dir())
    logfile = folder / LOG_NAME
    root = logging.getLogger("skillopt_sleep")
    root.setLevel(logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handler = RotatingFileHandler(logfile, maxBytes=1 << 20, backupCount=3, encoding="utf-8")
    handler.setFormatter(formatter)
    root.addHandler(handler)
    if to_stderr:
        stream = logging.StreamHandler()
        stream.setFormatter(formatter)
        root.addHandler(stream)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    return logfile


def _build(overrides: dict[str, Any], watch: bool, debounce: float) -> Any:
    from ..config import load
    from ..harvest.runner import make_source
    from .service import Service, enrolled_projects
    from .watch import SessionWatcher

    projects = enrolled_projects(overrides)
    watcher = None
    if watch:
        settings = load(flags={k: v for k, v in overrides.items()
                               if v is not None and k != "adopt"})
        sources = [make_source(name, include_headless=True) for name in settings.sources]
        watcher = SessionWatcher(sources, quiet=debounce)
    return Service(projects, watcher=watcher)


def serve(overrides: dict[str, Any] | None = None, *, watch: bool = True,
          debounce: float = 120.0, stop: threading.Event | None = None,
          heartbeat: float = 60.0) -> int:
    """Run until SIGTERM/SIGINT (or ``stop`` is set). Raises ``LockHeld`` when another
    daemon serves this state dir."""
    lock = DaemonLock()
    lock.acquire()
    stop = stop or threading.Event()
    try:
        logfile = setup_logging()
        if lock.stale_pid:
            log.info("took over from daemon pid %d, which had died", lock.stale_pid)
        service = _build(overrides or {}, watch, debounce)
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
