"""A night that cannot reach its models fails before it mines (after the local harvest, so a
night with nothing new never checks them); per-role endpoints; dry runs.

Real ``anthropic`` / ``openai`` SDK clients against the fake servers on 127.0.0.1; the CLI
runs as a subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep import config
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import count_sessions
from skillopt_sleep.config import Settings
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.build import base_urls, build_models
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history

from .fakes.llm_server import FakeLLMServer, Text

HAIKU = "anthropic:claude-haiku-4-5"
MINI = "openai:gpt-4o-mini"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                "OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def world(tmp_path: Path, isolated_home: Path) -> dict:
    """A researcher's transcripts and a project whose config names the simulator."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    persona = personas.load("researcher")
    written = write_history(persona, 0, home, project)
    (project / ".skillopt-sleep.toml").write_text(
        f'persona = "{persona.path}"\nembedder = "hashing"\nsources = ["claude-code", "codex"]\n'
        f'skill_roots = ["{tmp_path / "skills"}"]\nsteps = 1\nval_repeats = 1\n',
        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(ANTHROPIC_API_KEY="test-key", HOME=str(home),
               CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
               SKILLOPT_SLEEP_HOME=str(isolated_home))
    return {"project": project, "env": env, "state": isolated_home / "state",
            "sessions": written["claude-code"] + written["codex"]}


def cli(world: dict, *args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], capture_output=True,
                          text=True, env=env or world["env"], cwd=world["project"], timeout=300)


def archived_sessions(world: dict) -> int:
    path = world["state"] / "archive.sqlite3"
    if not path.exists():
        return 0
    archive = Archive(path)
    try:
        return sum(count_sessions(archive).values())
    finally:
        archive.close()


def _stopped_before_mining(done: subprocess.CompletedProcess[str]) -> bool:
    """The run checked its models and stopped there: no task was mined, no call made."""
    return "checking the models" in done.stderr and "mining tasks" not in done.stderr


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def servers() -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    with FakeLLMServer(default=Text("ok")) as a, FakeLLMServer(default=Text("ok")) as b:
        yield a, b


# --- fail fast, before mining -------------------------------------------------------------


def test_a_missing_target_cli_fails_before_mining_naming_it(world: dict):
    env = dict(world["env"], PATH=str(Path(sys.executable).parent))  # python, no `claude`
    done = cli(world, "run", "--target", "claude-code", "--optimizer", "simulated", env=env)
    assert done.returncode == 2, done.stderr
    assert "target model claude-code: the `claude` CLI is not on PATH" in done.stderr
    assert _stopped_before_mining(done)


def test_a_closed_port_fails_before_mining(world: dict, closed_port: int):
    url = f"http://127.0.0.1:{closed_port}"
    done = cli(world, "run", "--target", HAIKU, "--target-base-url", url,
               "--optimizer", "simulated")
    assert done.returncode == 2, done.stderr
    assert f"target model {HAIKU}: cannot connect to {url}" in done.stderr
    assert _stopped_before_mining(done)


def test_a_wrong_path_fails_before_mining(world: dict):
    with FakeLLMServer(strict=True) as server:  # 404 off the real paths, as real servers do
        done = cli(world, "run", "--target", "simulated", "--optimizer", HAIKU,
                   "--optimizer-base-url", f"{server.url}/not-here")
        assert done.returncode == 2, done.stderr
        assert f"optimizer model {HAIKU}: {server.url}/not-here answered 404" in done.stderr
        # The probe: a model list, then (on its 404) an empty completion; no model call.
        assert [(r.method, r.path) for r in server.requests] == [
            ("GET", "/not-here/v1/models"), ("POST", "/not-here/v1/messages")]
        assert server.model_requests() == [] or all(
            not r.body for r in server.model_requests())
    assert _stopped_before_mining(done)


def test_missing_credentials_fail_before_mining(world: dict, servers):
    a, _ = servers
    env = {k: v for k, v in world["env"].items() if k != "ANTHROPIC_API_KEY"}
    done = cli(world, "run", "--target", HAIKU, "--target-base-url", a.url, env=env)
    assert done.returncode == 2
    assert f"target model {HAIKU}: no ANTHROPIC_API_KEY" in done.stderr
    assert a.requests == [] and _stopped_before_mining(done)


