"""A night at real prices with the real SDK clients: ``skillopt-sleep run`` on the demo's
history, its target and optimizer ``anthropic:claude-sonnet-4-6`` (the default
``claude-code`` model's prices) at fake servers on 127.0.0.1 that answer as the persona's
simulated models and report the prompt cache's tokens as Anthropic does. With the default
caps the night stays within them and keeps what it validated; on a big real skill too."""

from __future__ import annotations

import json
import shutil
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from skillopt_sleep.config import Settings
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedOptimizer, SimulatedTarget
from tests.fakes import FakeLLMServer, RecordedRequest, Text
from tests.test_pipeline import cli, world  # noqa: F401  (world is a fixture)

BIG = (Path(__file__).parent / "fixtures" / "skills-public" / "anthropics__claude-plugins-official"
       / "math-olympiad" / "SKILL.md")
SPEC = "anthropic:claude-sonnet-4-6"
CACHE_FLOOR = 1024
"""Sonnet 4.6 caches a prefix of 1,024 tokens or more."""


class Simulated:
    """Answers a server's requests as a simulated model; the system block (marked for the
    cache) is written on its first sight and read after, when it is long enough to cache."""

    def __init__(self, model: SimulatedTarget | SimulatedOptimizer):
        self.model, self.seen, self.cache = model, Counter[str](), Counter[str]()
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Text:
        body = request.body
        blocks = body.get("system") or []
        system = "".join(b["text"] for b in blocks) if isinstance(blocks, list) else blocks
        turns = [{"role": m["role"], "content": m["content"] if isinstance(m["content"], str)
                  else "".join(b.get("text", "") for b in m["content"])}
                 for m in body["messages"]]
        messages = ([{"role": "system", "content": system}] if system else []) + turns
        key = json.dumps(messages, sort_keys=True)
        cachable = isinstance(blocks, list) and any("cache_control" in b for b in blocks) \
            and len(system) // 4 >= CACHE_FLOOR
        with self.lock:
            repeat = self.seen[key]
            self.seen[key] += 1
            hit = cachable and system in self.cache
            if cachable:
                self.cache["read" if hit else "write"] += 1
                self.cache[system] += 1
        answer = self.model.complete(messages, seed=repeat)  # type: ignore[arg-type]
        block = len(system) // 4 if cachable else 0
        return Text(answer.text, input_tokens=len(key) // 4 - block,
                    output_tokens=max(1, len(answer.text) // 4),
                    cache_read_tokens=block if hit else 0,
                    cache_write_tokens=0 if hit else block)


def _night(world: dict, skill: Path | None = None) -> tuple[dict[str, Any], dict[str, Any],  # noqa: F811
                                                              Simulated]:
    """The dry run's plan and the night's ``run --json``, at the default caps."""
    roots = world["roots"]
    (world["project"] / ".skillopt-sleep.toml").write_text(
        f'embedder = "hashing"\nsources = ["claude-code", "codex"]\ntarget = "{SPEC}"\n'
        f'optimizer = "{SPEC}"\nskill_roots = {json.dumps([str(r) for r in roots])}\n',
        encoding="utf-8")
    if skill is not None:
        (roots[0] / "skillopt-sleep-learned").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(skill, roots[0] / "skillopt-sleep-learned" / "SKILL.md")
    persona = personas.load("researcher")
    world["env"]["ANTHROPIC_API_KEY"] = "test-key"
    target = Simulated(SimulatedTarget(persona, 0))
    with FakeLLMServer(default=target) as t_server, \
            FakeLLMServer(default=Simulated(SimulatedOptimizer(persona, 0))) as o_server:
        urls = ["--target-base-url", t_server.url, "--optimizer-base-url", o_server.url]
        plan = json.loads(cli(world, "run", "--dry-run", "--json", *urls).stdout)["plan"]
        run = json.loads(cli(world, "run", "--json", *urls).stdout)
    return plan, run, target


def _within_default_caps(run: dict[str, Any]) -> None:
    s = Settings()
    assert sum(run["counts"]["cost_by_role"].values()) <= s.max_usd_per_night
    for night in run["skills"]:
        assert 0 < night["cost_usd"] <= s.max_usd_per_skill


def test_a_priced_night_stays_within_the_default_caps_and_keeps_what_it_validated(
        world: dict) -> None:  # noqa: F811
    plan, run, _ = _night(world)
    assert plan["within_caps"]
    _within_default_caps(run)
    (night,) = run["skills"]
    assert not night.get("failed") and night["accepted"], night
    assert night["after_val"] > night["baseline_val"]
    # What it validated is staged for review (status lists one JSON object a line).
    status = [json.loads(line) for line in cli(world, "status", "--json").stdout.splitlines()]
    assert any(row.get("kind") == "night" and row.get("skill") == night["skill"]
               for row in status)


def test_a_night_on_a_big_real_skill_reads_it_from_the_cache_within_the_caps(
        world: dict) -> None:  # noqa: F811
    plan, run, target = _night(world, BIG)
    (row,) = plan["skills"]
    assert plan["within_caps"] and row["sizes"]["skill_tokens"] > 4000
    assert row["caching_saves_usd"] > 0
    _within_default_caps(run)
    # Each version of the skill is written once and read by the rest of its replays.
    assert target.cache["read"] > 5 * target.cache["write"] > 0
