"""When a schedule fires next, from outside the daemon: apscheduler's answer, remembered.

``status`` shows each enrolled project's next run. A running daemon says it in its
``status.json``; without one the answer is the daemon's own trigger's (apscheduler's
``CronTrigger``), whose import costs about 0.1 s of CPU (the package reads its version from
its metadata and its utilities import asyncio) — more than the rest of ``status``. A
schedule's next fire time does not change until it has passed, so the answer is kept in
``<state>/daemon/next-runs.json`` by schedule and local zone, and used while it is still
in the future: the first ``status`` after a run asks apscheduler again, the others read
the file. A file that is missing or damaged, or cannot be written, only costs the import.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from datetime import datetime
from typing import Any

from skillopt_sleep.daemon.state import daemon_dir

__all__ = ["next_run"]

FILE = "next-runs.json"


def _zone() -> str:
    """What the local zone is, as far as the standard library can tell without tzlocal (a
    zone change changes it, so a kept answer for the old zone is not used)."""
    localtime = os.path.realpath("/etc/localtime") if os.path.exists("/etc/localtime") else ""
    return "|".join([os.environ.get("TZ", ""), localtime, *time.tzname,
                     str(time.timezone), str(time.altzone)])


def _kept() -> dict[str, Any]:
    try:
        data = json.loads((daemon_dir() / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _ask(hour: int, minute: int, now: datetime) -> str | None:
    """apscheduler's answer: the daemon's own trigger."""
    from apscheduler.triggers.cron import CronTrigger

    trigger = CronTrigger(hour=hour, minute=minute)
    fire = trigger.get_next_fire_time(None, now.astimezone(trigger.timezone))
    return fire.isoformat() if fire else None


def next_run(hour: int, minute: int, now: datetime) -> str | None:
    """When the daily schedule at ``hour:minute`` (local time) fires next after ``now``
    (aware): the kept answer while ``now`` lies between when it was asked and the fire time
    it gave (a clock set back asks again), else apscheduler's, then kept."""
    key = f"{hour:02d}:{minute:02d} {_zone()}"
    kept = _kept()
    with contextlib.suppress(KeyError, ValueError, TypeError):  # none kept: asked below
        asked, fire = kept[key]
        if datetime.fromisoformat(asked) <= now < datetime.fromisoformat(fire):
            return str(fire)
    found = _ask(hour, minute, now)
    if found is not None:
        from skillopt_sleep.atomic import write_atomic

        zone = key.split(" ", 1)[1]
        fresh = {k: v for k, v in kept.items() if k.split(" ", 1)[-1] == zone}
        fresh[key] = [now.isoformat(), found]
        with contextlib.suppress(OSError):  # a state folder that cannot be written
            write_atomic(daemon_dir() / FILE, json.dumps(fresh, indent=1).encode("utf-8"))
    return found
