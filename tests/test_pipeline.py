"""The product end to end: transcripts → run → stage → status → report → adopt → rollback."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.publish import staging
from skillopt_sleep.records import NightResult
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history

# The project path is part of every family id, and so of every split: a fixed path keeps
# the simulated nights (and what they accept) the same from run to run.
PROJECT = Path(tempfile.gettempdir()) / "skillopt-sleep-test-project"


@pytest.fixture
def world(tmp_path: Path, isolated_home: Path) -> Iterator[dict]:
    """A developer's machine: a researcher's history in Claude Code and Codex, a project."""
    with FileLock(str(PROJECT) + ".lock"):
        shutil.rmtree(PROJECT, ignore_errors=True)
        PROJECT.mkdir()
        try:
            yield _world(tmp_path, isolated_home, PROJECT)
        finally:
            shutil.rmtree(PROJECT, ignore_errors=True)


def _world(tmp_path: Path, isolated_home: Path, project: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    persona = personas.load("researcher")
    written = write_history(persona, 0, home, project)
    roots = [tmp_path / "skills-claude", tmp_path / "skills-agents"]
    (project / ".skillopt-sleep.toml").write_text(
        f'target = "simulated"\noptimizer = "simulated"\npersona = "{persona.path}"\n'
        f'embedder = "hashing"\nsources = ["claude-code", "codex"]\n'
        f"skill_roots = {json.dumps([str(r) for r in roots])}\n",
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        CODEX_HOME=str(home / ".codex"),
        SKILLOPT_SLEEP_HOME=str(isolated_home),
    )
    return {"home": home, "project": project, "roots": roots, "env": env, "state": isolated_home,
            "written": written}


def cli(world: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *args],
        capture_output=True,
        text=True,
        env=world["env"],
        cwd=world["project"],
        timeout=300,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def lines(done: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_run_stage_status_report_adopt_versions_rollback(world: dict):
    run = json.loads(cli(world, "run", "--json").stdout)
    sessions = world["written"]["claude-code"] + world["written"]["codex"]
    assert run["counts"]["harvest"]["sessions"] == sessions and run["staged"]
    skill = run["skills"][0]
    assert skill["skill"] == "skillopt-sleep-learned" and skill["changed"]
    staged = Path(run["staged"])
    assert (staged / "manifest.json").exists() and (staged / "report.html").exists()
    assert not any(r.exists() for r in world["roots"])  # review: nothing written back yet
    # Each learned entry keeps the night that accepted it and the gate's evidence.
    (night,) = json.loads((staged / "report.json").read_text(encoding="utf-8"))
    assert len(night["entries"]) == skill["accepted"]
    assert all(e["night_id"] == run["night_id"] and e["evidence"]["n_pairs"] > 0
               for e in night["entries"])
    assert "Learned entries" in (staged / "report.html").read_text(encoding="utf-8")

    status = lines(cli(world, "status", "--json"))
    assert status[-1]["summary"]["pending"] == 1
    assert {
        "kind": "pending",
        "night_id": run["night_id"],
        "skill": skill["skill"],
        "accepted": skill["accepted"],
    } in status

    report = json.loads(cli(world, "report", "--json").stdout)
    assert report["night_id"] == run["night_id"] and Path(report["report"]).exists()

    adopted = json.loads(cli(world, "adopt", "--json").stdout)
    proposal = (staged / "skills" / skill["skill"] / "SKILL.md").read_bytes()
    for root in world["roots"]:
        assert (root / skill["skill"] / "SKILL.md").read_bytes() == proposal
    after = lines(cli(world, "status", "--json"))
    assert after[-1]["summary"]["pending"] == 0
    (row,) = [r for r in after if r.get("kind") == "adopted"]
    assert set(row["on_disk"].values()) == {"current"}
    (world["roots"][0] / skill["skill"] / "SKILL.md").write_text("my own edit\n")
    row = next(r for r in lines(cli(world, "status", "--json")) if r.get("kind") == "adopted")
    assert sorted(row["on_disk"].values()) == ["current", "modified since"]
    (world["roots"][0] / skill["skill"] / "SKILL.md").write_bytes(proposal)

    versions = lines(cli(world, "versions", "--skill", skill["skill"], "--json"))
    assert [v["reason"] for v in versions[:-1]] == ["absent before the first write", "adopt"]
    assert adopted["adopted"][skill["skill"]] == 2

    undone = json.loads(cli(world, "rollback", "--json").stdout)  # the last skill written
    assert undone["skill"] == skill["skill"]
    assert not any((r / skill["skill"] / "SKILL.md").exists() for r in world["roots"])


def test_dry_run_stages_nothing_and_writes_no_state(world: dict):
    done = json.loads(cli(world, "run", "--dry-run", "--json").stdout)
    assert done["dry_run"] and not done["staged"] and not done["skills"]  # no night ran
    (skill,) = done["plan"]["skills"]
    assert skill["tasks"]["validation"] > 0 and skill["calls"]["target"] > 0
    assert not (world["state"] / "state" / "archive.sqlite3").exists()
    assert not (world["state"] / "state" / "nights").exists()


def test_auto_adopt_and_a_rejected_night_never_hides_a_pending_one(world: dict):
    first = json.loads(cli(world, "run", "--json").stdout)
    nights = world["state"] / "state" / "nights"
    later = NightResult(
        night_id="29990101-000000-00000000",
        skill="skillopt-sleep-learned",
        skill_before="x",
        skill_after="x",
    )
    staging.stage(nights, later.night_id, first["project"], [later], {}, "")
    status = lines(cli(world, "status", "--json"))
    assert [r["night_id"] for r in status if r.get("kind") == "pending"] == [first["night_id"]]
    nothing = cli(world, "adopt", later.night_id, check=False)
    assert nothing.returncode != 0 and "nothing adopted" in nothing.stderr
    done = json.loads(cli(world, "adopt", "--json").stdout)
    assert done["night_id"] == first["night_id"]


def test_unknown_config_key_and_bad_option_are_errors_that_name_them(world: dict):
    cfg = world["project"] / ".skillopt-sleep.toml"
    good = cfg.read_text()
    cfg.write_text(good + 'adpot = "auto"\n')
    done = cli(world, "run", "--json", check=False)
    assert done.returncode == 2 and "adpot" in done.stderr
    cfg.write_text(good)
    done = cli(world, "run", "--adopt", "sometimes", check=False)
    assert done.returncode == 2 and "review or auto" in done.stderr


def test_doctor_reports_sources_and_state(world: dict):
    doc = json.loads(cli(world, "doctor", "--json").stdout)
    assert doc["sources"]["claude-code"] == world["written"]["claude-code"]
    assert doc["sources"]["codex"] == world["written"]["codex"]
    assert doc["state_dir"].startswith(str(world["state"]))
    assert doc["backends"]["target"]["status"].startswith("ok")
    assert doc["embedding_model"].startswith("ok (hashing")
    assert doc["folders"]["claude-code"] == [str(world["home"] / ".claude")]
    assert doc["ok"] is True
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text().replace('target = "simulated"', 'target = "openai:no-such"'))
    done = cli(world, "doctor", "--json", check=False)
    doc = json.loads(done.stdout)
    assert "no-such" in doc["backends"]["target"]["status"]
    assert doc["backends"]["target"]["status"].startswith("error")
    assert done.returncode == 1 and doc["ok"] is False
    # Piped, progress comes as plain lines on stderr.
    assert "loading the embedding model (hashing)" in done.stderr


def _live(roots: list[Path]) -> list[bytes | None]:
    paths = [r / "skillopt-sleep-learned" / "SKILL.md" for r in roots]
    return [p.read_bytes() if p.exists() else None for p in paths]


def test_killing_a_night_at_random_points_leaves_skills_old_or_new(world: dict, tmp_path: Path):
    base = json.loads(cli(world, "run", "--json", "--adopt", "auto").stdout)
    assert base["adopted"]
    rng = random.Random(11)
    # --force: with nothing new a night would stop before it writes anything worth killing.
    cmd = [sys.executable, "-m", "skillopt_sleep", "run", "--adopt", "auto", "--json", "--force"]
    for trial in range(30):
        old = _live(world["roots"])
        proc = subprocess.Popen(
            cmd,
            env=world["env"],
            cwd=world["project"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = _live(world["roots"])
        nights = world["state"] / "state" / "nights"
        staged = {p.read_bytes() for p in nights.glob("*/skills/*/SKILL.md")}
        for before, after in zip(old, now, strict=True):
            assert after == before or after in staged, f"trial {trial}: a torn or unknown skill"
        Archive(world["state"] / "state" / "archive.sqlite3").close()  # still opens cleanly
    cli(world, "run", "--json", "--adopt", "auto", "--force")
    leftovers = [
        p
        for p in (world["state"] / "state" / "nights").iterdir()
        if not (p / "manifest.json").exists()
    ]
    assert leftovers == []
    shutil.rmtree(world["state"] / "state" / "nights")
