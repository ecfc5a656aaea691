"""``prove --record`` / ``--replay-only`` with the persona simulator: a recorded proof
replays with zero live calls and says so; an empty cache stops the replay at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import paths
from skillopt_sleep.errors import RoleUnavailable
from skillopt_sleep.models.cache import Cache, CachedLLM
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build

PROVE = [sys.executable, "-m", "skillopt_sleep", "prove", "--persona", "researcher",
         "--nights", "1", "--steps", "1"]


def _prove(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PROVE, *extra], capture_output=True, text=True, timeout=300)


def test_a_recorded_proof_replays_with_zero_live_calls_and_the_same_results():
    recorded = _prove("--json", "--record")
    assert recorded.returncode == 0, recorded.stderr
    assert (paths.cache_dir() / "model-calls.sqlite3").is_file()
    replayed = _prove("--json", "--replay-only")
    assert replayed.returncode == 0, replayed.stderr
    a, b = json.loads(recorded.stdout), json.loads(replayed.stdout)
    assert a["live_calls"] > 0 and a["model_calls"] == a["live_calls"]
    assert b["live_calls"] == 0 and b["model_calls"] == 0
    assert b["cached_calls"] == a["live_calls"] + a["cached_calls"]
    for key in ("seconds", "cost_usd", "live_calls", "cached_calls", "model_calls"):
        a.pop(key), b.pop(key)
    assert a == b
    text = _prove("--replay-only")
    assert text.returncode == 0, text.stderr
    assert "model calls: live, from the cache" in text.stdout
    assert f"0, {json.loads(replayed.stdout)['cached_calls']}" in text.stdout


def test_replay_only_on_an_empty_cache_stops_at_once_and_says_why():
    done = _prove("--json", "--replay-only")
    assert done.returncode == RoleUnavailable.exit_code
    assert "not in the replay cache" in done.stderr and "--record" in done.stderr
    error = json.loads(done.stdout)["error"]  # --json: one object on failure too
    assert error["code"] == RoleUnavailable.exit_code and "--record" in error["message"]


def test_a_plain_proof_counts_every_call_as_live():
    done = _prove("--json")
    data = json.loads(done.stdout)
    assert data["cached_calls"] == 0 and data["model_calls"] == data["live_calls"] > 0


def test_the_simulators_seed_and_role_are_part_of_the_key(tmp_path: Path):
    p = personas.load("researcher")
    cache = Cache(tmp_path / "calls.sqlite3")
    messages = [{"role": "user", "content": "write the experiment notes for lr sweep"}]
    CachedLLM(build(p, 0, "target"), cache).complete(messages, max_tokens=50, temperature=0.7,
                                                     seed=1)
    replay = Cache(tmp_path / "calls.sqlite3", mode="replay-only")
    assert CachedLLM(build(p, 0, "target"), replay).complete(
        messages, max_tokens=50, temperature=0.7, seed=1).cached
    for other in (build(p, 1, "target"), build(p, 0, "optimizer")):
        with pytest.raises(RoleUnavailable):
            CachedLLM(other, replay).complete(messages, max_tokens=50, temperature=0.7, seed=1)