def test_unknown_spec_and_missing_price_fail_before_mining(world: dict):
    done = cli(world, "run", "--target", "nosuch:model")
    assert done.returncode == 2 and "unknown model backend 'nosuch'" in done.stderr
    done = cli(world, "run", "--target", "openai:my-local-model", "--target-base-url",
               "http://127.0.0.1:9/v1")
    assert done.returncode == 2 and "no price for 'openai:my-local-model'" in done.stderr
    assert _stopped_before_mining(done)


def test_a_reachable_night_harvests_and_reaches_each_role_at_its_own_server(world: dict,
                                                                              servers):
    a, b = servers
    done = cli(world, "run", "--json", "--target", HAIKU, "--target-base-url", f"{a.url}/v1",
               "--optimizer", MINI, "--optimizer-base-url", b.openai_base_url)
    assert done.returncode == 0, done.stderr
    assert archived_sessions(world) == world["sessions"]
    # An Anthropic base URL written with /v1 is joined once: /v1/messages, never /v1/v1.
    assert {r.path for r in a.model_requests()} == {"/v1/messages"}
    assert {r.path for r in b.model_requests()} == {"/v1/chat/completions"}
    night = json.loads(done.stdout)
    assert len(a.model_requests()) > 0 and len(b.model_requests()) > 0
    assert len(a.model_requests()) + len(b.model_requests()) == night["counts"]["calls"]


# --- per-role endpoints --------------------------------------------------------------------


def test_per_role_urls_reach_the_right_server(servers, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    a, b = servers
    settings = config.Settings(target=HAIKU, optimizer=MINI, target_base_url=a.url,
                               optimizer_base_url=b.url)  # a bare root gains /v1 for OpenAI
    target, optimizer = build_models(settings)
    target.complete([{"role": "user", "content": "hi"}], max_tokens=8, temperature=0, seed=0)
    optimizer.complete([{"role": "user", "content": "hi"}], max_tokens=8, temperature=0, seed=0)
    optimizer.complete([{"role": "user", "content": "hi"}], max_tokens=8, temperature=0, seed=1)
    assert [r.path for r in a.requests] == ["/v1/messages"]
    assert [r.path for r in b.requests] == ["/v1/chat/completions"] * 2


def test_a_judge_naming_the_optimizer_s_model_shares_its_endpoint():
    settings = config.Settings(target=HAIKU, optimizer=MINI, judge=MINI, miner="openai:gpt-4o",
                               optimizer_base_url="http://127.0.0.1:9/v1",
                               miner_base_url="http://127.0.0.1:8/v1")
    urls = base_urls(settings)
    assert urls["judge"] == urls["optimizer"] == "http://127.0.0.1:9/v1"
    assert urls["miner"] == "http://127.0.0.1:8/v1" and urls["target"] is None


def test_an_ambiguous_base_url_is_an_error_naming_the_per_role_flags(world: dict):
    done = cli(world, "run", "--target", HAIKU, "--optimizer", MINI,
               "--base-url", "http://127.0.0.1:9")
    assert done.returncode == 2
    assert "--base-url is ambiguous" in done.stderr
    assert "--target-base-url URL --optimizer-base-url URL" in done.stderr
    with pytest.raises(ConfigError, match="takes no base URL"):
        build_models(config.Settings(target="simulated", persona="researcher",
                                     target_base_url="http://127.0.0.1:9"))


def test_an_unambiguous_base_url_reaches_both_roles_of_one_backend(servers):
    a, _ = servers
    settings = config.Settings(target=MINI, optimizer="openai:gpt-4o", base_url=a.url)
    for llm in build_models(settings):
        llm.complete([{"role": "user", "content": "hi"}], max_tokens=8, temperature=0, seed=0)
    assert [r.body["model"] for r in a.model_requests()] == ["gpt-4o-mini", "gpt-4o"]


def test_the_config_keys_set_per_role_urls(world: dict, servers):
    a, b = servers
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text() + f'target = "{HAIKU}"\noptimizer = "{MINI}"\n'
                   f'target_base_url = "{a.url}"\noptimizer_base_url = "{b.openai_base_url}"\n')
    plan = json.loads(cli(world, "run", "--dry-run", "--json").stdout)["plan"]
    assert plan["models"]["target"]["base_url"] == a.url
    assert plan["models"]["optimizer"]["base_url"] == b.openai_base_url


