"""Where a night's replays run: its own threads, local worker processes, or a Dask cluster.

The setting ``cluster`` names it: empty (the night's own thread pool of ``concurrency``),
``local:N`` (a ``distributed.LocalCluster`` of N single-threaded worker processes on this
machine, started for the run and stopped after it) or a scheduler's address
(``tcp://HOST:PORT``: a team's cluster, its workers already running). Either way the night
gets a ``concurrent.futures.Executor`` (the Dask client's ``get_executor()``) and nothing
else changes: the caps and the tally stay in this process (``night.remote``), and the night
is the same for a fixed seed wherever its replays ran.

Dask is the optional ``cluster`` extra (``pip install 'skillopt-sleep[cluster]'``): it is
imported only when the setting asks for it, and its absence is a configuration error that
says what to install.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import Executor

from skillopt_sleep.config import Cluster, parse_cluster
from skillopt_sleep.errors import ConfigError

__all__ = ["Cluster", "parse_cluster", "replay_executor"]

@contextlib.contextmanager
def replay_executor(value: str) -> Iterator[Executor | None]:
    """The executor the setting names for the run (``None``: the night's own threads)."""
    if not value:
        yield None
        return
    cluster = parse_cluster(value)
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ConfigError(f"cluster = {value!r} needs Dask: pip install "
                          f"'skillopt-sleep[cluster]' (dask[distributed])") from exc
    with contextlib.ExitStack() as stack:
        if cluster.workers:
            local = stack.enter_context(LocalCluster(
                n_workers=cluster.workers, threads_per_worker=1, processes=True,
                dashboard_address=None))
            client = stack.enter_context(Client(local))
        else:
            try:
                client = stack.enter_context(Client(cluster.address, timeout=10))
            except OSError as exc:
                raise ConfigError(f"cluster: no Dask scheduler answers at {cluster.address} "
                                  f"({exc})") from exc
        yield client.get_executor()
