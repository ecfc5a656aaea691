"""Where one night's work runs: its replays, and the trigger check's routing calls.

Replays go to the caller's executor (any ``concurrent.futures.Executor``) or, without one,
to the night's own thread pool of ``concurrency``. Routing hands the metered target itself
to its executor, so where the replays run in other processes (``night.remote``) it runs in
the night's own threads instead. The night shuts only the pool it made; a caller's
executor is the caller's to shut.
"""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor

from skillopt_sleep.night.remote import shares_memory

__all__ = ["Pools"]


class Pools:
    def __init__(self, given: Executor | None, concurrency: int):
        self._concurrency = concurrency
        self._own: ThreadPoolExecutor | None = None
        self.replays: Executor = given or self._pool()
        self.routing: Executor = (self.replays if shares_memory(self.replays)
                                  else self._pool())

    def _pool(self) -> ThreadPoolExecutor:
        if self._own is None:
            self._own = ThreadPoolExecutor(max_workers=self._concurrency)
        return self._own

    def shutdown(self) -> None:
        if self._own is not None:
            self._own.shutdown()
