"""Write-back over roots that hold different user text: each root keeps its own bytes, and
rollback acts on the files the ledger recorded, from any directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.merge import MergeRefused, merge
from skillopt_sleep.publish.rollback import rollback_skill
from skillopt_sleep.records import NightResult
from tests import _writeback_world as w

BASE = "---\nname: fix\ndescription: d\n---\nFix bugs.\n"
REGION = ("<!-- skillopt-sleep:learned:start -->\n- one\n"
          "<!-- skillopt-sleep:learned:end -->\n")
WITH_REGION = BASE + "\n" + REGION
CHANGED = WITH_REGION.replace("- one\n", "- one\n- two\n")


def test_four_roots_keep_their_own_endings_bom_final_newline_and_lines(tmp_path: Path):
    world = w.build(tmp_path, count=4)
    done = adoption.adopt_skill(world.archive(), world.night, w.SKILL, world.roots)
    assert done.skipped == {}
    assert w.disk(world) == world.new_disk()
    # Each root is its old bytes with the region after them, nothing before it changed.
    for (old, _), (new, _) in zip(world.old_disk(), w.disk(world), strict=True):
        assert new is not None and old is not None and new.startswith(old)


def test_a_region_the_roots_share_is_replaced_in_each_roots_own_line_endings():
    crlf = WITH_REGION.replace("\n", "\r\n")
    bom = "\ufeff" + WITH_REGION + "Own line after the region, no final newline"
    assert merge(WITH_REGION, WITH_REGION, CHANGED) == CHANGED
    assert merge(crlf, WITH_REGION, CHANGED) == CHANGED.replace("\n", "\r\n")
    assert merge(bom, WITH_REGION, CHANGED) == (
        "\ufeff" + CHANGED + "Own line after the region, no final newline")


def test_a_description_change_keeps_each_frontmatters_own_bytes():
    proposal = CHANGED.replace("description: d", "description: Fix failing tests")
    own = WITH_REGION.replace("---\n", "---\r\n", 1).replace("name: fix\n", "name: fix\r\n")
    own = own.replace("description: d\n---\n", "description: d\r\n---\r\n")
    got = merge(own, WITH_REGION, proposal)
    assert got.startswith("---\r\nname: fix\r\ndescription: Fix failing tests\r\n---\r\n")
    assert got.endswith(CHANGED.split("---\n", 2)[2])


@pytest.mark.parametrize(("own", "why"), [
    (BASE + "<!-- skillopt-sleep:learned:start -->\n- one\n", "no end marker"),
    (WITH_REGION.replace("- one", "- other"), "region differs"),
    (WITH_REGION.replace("description: d", "description: mine"), "description differs"),
])
def test_a_root_that_cannot_take_the_change_says_why(own: str, why: str):
    proposal = CHANGED.replace("description: d", "description: e") \
        if why == "description differs" else CHANGED
    with pytest.raises(MergeRefused, match=why.split()[-1] if why != "no end marker"
                       else "end marker"):
        merge(own, WITH_REGION, proposal)


def test_a_root_with_broken_markers_is_skipped_and_the_others_written(tmp_path: Path):
    world = w.build(tmp_path, count=2)
    path = world.roots[1] / w.SKILL / "SKILL.md"
    broken = b"---\nname: fix\n---\n<!-- skillopt-sleep:learned:start -->\n- x\n"
    path.write_bytes(broken)
    _, live = adoption.read_live(world.roots, w.SKILL)  # a night that read it so
    night = "20261121-040000-abcdef12"
    result = NightResult(night_id=night, skill=w.SKILL, skill_before="", skill_after=w.NEW)
    folder = staging.stage(world.state / "nights", night, "/p", [result], {w.SKILL: live}, "")
    done = adoption.adopt_skill(world.archive(), folder, w.SKILL, world.roots)
    assert "end marker" in done.skipped[str(path)] and path.read_bytes() == broken
    assert w.disk(world)[0] == world.new_disk()[0]


def test_a_proposal_that_edits_the_users_own_text_is_not_written(tmp_path: Path):
    world = w.build(tmp_path)
    _, live = adoption.read_live(world.roots, w.SKILL)
    night = "20261121-040000-abcdef12"
    sneaky = w.NEW.replace("Fix bugs.", "Fix bugs. Also push to main.")
    result = NightResult(night_id=night, skill=w.SKILL, skill_before="", skill_after=sneaky)
    folder = staging.stage(world.state / "nights", night, "/p", [result], {w.SKILL: live}, "")
    with pytest.raises(StoreError, match=r"outside (its managed|the learned) regions"):
        adoption.adopt(world.archive(), folder, w.SKILL, world.roots)
    assert w.disk(world) == world.old_disk()


def test_rollback_needs_no_roots_and_reports_a_hand_edit_or_a_lost_root(tmp_path: Path):
    world = w.build(tmp_path, count=3)
    archive = world.archive()
    adoption.adopt(archive, world.night, w.SKILL, world.roots)
    edited = world.roots[1] / w.SKILL / "SKILL.md"
    edited.write_bytes(b"mine now\n")
    gone = world.roots[2]
    for path in sorted(gone.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    gone.rmdir()
    done = rollback_skill(archive, w.SKILL)  # no roots given: the ledger's files
    assert list(done.restored) == [str(world.roots[0].resolve() / w.SKILL / "SKILL.md")]
    assert w.disk(world)[0] == world.old_disk()[0] and edited.read_bytes() == b"mine now\n"
    assert "changed by hand" in done.skipped[str(edited.resolve())]
    assert "no longer exists" in done.skipped[str(gone.resolve() / w.SKILL / "SKILL.md")]
    assert not gone.exists()


def test_force_takes_back_a_hand_edited_root(tmp_path: Path):
    world = w.build(tmp_path)
    archive = world.archive()
    adoption.adopt(archive, world.night, w.SKILL, world.roots)
    (world.roots[1] / w.SKILL / "SKILL.md").write_bytes(b"mine now\n")
    done = rollback_skill(archive, w.SKILL, force=True)
    assert done.skipped == {} and w.disk(world) == world.old_disk()


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def test_rollback_from_another_directory_restores_project_and_user_roots(tmp_path: Path):
    home, project, elsewhere = tmp_path / "home", tmp_path / "proj", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".git").mkdir(parents=True)
    (project / ".skillopt-sleep.toml").write_text("project_roots = true\n")
    env = dict(os.environ, HOME=str(home), SKILLOPT_SLEEP_HOME=str(home / "state-home"))
    env.pop("CLAUDE_CONFIG_DIR", None)
    roots = [home / ".claude" / "skills", home / ".agents" / "skills",
             project / ".claude" / "skills", project / ".agents" / "skills",
             project / ".github" / "skills"]
    olds = [w.OLD[0], w.OLD2[0], w.OLD3[0], w.OLD4[0], b"---\nname: fix\ndescription: d\n"
            b"---\nFix bugs.\nProject line.\n"]
    for root, data in zip(roots, olds, strict=True):
        (root / w.SKILL).mkdir(parents=True)
        (root / w.SKILL / "SKILL.md").write_bytes(data)
    (roots[4] / w.SKILL / "SKILL.md").chmod(0o600)
    _, live = adoption.read_live(roots, w.SKILL)
    result = NightResult(night_id=w.NIGHT, skill=w.SKILL, skill_before="", skill_after=w.NEW)
    state = home / "state-home" / "state"
    staging.stage(state / "nights", w.NIGHT, str(project), [result], {w.SKILL: live}, "")
    done = _cli(["adopt", "--json"], project, env)
    assert done.returncode == 0, done.stderr
    assert [(r / w.SKILL / "SKILL.md").read_bytes() for r in roots] == [w.adopted(o) for o in olds]
    back = _cli(["rollback", "--json"], elsewhere, env)
    assert back.returncode == 0, back.stderr
    assert [(r / w.SKILL / "SKILL.md").read_bytes() for r in roots] == olds
    assert (roots[4] / w.SKILL / "SKILL.md").stat().st_mode & 0o777 == 0o600
    assert len(json.loads(back.stdout)["restored"]) == 5
    listed = _cli(["versions", "--skill", w.SKILL], elsewhere, env).stdout
    assert all(str(r.resolve() / w.SKILL / "SKILL.md") in listed for r in roots)
