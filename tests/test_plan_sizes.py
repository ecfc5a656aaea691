"""The plan prices each call at its real size (``pipeline.plan_sizes``, ``plan_price``): the
skill's tokens in every replay, answers as long as recorded ones, the skill's block at the
prompt cache's prices; with the default settings the demo's history plans within the
default caps, and a big real skill does too, with caching."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillopt_sleep.config import Settings
from skillopt_sleep.models.pricing import price_for
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.pipeline.plan import night_calls
from skillopt_sleep.pipeline.plan_price import Prices, priced
from skillopt_sleep.pipeline.plan_sizes import DEFAULT_ANSWER_TOKENS, answers, sizes
from skillopt_sleep.records import JudgeSpec, NightResult, Task
from tests.test_pipeline import cli, world  # noqa: F401  (world is a fixture)

BIG = (Path(__file__).parent / "fixtures" / "skills-public" / "anthropics__claude-plugins-official"
       / "math-olympiad" / "SKILL.md")
SONNET = price_for("anthropic:claude-sonnet-4-6")


def _tasks() -> list[Task]:
    return [Task(f"t{i}", f"f{i}", f"do thing {i} " * 10, JudgeSpec(kind="rules"), split=s)
            for i, s in enumerate(["train"] * 12 + ["validation"] * 12 + ["test"] * 12)]


def test_answers_come_from_the_last_night_before_the_default() -> None:
    assert answers(None, None, []) == (DEFAULT_ANSWER_TOKENS,
                                       "assumed (no answers recorded yet)")
    last = NightResult(night_id="n", skill="s", project="p")
    last.task_evidence = [{"before_answer": "x" * 400, "after_answer": "y" * 800}] * 2
    assert answers(None, last, []) == (150, "the skill's last night's answers")
    last.replay_answer_tokens = 321.4
    assert answers(None, last, []) == (321, "metered on the skill's last night")


def test_every_replay_carries_the_skill_and_caching_prices_its_block() -> None:
    tasks, cfg = _tasks(), NightConfig()
    calls = night_calls(cfg, tasks)
    small = sizes("- be brief\n", tasks, None, None)
    big = sizes(BIG.read_text(encoding="utf-8"), tasks, None, None)
    assert big.skill > 4000 and big.prompt - small.prompt == big.skill - small.skill
    cached = priced(calls, calls, big, cfg, Prices(SONNET, SONNET, SONNET, cache_floor=1024))
    plain = priced(calls, calls, big, cfg, Prices(SONNET, SONNET, SONNET, cache_floor=0))
    assert cached["sizes"]["cached_prefix_tokens"] == big.system > big.skill
    assert plain["caching_saves_usd"] == 0 and plain["sizes"]["cached_prefix_tokens"] == 0
    assert cached["estimated_usd"] + cached["caching_saves_usd"] == pytest.approx(
        plain["estimated_usd"], abs=2e-4)
    assert cached["skill_usd"] < plain["skill_usd"] / 3
    # Under the provider's minimum nothing is cached: a short skill pays the plain price.
    short = priced(calls, calls, small, cfg, Prices(SONNET, SONNET, SONNET, cache_floor=1024))
    assert short["caching_saves_usd"] == 0


def _defaults(world: dict, skill: Path | None = None) -> dict:  # noqa: F811
    """``run --dry-run --json`` with the default settings (models, caps, samples)."""
    cfg = world["project"] / ".skillopt-sleep.toml"
    roots = world["roots"]
    cfg.write_text('embedder = "hashing"\nsources = ["claude-code", "codex"]\n'
                   f"skill_roots = {json.dumps([str(r) for r in roots])}\n", encoding="utf-8")
    if skill is not None:
        folder = roots[0] / "skillopt-sleep-learned"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(skill, folder / "SKILL.md")
    done = cli(world, "run", "--dry-run", "--json")
    return json.loads(done.stdout)["plan"]


def test_the_demo_history_plans_within_the_default_caps(world: dict) -> None:  # noqa: F811
    plan = _defaults(world)
    s = Settings()
    assert plan["models"]["target"]["spec"] == s.target == "claude-code"
    assert plan["within_caps"] and plan["estimated_usd"] <= s.max_usd_per_night
    (row,) = plan["skills"]
    assert row["estimated_usd"] <= s.max_usd_per_skill
    assert row["sizes"]["answer_source"] == "the harvested sessions' answers"
    # Only the rung that costs no lift was needed: the gate's samples and the steps stay.
    assert [line.split(" ")[0] for line in plan["fitted"]] in ([], ["test"])
    assert plan["config"]["steps"] == s.steps and plan["config"]["val_repeats"] == s.val_repeats


def test_a_big_real_skill_plans_within_the_default_caps_with_caching(world: dict) -> None:  # noqa: F811
    plan = _defaults(world, BIG)
    (row,) = plan["skills"]
    assert plan["within_caps"] and row["sizes"]["skill_tokens"] > 4000
    assert row["sizes"]["cached_prefix_tokens"] > row["sizes"]["skill_tokens"]
    assert row["caching_saves_usd"] > row["estimated_usd"]  # without it, several times over
    text = cli(world, "run", "--dry-run").stdout
    assert f"{row['sizes']['skill_tokens']} skill tokens in every replay" in text
    assert "caching saves $" in text
