"""One lock per state dir, shared by ``run``, ``adopt`` and ``rollback``: no two of them
write the state or the skill dirs at once.

``filelock`` holds an OS-level lock that dies with its process, so a crashed night never
leaves a lock that blocks the next one; the pid file beside it is only for messages.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from filelock import FileLock, Timeout

from skillopt_sleep.errors import LockHeld, StoreError


def lock_path(state: Path) -> Path:
    return state / "night.lock"


def holder(state: Path) -> str:
    """Who holds the lock, as far as the pid file says ("" if nobody or unknown)."""
    try:
        return (state / "night.pid").read_text(encoding="utf-8").strip()
    except OSError:
        return ""


@contextmanager
def night_lock(state: Path, wait: float = 0.0, offer_wait: bool = False) -> Iterator[None]:
    """Hold the state dir's lock, or raise ``LockHeld`` after ``wait`` seconds.

    ``offer_wait``: the calling command has ``--wait SECONDS``, so the message offers it.
    """
    lock = FileLock(str(lock_path(state)), timeout=wait)
    try:
        state.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout:
        who = holder(state)
        raise LockHeld(
            f"another night, adopt or rollback is running in {state}"
            + (f" (pid {who})" if who else "") + "; wait for it to finish"
            + (", or pass --wait SECONDS" if offer_wait else " and try again")) from None
    except OSError as exc:  # a read-only or missing state dir
        raise StoreError(f"cannot lock the state dir {state}: {exc.strerror or exc}") from exc
    try:
        with suppress(OSError):  # the pid file only improves messages
            (state / "night.pid").write_text(str(os.getpid()), encoding="utf-8")
        yield
    finally:
        (state / "night.pid").unlink(missing_ok=True)
        lock.release()
