"""The write-back when things fail: a ledger commit that cannot go in (read-only archive,
full disk), recovery that says what it did and never replays a journal the archive did
not register, a rollback retried after a kill, and bad state refused with its fix."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep import config
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import adopted_nights, versions
from skillopt_sleep.errors import ConfigError, StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import journal, staging, transaction, writes
from skillopt_sleep.publish.recovery import pending_note
from skillopt_sleep.records import NightResult
from tests import _writeback_world as w
from tests._require import require

POINTS = 8
COMMITTED = 7  # the crash point right after the ledger commit


def _said(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _failing_commit(monkeypatch: pytest.MonkeyPatch, before: Any) -> None:
    """Run ``before(archive)`` right before the ledger rows go in."""
    real = writes.record_write

    def commit(archive: Archive, *args: Any, **kwargs: Any) -> int:
        before(archive)
        return real(archive, *args, **kwargs)

    monkeypatch.setattr(writes, "record_write", commit)


def _left_as_it_was(world: w.World) -> None:
    assert w.disk(world) == world.old_disk() and w.temps(world) == []
    assert not (world.state / journal.JOURNAL).exists()
    archive = world.archive()
    try:  # the proposal is still pending: nothing recorded it as adopted
        assert (w.NIGHT, w.SKILL) not in adopted_nights(archive)
        assert versions(archive, w.SKILL) == []
    finally:
        archive.close()


def test_a_read_only_archive_at_the_commit_puts_every_root_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    world = w.build(tmp_path, count=3)
    _failing_commit(monkeypatch, lambda a: a.conn.execute("PRAGMA query_only = ON"))
    with pytest.raises(StoreError) as refused:
        adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)
    message = str(refused.value)
    assert "read-only" in message and "chmod u+w" in message and "put back" in message
    assert "damaged" not in message
    _left_as_it_was(world)
    monkeypatch.undo()
    adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)  # still adoptable
    assert w.disk(world) == world.new_disk()


@contextlib.contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[None]:
    where.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(archive: Archive) -> None:
    """Empty the WAL, then fill the disk under the state dir to the last byte."""
    archive.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(Path(archive.path).parent / "filler", "wb") as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 4096)
            out.flush()


def test_a_full_disk_at_the_commit_puts_every_root_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with _tmpfs(tmp_path / "state", "4m"):
        world = w.build(tmp_path, count=3)
        _failing_commit(monkeypatch, _fill)
        with pytest.raises(StoreError) as refused:
            adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)
        assert "is full" in str(refused.value) and "free space" in str(refused.value)
        (world.state / "filler").unlink()
        _left_as_it_was(world)


@pytest.mark.parametrize(("point", "action"), [(4, "undone"), (COMMITTED, "finished")])
def test_recovery_says_what_it_did_and_status_shows_the_pending_journal(
        tmp_path: Path, point: int, action: str):
    world = w.build(tmp_path)
    assert w.run(world, "adopt", crash_at=point).returncode == -9
    (note,) = pending_note(world.state)
    assert "pending" in note and journal.JOURNAL in note
    said = _said(w.run(world, "recover"))["recovered"]
    assert said["action"] == action and said["kind"] == "adopt" and len(said["paths"]) == 2
    assert ("finished" if action == "finished" else "put back") in said["line"]
    assert w.disk(world) == (world.new_disk() if action == "finished" else world.old_disk())
    assert pending_note(world.state) == []


@pytest.mark.parametrize("point", range(1, POINTS))
def test_a_rollback_retried_after_a_kill_never_undoes_the_recovery(tmp_path: Path, point: int):
    world = w.build(tmp_path)
    _said(w.run(world, "adopt"))
    assert w.run(world, "rollback", crash_at=point).returncode == -9
    said = _said(w.run(world, "rollback"))  # the user runs it again
    assert w.disk(world) == world.old_disk(), said
    assert said["already"] == (point >= COMMITTED)
    assert w.ledger(world)[-1].startswith("rollback to"), w.ledger(world)


def _planted(world: w.World, txid: str, target: Path) -> Path:
    entry = journal.Entry(target, b"planted\n", 0o644)
    path = world.state / journal.JOURNAL
    path.write_bytes(journal.Journal(txid, w.SKILL, "adopt", [journal.Entry(target, None, None)],
                                     [entry], []).dump())
    return path


@pytest.mark.parametrize("kind", ["damaged", "foreign", "tampered"])
def test_a_damaged_or_foreign_journal_is_moved_aside_never_replayed(tmp_path: Path, kind: str):
    world = w.build(tmp_path)
    outside = tmp_path / "outside" / w.SKILL / "SKILL.md"
    if kind == "damaged":
        (world.state / journal.JOURNAL).write_bytes(b'{"txid": "x", "skill"')
    elif kind == "foreign":
        _planted(world, "notregistered", outside)
    else:  # a real interrupted write whose journal was edited to point elsewhere
        assert w.run(world, "adopt", crash_at=4).returncode == -9
        data = json.loads((world.state / journal.JOURNAL).read_text())
        data["changes"][0]["path"] = str(outside)
        data["priors"][0]["path"] = str(outside)
        (world.state / journal.JOURNAL).write_text(json.dumps(data))
    said = _said(w.run(world, "recover"))["recovered"]
    assert said["action"] == "moved aside" and "doctor" in said["line"]
    assert not outside.exists() and not outside.parent.exists()
    assert not (world.state / journal.JOURNAL).exists()
    (aside,) = journal.aside_files(world.state)
    assert any(str(aside) in note for note in pending_note(world.state))


def test_a_failed_adopt_of_a_new_skill_leaves_no_folder(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    roots = [tmp_path / "claude" / "skills", tmp_path / "absent" / "agents" / "skills"]
    roots[0].mkdir(parents=True)
    _, live = adoption.read_live(roots, "new")
    result = NightResult(night_id=w.NIGHT, skill="new", skill_before="", skill_after=w.NEW)
    folder = staging.stage(tmp_path / "state" / "nights", w.NIGHT, "/p", [result],
                           {"new": live}, "")
    monkeypatch.setenv(transaction.FAIL_ENV, "5")  # the first rename
    monkeypatch.setattr(transaction, "_points", 0)
    with pytest.raises(StoreError, match="every root was left as it was"):
        adoption.adopt(Archive(tmp_path / "state" / "archive.sqlite3"), folder, "new", roots)
    assert [p.name for p in roots[0].iterdir()] == [] and not (tmp_path / "absent").exists()


def test_recovery_removes_the_folders_an_interrupted_first_write_created(tmp_path: Path):
    world = w.build(tmp_path)
    night = "20261121-050000-abcdef12"
    _, live = adoption.read_live(world.roots, "new")
    result = NightResult(night_id=night, skill="new", skill_before="", skill_after=w.NEW)
    staging.stage(world.state / "nights", night, "/p", [result], {"new": live}, "")
    script = ("import sys; from tests import _writeback_world as w; "
              "from skillopt_sleep.publish import adopt as a; world = w.load(__import__("
              "'pathlib').Path(sys.argv[1])); "
              f"a.adopt(world.archive(), world.state / 'nights' / '{night}', 'new', world.roots)")
    env = {**__import__("os").environ, transaction.CRASH_ENV: "6"}
    done = subprocess.run([__import__("sys").executable, "-c", script, str(world.base)],
                          env=env, check=False, capture_output=True)
    assert done.returncode == -9, done.stderr
    assert _said(w.run(world, "recover"))["recovered"]["action"] == "undone"
    assert not any((root / "new").exists() for root in world.roots)


def test_an_empty_or_lost_archive_is_refused_with_the_fix(tmp_path: Path):
    path = tmp_path / "state" / "archive.sqlite3"
    Archive(path).close()  # a history now exists here
    path.write_bytes(b"")
    with pytest.raises(StoreError, match=r"empty \(0 bytes\).*Put back a copy"):
        Archive(path)
    assert path.stat().st_size == 0
    path.unlink()
    with pytest.raises(StoreError, match="missing but one existed"):
        Archive(path)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_numbers_in_config_are_errors(tmp_path: Path, value: str):
    (tmp_path / ".skillopt-sleep.toml").write_text(f"max_usd_per_night = {value}\n")
    with pytest.raises(ConfigError, match="not a finite number"):
        config.load(tmp_path)
    (tmp_path / ".skillopt-sleep.toml").write_text(
        f'[pricing."m"]\ninput = {value}\n')
    with pytest.raises(ConfigError, match="not a finite number"):
        config.load(tmp_path)


def test_a_user_root_symlinked_out_of_home_is_refused(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    home, outside = tmp_path / "home", tmp_path / "elsewhere"
    (outside / "skills").mkdir(parents=True)
    home.mkdir()
    (home / ".claude").symlink_to(outside)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    with pytest.raises(StoreError, match=r"outside your home folder.*skill_roots"):
        adoption.user_roots()
    (home / ".claude").unlink()
    (home / ".claude").mkdir()
    assert adoption.user_roots()[0] == home / ".claude" / "skills"


def test_a_read_only_archive_file_refuses_the_adopt_before_any_root(tmp_path: Path):
    """The real case: the archive file is mode 0444 (file modes bind, even under root)."""
    import os
    import shutil
    import sys

    world = w.build(tmp_path / "home", count=3)
    world.archive().close()
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text(
        f"skill_roots = {json.dumps([str(r) for r in world.roots])}\n")
    (world.state / "archive.sqlite3").chmod(0o444)
    prefix: list[str] = []
    if os.geteuid() == 0:
        require(shutil.which("setpriv") is not None,
                "setpriv is needed to drop root's file-permission override")
        prefix = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                  "--bounding-set=-dac_override,-dac_read_search"]
    done = subprocess.run([*prefix, sys.executable, "-m", "skillopt_sleep", "adopt"],
                          env=dict(os.environ, SKILLOPT_SLEEP_HOME=str(tmp_path / "home")),
                          cwd=project, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "is read-only" in done.stderr and "chmod u+w" in done.stderr
    assert "nothing was changed" in done.stderr
    (world.state / "archive.sqlite3").chmod(0o644)
    _left_as_it_was(world)


def test_an_undo_puts_back_the_prior_file_itself_without_writing_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A full disk cannot stop the undo: each prior comes back from its kept hard link."""
    world = w.build(tmp_path)
    inodes = [(r / w.SKILL / "SKILL.md").stat().st_ino for r in world.roots]
    _failing_commit(monkeypatch, lambda a: a.conn.execute("PRAGMA query_only = ON"))

    def no_bytes(path: Path, data: bytes, mode: int | None) -> None:
        if ".restore." in path.name:
            raise OSError(28, "No space left on device", str(path))
        real_write(path, data, mode)

    real_write = transaction._write_tmp
    monkeypatch.setattr(transaction, "_write_tmp", no_bytes)
    with pytest.raises(StoreError, match="read-only"):
        adoption.adopt(world.archive(), world.night, w.SKILL, world.roots)
    assert [(r / w.SKILL / "SKILL.md").stat().st_ino for r in world.roots] == inodes
    _left_as_it_was(world)
