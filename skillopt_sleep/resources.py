"""How much of the machine a harvest or an embedding may use: cores minus the load.

On a busy machine more workers than idle cores make a harvest slower, not faster (at load
~12 on 2 cores, two harvest workers read at 0.71x the pace of one; torch's default two
threads embed 2.5-3x slower than one). So both are sized from the cores the load leaves
free: ``cores - round(1-minute load)``, at least 1. The 1-minute figure, because a
harvest starts now and lasts seconds to minutes. Each has an environment override
(``SKILLOPT_SLEEP_HARVEST_WORKERS``, ``SKILLOPT_SLEEP_TORCH_THREADS``; a positive
integer), read when the work starts.
"""

from __future__ import annotations

import os

from skillopt_sleep.errors import ConfigError

__all__ = ["HARVEST_WORKERS_ENV", "MAX_HARVEST_WORKERS", "TORCH_THREADS_ENV",
           "harvest_workers", "idle_cores", "torch_threads"]

HARVEST_WORKERS_ENV = "SKILLOPT_SLEEP_HARVEST_WORKERS"
TORCH_THREADS_ENV = "SKILLOPT_SLEEP_TORCH_THREADS"
MAX_HARVEST_WORKERS = 4
"""More worker processes than this gain little: the archive writes are one process's."""


def idle_cores(cores: int | None = None, load: float | None = None) -> int:
    """Cores the load average leaves free (at least 1). ``cores``/``load``: for tests."""
    cores = cores if cores is not None else os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows has no load average: assume idle
            load = 0.0
    return max(1, cores - round(load))


def _override(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{name} must be a positive integer, not {value!r}")
    return int(value)


def harvest_workers(cores: int | None = None, load: float | None = None) -> int:
    """Worker processes for a large harvest: the override, else the idle cores (at most 4)."""
    return _override(HARVEST_WORKERS_ENV) or min(idle_cores(cores, load), MAX_HARVEST_WORKERS)


def torch_threads(cores: int | None = None, load: float | None = None) -> int:
    """Threads torch may use for embedding: the override, else the idle cores."""
    return _override(TORCH_THREADS_ENV) or idle_cores(cores, load)
