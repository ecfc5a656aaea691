"""Polling for what a background thread or process does in its own time."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(condition: Callable[[], object], seconds: float = 10.0) -> bool:
    """Whether ``condition()`` turns true within ``seconds``, checked every 50 ms."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())
