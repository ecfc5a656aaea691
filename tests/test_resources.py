"""Load-aware resources: harvest workers and torch threads from the idle cores, the
daemon's nights at low CPU and I/O priority."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest

from skillopt_sleep import resources
from skillopt_sleep.config import Settings
from skillopt_sleep.daemon.projects import Enrolled, NightReport
from skillopt_sleep.daemon.service import Service
from skillopt_sleep.daemon.state import DaemonState
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.harvest import parallel
from skillopt_sleep.harvest.sources import make_source
from tests._require import require


@pytest.mark.parametrize(("cores", "load", "idle", "workers"), [
    (2, 12.0, 1, 1),   # the busy laptop: one of each
    (2, 0.3, 2, 2),    # quiet
    (8, 2.4, 6, 4),    # workers stop at four
    (4, 0.0, 4, 4),
])
def test_workers_and_threads_follow_the_idle_cores(cores: int, load: float, idle: int,
                                                    workers: int, monkeypatch):
    monkeypatch.delenv(resources.HARVEST_WORKERS_ENV, raising=False)
    monkeypatch.delenv(resources.TORCH_THREADS_ENV, raising=False)
    assert resources.idle_cores(cores, load) == idle
    assert resources.torch_threads(cores, load) == idle
    assert resources.harvest_workers(cores, load) == workers


def test_the_environment_overrides_and_a_bad_value_is_an_error(monkeypatch):
    monkeypatch.setenv(resources.HARVEST_WORKERS_ENV, "3")
    monkeypatch.setenv(resources.TORCH_THREADS_ENV, "2")
    assert resources.harvest_workers(2, 12.0) == 3 and resources.torch_threads(2, 12.0) == 2
    monkeypatch.setenv(resources.TORCH_THREADS_ENV, "many")
    with pytest.raises(ConfigError, match=resources.TORCH_THREADS_ENV):
        resources.torch_threads()


def _busy(monkeypatch: pytest.MonkeyPatch, load: float) -> None:
    monkeypatch.delenv(resources.HARVEST_WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))


def test_a_large_harvest_on_a_busy_machine_stays_in_process(tmp_path: Path, monkeypatch):
    files = []
    for i in range(6):
        path = tmp_path / f"s{i}.jsonl"
        path.write_text("{}\n")
        files.append(path)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 4)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    pools: list[int] = []

    class Pool:
        def __init__(self, max_workers: int, **_k: object):
            pools.append(max_workers)
            raise RuntimeError("pool started")

    # Imported where a pool starts (multiprocessing is heavy): patched at its source.
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    source = make_source("claude-code", tmp_path)
    _busy(monkeypatch, 12.0)
    assert len(list(parallel.read_files(source, files))) == 6 and pools == []
    _busy(monkeypatch, 0.1)
    with pytest.raises(RuntimeError, match="pool started"):
        list(parallel.read_files(source, files))
    assert pools == [2]


def test_embedding_uses_one_torch_thread_on_a_busy_machine(monkeypatch):
    require(importlib.util.find_spec("torch") is not None, "torch is not installed")
    import torch

    from skillopt_sleep.mine import embed

    before = torch.get_num_threads()
    monkeypatch.delenv(resources.TORCH_THREADS_ENV, raising=False)
    try:
        _busy(monkeypatch, 12.0)
        embed._size_torch_threads()
        assert torch.get_num_threads() == 1
        _busy(monkeypatch, 0.0)
        embed._size_torch_threads()
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_a_daemon_night_runs_at_low_cpu_and_io_priority_and_leaves_the_daemon_alone(
        tmp_path: Path):
    seen: dict[str, object] = {}

    def night(project: Path, settings: Settings, adopt: str) -> NightReport:
        tid = threading.get_native_id()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, tid)
        seen["io"] = psutil.Process(tid).ionice().ioclass
        child = subprocess.run([sys.executable, "-c", "import os; print(os.nice(0))"],
                               capture_output=True, text=True, check=True)
        seen["child"] = int(child.stdout)
        return NightReport(True, {})

    main_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    service = Service([Enrolled("/p", Path("/p"), Settings(), "auto")], job=night,
                      clock=lambda: datetime(2026, 1, 1, 3, 17, tzinfo=UTC), timezone=UTC,
                      state=DaemonState(tmp_path / "state.json"))
    assert service.run_night("/p")["status"] == "ok"
    assert seen["nice"] == seen["child"] == max(main_nice, 10)
    assert seen["io"] == psutil.IOPRIO_CLASS_IDLE
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_nice