# --- dry run -------------------------------------------------------------------------------


def test_dry_run_makes_no_request_and_prints_calls_and_cost_per_role(world: dict, servers):
    a, b = servers
    done = cli(world, "run", "--dry-run", "--json", "--target", HAIKU, "--target-base-url",
               a.url, "--optimizer", MINI, "--optimizer-base-url", b.openai_base_url)
    assert done.returncode == 0, done.stderr
    assert a.requests == [] and b.requests == []
    outcome = json.loads(done.stdout)
    plan = outcome["plan"]
    assert outcome["dry_run"] and not outcome["staged"]
    assert outcome["counts"]["harvest"]["sessions"] == world["sessions"]
    assert archived_sessions(world) == 0  # harvested into a throwaway copy
    (skill,) = plan["skills"]
    assert skill["tasks"]["validation"] >= 4 and skill["calls"]["target"] > 0
    assert plan["calls"]["optimizer"] > 0
    # The trigger check's routing calls are among the target's (on by default).
    checks = skill["check_calls"]
    assert 0 < checks["trigger_routing"] < skill["calls"]["target"]
    assert checks["neighbours"] == 0 and checks["cross_replays"] == 0
    defaults = Settings()
    caps = {"night": defaults.max_usd_per_night, "skill": defaults.max_usd_per_skill}
    assert plan["estimated_usd"] > 0 and plan["caps"] == caps
    assert plan["within_caps"] == (plan["estimated_usd"] <= caps["skill"])

    text = cli(world, "run", "--dry-run", "--target", HAIKU, "--target-base-url", a.url,
               "--optimizer", MINI, "--optimizer-base-url", b.openai_base_url)
    assert text.returncode == 0 and a.requests == [] and b.requests == []
    assert "est. $" in text.stdout and "caps: $2.00 a night" in text.stdout
    # The typical routing, and its bound beside it (both rounds, every proposal compared).
    assert checks["trigger_routing"] < checks["trigger_routing_max"]
    assert (f"trigger check {checks['trigger_routing']} (at most "
            f"{checks['trigger_routing_max']}) routing call(s)") in text.stdout
    assert plan["estimated_usd"] < plan["estimated_usd_max"]
    assert f"at most ${plan['estimated_usd_max']:.4f} if every trigger check" in text.stdout
    # The report scores a sample of the test split, and the table says of how many.
    assert skill["test_scored"] < skill["tasks"]["test"]
    assert f"{skill['test_scored']} of {skill['tasks']['test']}" in text.stdout


# --- doctor --------------------------------------------------------------------------------


def test_doctor_live_makes_one_call_per_role_and_fails_on_a_missing_cli(world: dict, servers):
    a, b = servers
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text() + f'target = "{HAIKU}"\noptimizer = "{MINI}"\n'
                   f'target_base_url = "{a.url}"\noptimizer_base_url = "{b.openai_base_url}"\n')
    done = cli(world, "doctor", "--json")
    assert done.returncode == 0, done.stdout
    assert a.model_requests() == [] and b.model_requests() == []  # model lists only
    done = cli(world, "doctor", "--live", "--json")
    doc = json.loads(done.stdout)
    assert done.returncode == 0 and doc["backends"]["target"]["live"].startswith("ok")
    assert len(a.model_requests()) == 1 and len(b.model_requests()) == 1
    env = dict(world["env"], PATH=str(Path(sys.executable).parent))
    done = cli(world, "doctor", env=dict(env, SKILLOPT_SLEEP_TARGET="claude-code"))
    assert done.returncode == 1
    assert "the `claude` CLI is not on PATH" in done.stdout
