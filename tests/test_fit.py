"""A night sized to its caps before its first call (``pipeline.fit``): the report's test sample
goes first, then validation samples, then steps; a night within its caps is left as it is;
what was left out is said in the plan and the dry run."""

from __future__ import annotations

import json
from typing import Any

from skillopt_sleep.config import Settings
from skillopt_sleep.pipeline.fit import TEST_FLOOR, fit, within_caps
from tests.test_pipeline import cli, world  # noqa: F401  (world is a fixture)


def _plan_of(per_call: float, test_split: int = 40) -> Any:
    """A plan whose cost follows the knobs the way a night's calls do: the test sample
    is scored twice, each step replays a minibatch, each validation sample twice."""
    def plan_of(s: Settings) -> dict[str, Any]:
        scored = min(s.test_tasks or test_split, test_split)
        calls = 2 * scored + 8 * s.steps + 2 * 8 * s.val_repeats * s.steps
        usd = calls * per_call
        return {"estimated_usd": usd, "skills": [{"estimated_usd": usd, "test_scored": scored}]}
    return plan_of


def test_a_night_within_its_caps_is_left_as_it_is() -> None:
    settings = Settings()
    fitted = fit(settings, _plan_of(0.0001))
    assert fitted.settings == settings and fitted.left_out == []
    assert within_caps(fitted.plan, settings)


def test_the_test_sample_goes_first_and_alone_when_it_is_enough() -> None:
    settings = Settings(max_usd_per_skill=0.5)
    # 2*40 + 24 + 144 = 248 calls; the test sample at 8 makes 184.
    fitted = fit(settings, _plan_of(0.5 / 190))
    assert fitted.settings.steps == 3 and fitted.settings.val_repeats == 3
    assert fitted.settings.test_tasks < 40 and within_caps(fitted.plan, settings)
    (line,) = fitted.left_out
    assert line.startswith("test sample 40 → ") and "never gates" in line


def test_then_validation_samples_then_steps_never_below_their_floors() -> None:
    settings = Settings(max_usd_per_skill=0.5, max_usd_per_night=2.0)
    fitted = fit(settings, _plan_of(1.0))  # nothing fits: every rung is spent
    s = fitted.settings
    assert (s.test_tasks, s.steps, s.val_repeats) == (TEST_FLOOR, 1, 2)
    assert [line.split(" ")[0] for line in fitted.left_out] == ["test", "validation", "steps"]
    assert not within_caps(fitted.plan, settings)  # the cap mid-night is the last resort
    assert fitted.plan["fitted"] == fitted.left_out


def test_each_rung_stops_as_soon_as_the_night_fits() -> None:
    settings = Settings(max_usd_per_skill=1.0)
    # test at 8: 16 + 8*steps + 16*repeats*steps; repeats 2: 16 + 40*steps.
    fitted = fit(settings, _plan_of(1.0 / 100))  # 3 steps: 136 calls; 2 steps: 96
    assert fitted.settings.val_repeats == 2 and fitted.settings.steps == 2
    assert within_caps(fitted.plan, settings)
    roomier = fit(settings, _plan_of(1.0 / 140))
    assert roomier.settings.val_repeats == 2 and roomier.settings.steps == 3


def test_the_night_cap_counts_too() -> None:
    settings = Settings(max_usd_per_skill=100.0, max_usd_per_night=0.1)
    fitted = fit(settings, _plan_of(0.01))
    assert fitted.left_out and fitted.settings.test_tasks < settings.test_tasks


def test_the_dry_run_fits_a_priced_night_and_says_what_it_left_out(world: dict) -> None:  # noqa: F811
    cfg = world["project"] / ".skillopt-sleep.toml"
    priced = cfg.read_text(encoding="utf-8").replace(
        'target = "simulated"', 'target = "anthropic:claude-haiku-4-5"')
    world["env"]["ANTHROPIC_API_KEY"] = "k"
    cfg.write_text(priced + "max_usd_per_skill = 100.0\nmax_usd_per_night = 100.0\n",
                   encoding="utf-8")
    roomy = json.loads(cli(world, "run", "--dry-run", "--json").stdout)["plan"]
    assert roomy["fitted"] == [] and roomy["within_caps"]
    cfg.write_text(priced + "max_usd_per_skill = 0.05\n", encoding="utf-8")
    tight = json.loads(cli(world, "run", "--dry-run", "--json").stdout)["plan"]
    assert tight["fitted"][0].startswith("test sample ")
    assert tight["estimated_usd"] < roomy["estimated_usd"]
    assert all(a["test_scored"] < b["test_scored"]
               for a, b in zip(tight["skills"], roomy["skills"], strict=True))
    assert "fitted to the caps: test sample" in cli(world, "run", "--dry-run").stdout
