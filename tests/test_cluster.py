"""A night's replays on worker processes: a Dask ``LocalCluster`` and a process pool.

The night takes any ``concurrent.futures.Executor``. Where the workers are other processes,
the target's answers are asked there and the caps, the tally and the judging stay here
(``night.remote``); the night is the same as on the local pool for a fixed seed. Dask is
the optional ``cluster`` extra: required under ``SKILLOPT_SLEEP_REQUIRE_ALL=1``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep import config
from skillopt_sleep.errors import BudgetExceeded, ConfigError, ModelError
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.remote import shares_memory
from skillopt_sleep.night.replay import replay
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.pipeline.cluster import Cluster, parse_cluster, replay_executor
from skillopt_sleep.pipeline.run import run_once
from skillopt_sleep.records import Completion, JudgeSpec, Message, Task, Usage, to_dict
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from tests._require import require

FIGURES = ("steps", "slow_updates", "baseline_val", "after_val", "baseline_test",
           "after_test", "skill_after", "calls_by_role", "cost_usd")


class Counting(Executor):
    """An executor that counts what it was given and hands it to another."""

    def __init__(self, inner: Executor):
        self.inner = inner
        self.submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return self.inner.submit(fn, *args, **kwargs)


def _night(executor: Executor | None, seed: int = 3) -> dict[str, Any]:
    p = personas.load("researcher")
    inputs = NightInputs(
        tasks=personas.tasks(p, seed), skill_text=p.initial_skill(), skill_name=p.skill,
        target=build(p, seed, "target"), optimizer=build(p, seed, "optimizer"),
        night_id="n", config=NightConfig(concurrency=4), seed=seed, executor=executor)
    result = to_dict(run_night(inputs))
    figures = {k: result[k] for k in FIGURES}
    figures["decisions"] = [(d["edit"]["text"], d["accepted"]) for s in result["steps"]
                            for d in s.get("decisions", [])]
    return figures


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    require(importlib.util.find_spec("distributed") is not None,
            "dask[distributed] is not installed (pip install 'skillopt-sleep[cluster]')")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def test_a_night_on_a_local_cluster_of_worker_processes_is_the_local_night(
        dask_client: Any) -> None:
    workers = dask_client.run(os.getpid)
    assert len(workers) == 2 and os.getpid() not in workers.values()
    executor = Counting(dask_client.get_executor())
    assert not shares_memory(executor)
    on_cluster = _night(executor)
    assert executor.submitted == on_cluster["calls_by_role"]["target"] > 0
    local = _night(None)
    assert on_cluster == local
    assert any(accepted for _, accepted in local["decisions"])  # a night that learned


def test_the_cluster_setting_runs_the_replays_on_local_worker_processes() -> None:
    require(importlib.util.find_spec("distributed") is not None,
            "dask[distributed] is not installed")
    with replay_executor("local:1") as executor:
        assert executor is not None and not shares_memory(executor)
        assert executor.submit(os.getpid).result() != os.getpid()
    with replay_executor("") as none:
        assert none is None


# --- the caps stay in this process ----------------------------------------------------------

PRICE = Price(input_per_mtok=1000.0, output_per_mtok=1000.0)


class Priced:
    """A picklable model that answers with a fixed usage and cost (module level: it ships)."""

    name = "priced:m"
    price = PRICE

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 seed: int, tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        if "fail" in messages[-1]["content"]:
            raise ModelError("priced:m: 503 from the server")
        usage = Usage(input_tokens=100, output_tokens=10)
        return Completion(text=f"answer {seed} from process {os.getpid()}", usage=usage,
                          cost_usd=PRICE.cost(usage))


JUDGE = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "answer"}])


def _tasks(n: int, failing: int = 0) -> list[Task]:
    return [Task(id=f"t{i}", family_id=f"f{i}", intent="fail" if i < failing else f"do {i}",
                 judge=JUDGE, split="validation") for i in range(n)]


@pytest.fixture(scope="module")
def processes() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=2) as pool:
        yield pool


def test_calls_on_a_process_pool_are_metered_here_with_failures_counted(
        processes: ProcessPoolExecutor) -> None:
    ledger = Ledger()
    target = MeteredLLM(Priced(), "target", ledger)
    rollouts = replay(_tasks(4, failing=1), "# skill\n", target, samples=2,
                      executor=processes)
    assert len(rollouts) == 8 and [r.task_id for r in rollouts][:2] == ["t0", "t0"]
    assert sum(1 for r in rollouts if r.error) == 2  # counted, not scored as wrong
    answered = [r for r in rollouts if not r.error]
    assert all(r.score.metric("score") == 1.0 for r in answered)  # judged here
    assert f"process {os.getpid()}" not in " ".join(r.response for r in answered)
    assert len(ledger.calls) == 8
    assert sum(1 for c in ledger.calls if c.error) == 2
    assert ledger.total_usd == pytest.approx(6 * PRICE.cost(Usage(100, 10)))


def test_a_cap_stops_a_night_on_a_process_pool_and_holds_nothing_after(
        processes: ProcessPoolExecutor) -> None:
    ledger = Ledger()
    one = PRICE.cost(Usage(100, 10))
    target = MeteredLLM(Priced(), "target", ledger, max_usd_per_night=one * 3.5)
    with pytest.raises(BudgetExceeded):
        replay(_tasks(40), "# skill\n", target, samples=1, executor=processes)
    assert ledger.total_usd <= one * 3.5
    assert ledger.held_usd == 0.0


# --- the setting ------------------------------------------------------------------------------

def test_the_cluster_setting_is_parsed_and_refused_when_malformed(tmp_path: Path) -> None:
    assert parse_cluster("local:4") == Cluster(workers=4)
    assert parse_cluster("tcp://10.0.0.5:8786") == Cluster(address="tcp://10.0.0.5:8786")
    for bad in ("local:0", "local", "4", "http://host:8786", "tcp://"):
        with pytest.raises(ConfigError, match="cluster must be"):
            parse_cluster(bad)
    with pytest.raises(ConfigError, match="cluster"):
        config.load(tmp_path, flags={"cluster": "local:zero"}, env={})
    assert config.load(tmp_path, flags={"cluster": "local:2"}, env={}).cluster == "local:2"


def test_a_cluster_without_dask_installed_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ConfigError, match=r"skillopt-sleep\[cluster\]"), \
            replay_executor("local:2"):
        pass


def test_run_with_the_cluster_setting_keeps_the_night_of_the_local_pool(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require(importlib.util.find_spec("distributed") is not None,
            "dask[distributed] is not installed")
    from tests.test_pipeline import _world

    project = tmp_path / "project"
    project.mkdir()
    world = _world(tmp_path, isolated_home, project)
    for key, value in world["env"].items():
        monkeypatch.setenv(key, value)
    # A short night: the point is where its replays ran, not how much it learns.
    settings = replace(config.load(project), steps=1, test_tasks=8)
    local = run_once(project, settings=settings)
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "second-state"))
    on_cluster = run_once(project, settings=replace(settings, cluster="local:2"))
    assert [to_dict(n)["skill_after"] for n in on_cluster.nights] == \
        [to_dict(n)["skill_after"] for n in local.nights]
    assert on_cluster.counts["calls"] == local.counts["calls"] > 0


def test_copies_of_a_model_and_its_cache_share_one_client_and_connection(tmp_path: Path) -> None:
    import pickle

    from skillopt_sleep.archive.cache import Cache
    from skillopt_sleep.models.build import build_llm
    from skillopt_sleep.models.cache import CachedLLM

    model = build_llm("anthropic:claude-haiku-4-5", base_url="http://127.0.0.1:9", pricing={},
                      persona=None, cache=None, role="target")
    cached = CachedLLM(model, Cache(tmp_path / "calls.sqlite3"))
    first, second = (pickle.loads(pickle.dumps(cached)) for _ in range(2))
    assert first.cache is second.cache and first.cache is not cached.cache
    assert first.cache.path == cached.cache.path
    assert first.inner._sdk() is second.inner._sdk()  # one client per model in a process
    assert first.inner._sdk() is not model._sdk()     # never the sender's own
