"""Write-back as one transaction: kill -9 at every write point of adopt and rollback,
concurrent adopt/rollback, a root that fails mid-write, byte- and mode-exact round trips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.errors import StaleSkillError, StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.records import NightResult
from tests import _writeback_world as w

POINTS = 8  # journal (2), two temps, two renames, ledger commit, journal removal


def _old(world: w.World) -> tuple:
    return world.old_disk()


def _new() -> tuple:
    return w.World(Path("unused")).new_disk()


def _ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("point", range(1, POINTS + 1))
def test_adopt_killed_at_each_write_point_recovers_all_old_or_all_new(
    tmp_path: Path, point: int
):
    world = w.build(tmp_path)
    killed = w.run(world, "adopt", crash_at=point)
    assert killed.returncode == -9, killed.stderr
    _ok(w.run(world, "recover"))
    state, reasons = w.disk(world), w.ledger(world)
    assert state in (_old(world), _new()), state
    assert ("adopt" in reasons) == (state == _new()), reasons
    assert w.temps(world) == []
    if state == _old(world):  # the rerun adopts, never "changed since night"
        _ok(w.run(world, "adopt"))
        assert w.disk(world) == _new()


@pytest.mark.parametrize("point", range(1, POINTS + 1))
def test_rollback_killed_at_each_write_point_recovers_all_old_or_all_new(
    tmp_path: Path, point: int
):
    world = w.build(tmp_path)
    _ok(w.run(world, "adopt"))
    killed = w.run(world, "rollback", crash_at=point)
    assert killed.returncode == -9, killed.stderr
    _ok(w.run(world, "recover"))
    state, reasons = w.disk(world), w.ledger(world)
    assert state in (_old(world), _new()), state
    assert reasons[-1].startswith("rollback") == (state == _old(world)), reasons
    assert w.temps(world) == []


def test_the_fault_hook_has_exactly_the_counted_points(tmp_path: Path):
    world = w.build(tmp_path)
    _ok(w.run(world, "adopt", crash_at=POINTS + 1))
    assert w.disk(world) == _new()


def test_concurrent_adopt_and_rollback_end_in_a_serial_state(tmp_path: Path):
    for trial in range(3):
        world = w.build(tmp_path / str(trial))
        env = dict(os.environ)
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "tests._writeback_world",
                 cmd, str(world.base), "30"],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            for cmd in ("adopt", "rollback")
        ]
        codes = [p.wait(timeout=60) for p in procs]
        reasons = w.disk(world), w.ledger(world)
        state, ledger = reasons
        assert codes[0] == 0
        if codes[1] == 0:  # adopt then rollback: every root back to its own copy
            assert state == _old(world) and ledger[-1].startswith("rollback")
        else:  # rollback first found nothing to undo, then adopt
            assert state == _new() and ledger[-1] == "adopt"
        assert w.temps(world) == []


@pytest.mark.parametrize("point", [3, 4, 5, 6])
def test_a_root_failing_mid_write_leaves_every_root_and_the_ledger_as_they_were(
    tmp_path: Path, point: int, monkeypatch: pytest.MonkeyPatch
):
    world = w.build(tmp_path)
    monkeypatch.setenv("SKILLOPT_SLEEP_FAIL_AT", str(point))
    monkeypatch.setattr("skillopt_sleep.publish.transaction._points", 0)
    archive = world.archive()
    with pytest.raises(StoreError, match="every root was left as it was"):
        adoption.adopt(archive, world.night, w.SKILL, world.roots)
    assert w.disk(world) == _old(world)
    assert adoption.versions(archive, w.SKILL) == []
    assert w.temps(world) == [] and not (world.state / "adopt.journal.json").exists()


def test_adopt_then_rollback_is_byte_and_mode_exact_per_root(tmp_path: Path):
    world = w.build(tmp_path)
    archive = world.archive()
    adoption.adopt(archive, world.night, w.SKILL, world.roots)
    assert w.disk(world) == _new()  # each file keeps its own mode
    adoption.rollback(archive, w.SKILL, world.roots)
    assert w.disk(world) == _old(world)  # CRLF kept, each root its own copy
    adoption.rollback(archive, w.SKILL, world.roots)  # undoing the undo re-adopts
    assert w.disk(world) == _new()


def test_rollback_default_undoes_the_last_write_not_the_first_version(tmp_path: Path):
    world = w.build(tmp_path)
    archive = world.archive()
    adoption.adopt(archive, world.night, w.SKILL, world.roots)
    for root in world.roots:
        (root / w.SKILL / "SKILL.md").write_text("hand edit\n")
    with pytest.raises(StoreError, match=r"changed by hand since.*--force"):
        adoption.rollback(archive, w.SKILL, world.roots)  # hand edits are not overwritten
    assert [data for data, _ in w.disk(world)] == [b"hand edit\n", b"hand edit\n"]
    adoption.rollback(archive, w.SKILL, world.roots, to=3, force=True)  # root one's text
    assert [data for data, _ in w.disk(world)] == [_new()[0][0]] * 2
    adoption.rollback(archive, w.SKILL, world.roots)  # back to the hand edits, not to v1
    assert [data for data, _ in w.disk(world)] == [b"hand edit\n", b"hand edit\n"]
    history = adoption.versions(archive, w.SKILL)
    assert [v.reason for v in history][-2:] == ["rollback to v3", "rollback to v5"]
    # Each row holds the text its label names.
    by_number = {v.version: v.sha256 for v in history}
    assert history[-2].sha256 == by_number[3] and history[-1].sha256 == by_number[5]


def test_a_root_the_night_never_read_is_skipped_with_the_reason(tmp_path: Path):
    world = w.build(tmp_path)
    extra = tmp_path / "third" / "skills"
    (extra / w.SKILL).mkdir(parents=True)
    (extra / w.SKILL / "SKILL.md").write_text("written after the night\n")
    archive = world.archive()
    done = adoption.adopt_skill(archive, world.night, w.SKILL, [extra, *world.roots])
    assert (extra / w.SKILL / "SKILL.md").read_text() == "written after the night\n"
    assert [why for why in done.skipped.values()] == [
        f"night {w.NIGHT} never read {extra / w.SKILL / 'SKILL.md'} (a skill root added "
        "since?); run a new night instead of overwriting it"]
    assert w.disk(world) == _new()


def test_a_second_adopt_says_already_adopted(tmp_path: Path):
    world = w.build(tmp_path)
    archive = world.archive()
    adoption.adopt(archive, world.night, w.SKILL, world.roots)
    with pytest.raises(StaleSkillError, match="already adopted"):
        adoption.adopt(archive, world.night, w.SKILL, world.roots)


def test_a_symlinked_project_skill_dir_is_refused(tmp_path: Path):
    project, outside = tmp_path / "proj", tmp_path / "elsewhere"
    (project / ".claude").mkdir(parents=True)
    outside.mkdir()
    (project / ".claude" / "skills").symlink_to(outside)
    with pytest.raises(StoreError, match="symlink leads it outside"):
        adoption.project_roots(project)


def test_orphan_temps_and_a_torn_journal_are_cleaned_by_the_next_command(tmp_path: Path):
    world = w.build(tmp_path)
    orphan = world.roots[0] / w.SKILL / ".SKILL.md.abc123.tmp"
    orphan.write_text("half")
    (world.state / ".adopt.journal.json.x.tmp").write_text("{")
    _ok(w.run(world, "adopt"))
    assert w.temps(world) == [] and w.disk(world) == _new()


def test_a_change_in_the_root_the_night_read_refuses_the_adoption(tmp_path: Path):
    world = w.build(tmp_path)
    path = world.roots[0] / w.SKILL / "SKILL.md"
    path.write_bytes(path.read_bytes() + b"my own line\n")
    before = w.disk(world)
    with pytest.raises(StaleSkillError, match="changed since night"):
        adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)
    assert w.disk(world) == before


def test_a_change_in_another_root_skips_that_root_alone(tmp_path: Path):
    world = w.build(tmp_path)
    path = world.roots[1] / w.SKILL / "SKILL.md"
    path.write_bytes(path.read_bytes() + b"my own line\n")
    edited = path.read_bytes()
    done = adoption.adopt_skill(world.archive(), world.night, w.SKILL, world.roots)
    assert list(done.skipped) == [str(path)] and "changed since night" in done.skipped[str(path)]
    assert w.disk(world)[0] == _new()[0] and path.read_bytes() == edited


def test_a_proposal_that_changes_the_frontmatter_is_not_written(tmp_path: Path):
    world = w.build(tmp_path)
    _, live = adoption.read_live(world.roots, w.SKILL)
    evil = w.NEW.replace("description: d", "description: d\nallowed-tools: Bash(*)")
    night = "20261121-040000-abcdef12"
    result = NightResult(night_id=night, skill=w.SKILL, skill_before="", skill_after=evil)
    folder = staging.stage(world.state / "nights", night, "/p", [result], {w.SKILL: live}, "")
    with pytest.raises(StoreError, match="allowed-tools changed"):
        adoption.adopt(world.archive(), folder, w.SKILL, world.roots)
    assert w.disk(world) == _old(world)


def test_a_state_dir_that_cannot_hold_the_lock_or_the_journal_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot lock the state dir"), night_lock(
        blocker / "state"
    ):
        pass
    world = w.build(tmp_path / "w")

    def refuse(path: Path, data: bytes) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("skillopt_sleep.publish.transaction.write_atomic", refuse)
    with pytest.raises(StoreError, match="cannot write the journal"):
        adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)
    assert w.disk(world) == _old(world) and w.temps(world) == []


def test_the_next_run_recovers_an_interrupted_adoption(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    from skillopt_sleep.config import Settings
    from skillopt_sleep.pipeline.run import run_once

    world = w.build(tmp_path)
    assert w.run(world, "adopt", crash_at=3).returncode == -9
    assert w.temps(world)  # the crash left its temps (and its journal) behind
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(world.base))
    project = tmp_path / "project"
    project.mkdir()
    settings = Settings(target="simulated", optimizer="simulated", persona="researcher",
                        sources=(), skill_roots=tuple(map(str, world.roots)))
    run_once(project, settings=settings)
    assert w.disk(world) in (_old(world), _new()) and w.temps(world) == []
