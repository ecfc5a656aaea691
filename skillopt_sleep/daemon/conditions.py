"""Probes the daemon consults before a night, and one it reports about itself.

Each answers cheaply and never raises: a probe that cannot tell returns "unknown"
(None, or a count of zero with a logged reason) and the night's own rules decide.
"""

from __future__ import annotations

import logging
import sys
from datetime import datetime

import psutil

# Light on purpose (sqlite3 and the standard library): see MODEL_MODULES below.
from skillopt_sleep.archive.readonly import count_sessions_since
from skillopt_sleep.errors import StoreError

__all__ = ["HEAVY_MODULES", "MODEL_MODULES", "ac_power", "heavy_modules", "load_per_cpu",
           "new_sessions_since"]

log = logging.getLogger("skillopt_sleep.daemon")

MODEL_MODULES = ("torch", "sentence_transformers", "transformers", "faiss")
"""Modules an idle daemon must not have imported: a night loads them when it needs them."""
HEAVY_MODULES = (*MODEL_MODULES, "numpy", "scipy", "anthropic", "openai")
"""Reported by ``daemon status`` so a regression in the idle footprint is visible."""


def ac_power() -> bool | None:
    """True on mains power, False on battery, None when it cannot be told (no battery
    sensor: a desktop, a VM, a container), in which case the night is not held back."""
    try:
        battery = psutil.sensors_battery()
    except (AttributeError, NotImplementedError, OSError, RuntimeError):
        return None
    if battery is None:
        return None
    return battery.power_plugged


def load_per_cpu() -> float | None:
    """The 5-minute load average per logical CPU (1.0: every core busy), None when unknown.

    "Machine idle" is judged by load alone, on every platform. The other half of idleness,
    time since the user last touched keyboard or mouse, has no portable source: on Linux
    it exists only through a display server (X11's screensaver extension, or a Wayland
    compositor's idle protocol), which a user service started without a display cannot
    rely on; macOS (IOKit's HIDIdleTime) and Windows (GetLastInputInfo) each have their
    own. A night at 03:17 rarely competes with a user, but often with a backup or a build,
    and load sees those. The 5-minute figure, so a blip does not decide.
    """
    try:
        # psutil's version also works on Windows (emulated; zeros for its first seconds).
        _, five, _ = psutil.getloadavg()
    except (AttributeError, NotImplementedError, OSError, RuntimeError):
        return None
    return float(five) / (psutil.cpu_count() or 1)


def new_sessions_since(project: str, since: datetime | None) -> int:
    """Archived sessions of ``project`` that ended after ``since`` (all when None)."""
    from skillopt_sleep.paths import archive_path

    try:
        return count_sessions_since(archive_path(), project, since)
    except StoreError as exc:
        log.warning("cannot count new sessions of %s: %s", project, exc)
        return 0


def heavy_modules() -> list[str]:
    return sorted(m for m in HEAVY_MODULES if m in sys.modules)
