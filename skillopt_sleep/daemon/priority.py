"""The daemon's nights run at low CPU and I/O priority, in a thread of their own.

A night at 03:17 shares the machine with whatever else runs then (a backup, a build, the
user up late); it is never urgent, so it yields: ``nice`` +10 and the idle I/O class
where the platform has them. On Linux both are per thread, so only the night's own thread
is lowered, and what it starts inherits it (replay threads, harvest worker processes,
agent CLIs); the daemon's watchers keep their priority. The thread ends with the night, so
nothing is left lowered (an unprivileged process could never raise it back). Elsewhere
``nice`` applies to the whole daemon process, once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["NIGHT_NICE", "lower_this_thread", "run_low"]

log = logging.getLogger("skillopt_sleep.daemon")

NIGHT_NICE = 10
"""How much a night's thread yields (nice is 0-19; 10 is what cron's batch jobs use)."""

T = TypeVar("T")
_process_lowered = False


def lower_this_thread(nice: int = NIGHT_NICE) -> list[str]:
    """Lower the calling thread's CPU and I/O priority; returns what was done (never
    raises: a platform without a knob just keeps its default)."""
    done: list[str] = []
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            current = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, max(current, nice))
            done.append(f"nice {max(current, nice)}")
        with contextlib.suppress(Exception):  # psutil: AccessDenied, NoSuchProcess, …
            import psutil

            psutil.Process(tid).ionice(psutil.IOPRIO_CLASS_IDLE)
            done.append("I/O class idle")
        return done
    global _process_lowered
    if not _process_lowered and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(nice)
            _process_lowered = True
            done.append(f"process nice +{nice}")
    return done


def run_low(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a fresh thread at low priority; its result or exception comes back."""
    box: dict[str, Any] = {}

    def body() -> None:
        lowered = lower_this_thread()
        log.info("night runs at low priority: %s", ", ".join(lowered) or "not supported here")
        try:
            box["result"] = fn(*args)
        except BaseException as exc:  # handed back to the caller, which decides
            box["error"] = exc

    worker = threading.Thread(target=body, name="skillopt-night", daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
