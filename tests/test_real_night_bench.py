"""The real-night bench in its fast mode: a small slice of a persona, millisecond latency."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "experiments" / "real_night_bench.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("real_night_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_latency_is_a_range_and_a_bad_one_is_an_error() -> None:
    bench = _bench()
    assert bench.latency_range("2-8") == (2.0, 8.0)
    assert bench.latency_range("0.5") == (0.5, 0.5)
    with pytest.raises(argparse.ArgumentTypeError):
        bench.latency_range("8-2")


@pytest.mark.slow
def test_a_fast_night_is_metered_priced_and_retried(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Caps above both nights' plans: the plans compare as planned, none fitted to a cap.
    monkeypatch.setenv("SKILLOPT_SLEEP_MAX_USD_PER_SKILL", "5")
    bench = _bench()
    code = bench.main(["--deliverables", "6", "--latency", "0.001-0.003", "--errors", "0.02",
                       "--concurrency", "1", "--prices", "haiku", "--embedder", "hashing",
                       "--nights", "2", "--json"])
    assert code == 0
    night, second = json.loads(capsys.readouterr().out)["nights"]
    assert (night["night"], second["night"]) == (1, 2)
    assert night["ok"] and night["calls"] > 50 and night["errors_served"] > 0
    # Every failed request was retried: the server saw each call once plus each error.
    assert night["http_requests"] == night["calls"] + night["errors_served"]
    assert 0 < night["usd"] <= 2.0 and set(night["usd_by_role"]) >= {"target", "optimizer"}
    assert night["usd_by_role"]["target"] > 0 and night["usd_by_role"]["optimizer"] > 0
    # The next night, after adopting, reuses the answers and routing replies it already has.
    assert second["ok"] and 0 < second["calls"] < night["calls"]
    assert second["http_requests"] == second["calls"] + second["errors_served"]
    # Before each night the dry run planned it without a request, from above: the second
    # night's plan counts what the first one left (its test answers, at least), lower.
    assert night["dry_run_http"] == second["dry_run_http"] == 0
    assert night["planned_calls"] >= night["calls"] and second["planned_calls"] >= second["calls"]
    assert second["planned_calls"] < night["planned_calls"]
