"""``adopt`` and ``rollback`` as the user runs them: clear one-line refusals, the newest
pending night by default, ``--all``, ``--wait``, and nothing changed on a refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.errors import LockHeld
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.records import NightResult
from tests import _writeback_world as w

LATER = "20261122-030000-abcdef12"
DOCS = "---\nname: docs\ndescription: d\n---\nWrite docs.\n"


@pytest.fixture
def world(isolated_home: Path, tmp_path: Path) -> dict:
    """The two-root world in the isolated state dir, and a project naming its roots."""
    built = w.build(isolated_home)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text(
        f"skill_roots = {json.dumps([str(r) for r in built.roots])}\n", encoding="utf-8")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home))
    return {"world": built, "project": project, "env": env}


def cli(world: dict, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *args, "--project", str(world["project"])],
        capture_output=True, text=True, env=world["env"], cwd=world["project"], timeout=60,
        check=False,
    )


def _stage_later(world: w.World) -> None:
    """A newer night that changed a second skill, ``docs``."""
    _, live = adoption.read_live(world.roots, "docs")
    result = NightResult(night_id=LATER, skill="docs", skill_before="",
                         skill_after=DOCS + "\n- one\n")
    staging.stage(world.state / "nights", LATER, "/p", [result], {"docs": live}, "")


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def test_adopt_takes_the_newest_pending_night_then_says_nothing_is_pending(world: dict):
    built: w.World = world["world"]
    _stage_later(built)
    done = json.loads(cli(world, "adopt", "--json").stdout)
    assert done["night_id"] == LATER and list(done["adopted"]) == ["docs"]
    assert w.disk(built)[0][0] == w.OLD[0]  # the older night is still pending
    done = json.loads(cli(world, "adopt", "--json").stdout)
    assert done["night_id"] == w.NIGHT and list(done["adopted"]) == ["fix"]
    before = w.disk(built)
    again = cli(world, "adopt")
    _one_line_error(again, "nothing is pending review")
    assert "changed since" not in again.stderr and w.disk(built) == before


def test_adopt_all_adopts_every_pending_skill(world: dict):
    built: w.World = world["world"]
    _stage_later(built)
    done = json.loads(cli(world, "adopt", "--all", "--json").stdout)
    assert sorted(done["adopted"]) == ["docs", "fix"]
    assert done["nights"] == {"docs": LATER, "fix": w.NIGHT}
    assert all((r / "docs" / "SKILL.md").is_file() for r in built.roots)


def test_adopting_a_named_night_twice_says_already_adopted(world: dict):
    assert cli(world, "adopt", w.NIGHT).returncode == 0
    _one_line_error(cli(world, "adopt", w.NIGHT), "already adopted")


def test_a_held_lock_offers_wait_to_adopt_and_rollback_but_not_to_run(world: dict):
    built: w.World = world["world"]
    with night_lock(built.state):
        for command in ("adopt", "rollback"):
            _one_line_error(cli(world, command), "--wait SECONDS")
        with pytest.raises(LockHeld) as held, night_lock(built.state):
            pass
        assert "--wait" not in str(held.value)
    assert w.disk(built) == ((w.OLD[0], w.OLD[1]), (w.OLD2[0], w.OLD2[1]))
    assert cli(world, "adopt", "--wait", "5").returncode == 0


def test_rollback_restores_each_root_through_the_cli(world: dict):
    built: w.World = world["world"]
    before = w.disk(built)
    assert cli(world, "adopt").returncode == 0
    done = json.loads(cli(world, "rollback", "--json").stdout)
    assert done["skill"] == "fix" and w.disk(built) == before


@pytest.mark.parametrize("damage", ["not utf-8", "a folder"])
def test_an_unreadable_live_skill_is_one_line_and_nothing_changes(world: dict, damage: str):
    built: w.World = world["world"]
    live = built.roots[1] / "fix" / "SKILL.md"
    if damage == "not utf-8":
        live.write_bytes(b"\xff\xfe broken")
    else:
        live.unlink()
        live.mkdir()
    first = built.roots[0] / "fix" / "SKILL.md"
    done = cli(world, "adopt", w.NIGHT)
    _one_line_error(done, str(live))
    assert first.read_bytes() == w.OLD[0]
    assert not list(built.base.rglob("*.tmp"))


def _status(world: dict, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", "status", *args],
                          capture_output=True, text=True, env=world["env"],
                          cwd=world["project"], timeout=60, check=True).stdout


def test_status_shows_a_pending_journal_and_adopt_says_what_recovery_did(world: dict):
    built: w.World = world["world"]
    assert w.run(built, "adopt", crash_at=4).returncode == -9
    shown = _status(world)
    assert "write-back" in shown and "interrupted write-back is pending" in shown
    rows = [json.loads(line) for line in _status(world, "--json").splitlines()]
    assert [r.get("kind") for r in rows].count("journal") == 1
    done = cli(world, "adopt")
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    assert first.startswith("recovered the interrupted adopt of fix") and "put back" in first
    assert rest[0].startswith("adopted fix v") and w.disk(built) == built.new_disk()
    assert "interrupted write-back" not in _status(world)
