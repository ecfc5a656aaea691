"""A night with nothing new says so and stops: no archived session read, no model called;
a new session, a changed skill or setting, a failed night or ``--force`` runs it again."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import config
from skillopt_sleep.mine import collect
from skillopt_sleep.pipeline.run import run_once
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history
from tests.test_pipeline import cli, lines, world  # noqa: F401  (world is a fixture)


def _in_process(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for key, value in world["env"].items():
        monkeypatch.setenv(key, value)


def _no_session_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a nothing-new night read the archived sessions")

    monkeypatch.setattr(collect, "load_sessions", refuse)


def test_a_second_night_with_nothing_new_reads_no_session_and_calls_no_model(
        world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _in_process(world, monkeypatch)
    settings = config.load(world["project"])
    first = run_once(world["project"], settings=settings)
    assert first.nights and not first.skipped
    _no_session_read(monkeypatch)
    again = run_once(world["project"], settings=settings)
    assert again.skipped.startswith(f"nothing new since night {first.night_id}")
    assert again.message == again.skipped and "no model called" in again.skipped
    assert not again.nights and not again.staged and "calls" not in again.counts
    assert again.counts["harvest"]["sessions"] == 0


def test_status_says_why_the_last_run_was_skipped_and_force_runs_it(world: dict):  # noqa: F811
    first = json.loads(cli(world, "run", "--json").stdout)
    skipped = json.loads(cli(world, "run", "--json").stdout)
    assert skipped["skipped"] and skipped["ok"] and not skipped["skills"]
    status = lines(cli(world, "status", "--json"))
    (row,) = [r for r in status if r.get("kind") == "skipped"]
    assert row["project"] == first["project"] and "nothing new since night" in row["reason"]
    assert status[-1]["summary"]["skipped"] == 1
    said = cli(world, "status").stdout
    # A person reads the time to the minute; the JSON keeps the stored stamp whole.
    assert re.search(r"last run of .+ at \d{4}-\d\d-\d\d \d\d:\d\d UTC: "
                     r"skipped, nothing new since night", said), said
    assert row["at"] not in said and row["at"][:16].replace("T", " ") in said
    forced = json.loads(cli(world, "run", "--json", "--force").stdout)
    assert not forced["skipped"] and forced["skills"]
    # A night ran: the skip is history, and status no longer shows it.
    assert not [r for r in lines(cli(world, "status", "--json")) if r.get("kind") == "skipped"]


def test_new_sessions_a_changed_skill_or_setting_run_the_night(
        world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _in_process(world, monkeypatch)
    project = world["project"]
    run_once(project, settings=config.load(project))
    assert run_once(project, settings=config.load(project)).skipped
    # A changed setting that shapes the night.
    assert not run_once(project, settings=config.load(project, flags={"steps": 2})).skipped
    assert run_once(project, settings=config.load(project, flags={"steps": 2})).skipped
    # A changed skill file in a write-back root.
    skill = world["roots"][0] / "skillopt-sleep-learned" / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text("---\nname: skillopt-sleep-learned\ndescription: mine\n---\nmy own words\n")
    settings = config.load(project, flags={"steps": 2})
    assert not run_once(project, settings=settings).skipped
    assert run_once(project, settings=settings).skipped
    # New sessions: another day of the persona's history.
    write_history(personas.load("researcher"), 1, world["home"], project)
    assert not run_once(project, settings=settings).skipped


def test_a_failed_or_dry_run_night_leaves_no_fingerprint(
        world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _in_process(world, monkeypatch)
    project = world["project"]
    assert run_once(project, settings=config.load(project), dry_run=True).plan is not None
    assert not run_once(project, settings=config.load(project)).skipped
    # A night stopped at the dollar cap has work left: the next one runs.
    capped = config.load(project, flags={"max_usd_per_night": 0.0})
    stopped = run_once(project, settings=capped)
    assert not stopped.ok
    assert not run_once(project, settings=capped).skipped


def test_skip_unchanged_false_in_config_runs_every_night(
        world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _in_process(world, monkeypatch)
    cfg: Path = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text() + "skip_unchanged = false\n")
    project = world["project"]
    run_once(project, settings=config.load(project))
    assert not run_once(project, settings=config.load(project)).skipped


def test_a_nothing_new_night_loads_no_miner_night_or_numpy(world: dict) -> None:  # noqa: F811
    cli(world, "run", "--json")
    env = world["env"]
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "skillopt_sleep", "run",
                           "--json"], env=env, cwd=world["project"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["skipped"]
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:")}
    assert "skillopt_sleep.pipeline.skip" in modules
    loaded = sorted(m for m in modules if m.split(".")[0] in ("numpy", "scipy", "faiss")
                    or m.startswith(("skillopt_sleep.mine", "skillopt_sleep.night.gate")))
    assert loaded == []


def test_mine_between_two_nights_leaves_the_next_one_skipped(world: dict) -> None:  # noqa: F811
    # `mine` works on a throwaway copy of the archive (it never changes what the next night
    # trains on), so what it mined is no reason to run tomorrow's night.
    first = json.loads(cli(world, "run", "--json").stdout)
    assert json.loads(cli(world, "run", "--json").stdout)["skipped"]
    extra = world["project"] / "more.jsonl"
    extra.write_text(json.dumps({"id": "extra:1", "session_id": "extra", "project":
                                 first["project"], "text": "summarise the lr sweep"}) + "\n")
    cli(world, "mine", "--requests", str(extra), "--embedder", "hashing", "--json")
    assert json.loads(cli(world, "run", "--json").stdout)["skipped"]


def test_a_stamp_is_read_to_the_minute_in_utc_and_anything_else_is_kept() -> None:
    from skillopt_sleep.stamps import minute

    assert minute("2026-11-28T08:35:59.123456+00:00") == "2026-11-28 08:35 UTC"
    assert minute("2026-11-28T10:35:00+02:00") == "2026-11-28 08:35 UTC"
    assert minute("2026-11-28T08:35:07") == "2026-11-28 08:35 UTC"  # stored without a zone
    assert minute("yesterday") == "yesterday"
