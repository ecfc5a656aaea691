from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import LockHeld, StaleSkillError, StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.records import NightResult, sha256_text

OLD = "---\nname: fix\ndescription: d\n---\nFix bugs.\n"
NEW = (
    OLD
    + "\n<!-- skillopt-sleep:learned:start -->\n- Run pytest -q.\n"
    + "<!-- skillopt-sleep:learned:end -->\n"
)


def setup(tmp: Path) -> tuple[Archive, list[Path], Path]:
    roots = [tmp / "claude" / "skills", tmp / "agents" / "skills"]
    write_atomic(roots[0] / "fix" / "SKILL.md", OLD.encode())
    archive = Archive(tmp / "state" / "archive.sqlite3")
    _, live = adoption.read_live(roots, "fix")
    result = NightResult(
        night_id="20261121-030000-abcdef12", skill="fix", skill_before=OLD, skill_after=NEW
    )
    folder = staging.stage(
        tmp / "state" / "nights", result.night_id, "/p", [result], {"fix": live}, "<html></html>"
    )
    return archive, roots, folder


def test_stage_writes_manifest_last_and_adopt_then_rollback_byte_exact(tmp_path: Path):
    archive, roots, folder = setup(tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["skills"][0]["proposal_sha256"] == sha256_text(NEW)
    assert "+- Run pytest -q." in (folder / "skills" / "fix" / "diff.patch").read_text()
    version = adoption.adopt(archive, folder, "fix", roots)
    assert [r.joinpath("fix", "SKILL.md").read_text() for r in roots] == [NEW, NEW]
    assert not any(r.joinpath("fix", "SKILL.md").is_symlink() for r in roots)
    assert version == 2  # v1 is what was there before
    adoption.rollback(archive, "fix", roots)
    assert roots[0].joinpath("fix", "SKILL.md").read_bytes() == OLD.encode()
    reasons = [v.reason for v in adoption.versions(archive, "fix")]
    # Each root goes back to its own prior state: the second root had no file.
    assert reasons[1] == "adopt" and reasons[-2:] == ["rollback to v1", "rollback to absence"]
    assert not roots[1].joinpath("fix", "SKILL.md").exists()


def test_adopt_refuses_when_live_file_changed_since_the_night(tmp_path: Path):
    archive, roots, folder = setup(tmp_path)
    roots[0].joinpath("fix", "SKILL.md").write_text(OLD + "my own edit\n")
    with pytest.raises(StaleSkillError):
        adoption.adopt(archive, folder, "fix", roots)
    assert roots[0].joinpath("fix", "SKILL.md").read_text().endswith("my own edit\n")


def test_unchanged_night_cannot_be_adopted_and_symlink_escape_refused(tmp_path: Path):
    archive, roots, _ = setup(tmp_path)
    same = NightResult(
        night_id="20261121-040000-abcdef12", skill="fix", skill_before=OLD, skill_after=OLD
    )
    folder = staging.stage(tmp_path / "state" / "nights", same.night_id, "/p", [same], {}, "")
    with pytest.raises(StoreError, match="accepted nothing"):
        adoption.adopt(archive, folder, "fix", roots)
    outside = tmp_path / "outside"
    outside.mkdir()
    (roots[1]).mkdir(parents=True, exist_ok=True)
    os.symlink(outside, roots[1] / "evil")
    with pytest.raises(StoreError, match="outside"):
        adoption.target(roots[1], "evil")
    with pytest.raises(StoreError, match="invalid skill name"):
        adoption.target(roots[1], "../x")


def test_orphan_staging_dirs_are_cleaned_and_only_manifests_count(tmp_path: Path):
    root = tmp_path / "nights"
    (root / ".half.tmp").mkdir(parents=True)
    (root / "no-manifest").mkdir()
    assert len(staging.clean_orphans(root)) == 2
    assert staging.nights(root) == []


def _hold(state: str, ready: multiprocessing.synchronize.Event) -> None:
    with night_lock(Path(state)):
        ready.set()
        time.sleep(30)


def test_second_night_gets_a_clear_lock_error_and_a_killed_holder_frees_it(tmp_path: Path):
    ready = multiprocessing.Event()
    proc = multiprocessing.Process(target=_hold, args=(str(tmp_path), ready))
    proc.start()
    assert ready.wait(20)
    with pytest.raises(LockHeld, match="another night, adopt or rollback"), night_lock(tmp_path):
        pass
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    with night_lock(tmp_path, wait=5):
        pass


def _adopt_forever(tmp: str) -> None:
    archive, roots, folder = setup(Path(tmp))
    while True:
        adoption.adopt(archive, folder, "fix", roots)
        adoption.rollback(archive, "fix", roots)


def test_killing_adopt_at_random_points_leaves_old_or_new_byte_exact(tmp_path: Path):
    rng = random.Random(3)
    for trial in range(30):
        tmp = tmp_path / f"t{trial}"
        tmp.mkdir()
        proc = multiprocessing.Process(target=_adopt_forever, args=(str(tmp),))
        proc.start()
        time.sleep(0.15 + rng.random() * 0.25)
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        for root in ("claude", "agents"):
            path = tmp / root / "skills" / "fix" / "SKILL.md"
            if path.exists():
                assert path.read_text() in (OLD, NEW), f"trial {trial}: torn write in {path}"


def test_rollback_of_a_first_adopt_removes_the_created_skill(tmp_path: Path):
    roots = [tmp_path / "r1", tmp_path / "r2"]
    archive = Archive(tmp_path / "a.sqlite3")
    result = NightResult(
        night_id="20261121-050000-abcdef12", skill="new", skill_before="", skill_after=NEW
    )
    live = {str(r / "new" / "SKILL.md"): None for r in roots}
    folder = staging.stage(tmp_path / "nights", result.night_id, "/p", [result], {"new": live}, "")
    adoption.adopt(archive, folder, "new", roots)
    assert all(r.joinpath("new", "SKILL.md").read_text() == NEW for r in roots)
    adoption.rollback(archive, "new", roots)
    assert not any(r.joinpath("new", "SKILL.md").exists() for r in roots)
    assert not any(r.joinpath("new").exists() for r in roots)  # the folder it made, too
    assert all(r.is_dir() for r in roots)  # never the root itself
    assert adoption.versions(archive, "new")[0].reason == adoption.ABSENT


def test_rollback_keeps_a_skill_folder_that_holds_the_users_files(tmp_path: Path):
    roots = [tmp_path / "r1"]
    script = roots[0] / "new" / "scripts" / "check.sh"
    script.parent.mkdir(parents=True)
    script.write_text("echo ok\n")
    archive = Archive(tmp_path / "a.sqlite3")
    result = NightResult(
        night_id="20261121-050000-abcdef12", skill="new", skill_before="", skill_after=NEW
    )
    live = {str(roots[0] / "new" / "SKILL.md"): None}
    folder = staging.stage(tmp_path / "nights", result.night_id, "/p", [result], {"new": live}, "")
    adoption.adopt(archive, folder, "new", roots)
    adoption.rollback(archive, "new", roots)
    assert not roots[0].joinpath("new", "SKILL.md").exists()
    assert script.read_text() == "echo ok\n"


def test_rollback_without_a_skill_undoes_the_last_write_or_says_nothing_was_adopted(
    tmp_path: Path,
):
    archive = Archive(tmp_path / "empty.sqlite3")
    with pytest.raises(StoreError, match="nothing has been adopted"):
        adoption.last_written(archive)
    archive, roots, folder = setup(tmp_path)
    adoption.adopt(archive, folder, "fix", roots)
    assert adoption.last_written(archive) == "fix"
