"""What rollback and the write transaction promise, in-process: a file deleted or re-moded
by hand since the write is left alone unless forced; ``--to N`` puts version N (or the
absence) back; a write that failed after the ledger recorded it is finished by the next
command, and a rollback recovery finished is not done twice; restoring never takes a kept
link whose bytes or mode are not the prior's."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from skillopt_sleep.archive import intents
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import content, versions
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import transaction
from skillopt_sleep.publish.rollback import rollback_skill
from skillopt_sleep.publish.roots import real
from skillopt_sleep.publish.transaction import Snapshot

from .test_promises_adopt import NEW, OLD, OWN, OWN_NEW, REGION, _file, _night


def world_at(base: Path) -> tuple[Archive, list[Path]]:
    roots = [base / "claude" / "skills", base / "agents" / "skills"]
    _file(roots[0]).parent.mkdir(parents=True)
    _file(roots[0]).write_text(OLD)
    _file(roots[1]).parent.mkdir(parents=True)
    _file(roots[1]).write_bytes(OWN.encode())
    return Archive(base / "state" / "archive.sqlite3"), roots


@pytest.fixture
def world(tmp_path: Path) -> tuple[Archive, list[Path]]:
    return world_at(tmp_path)


def _adopted(tmp_path: Path, world: tuple[Archive, list[Path]]) -> tuple[Archive, list[Path]]:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots), "fix", roots)
    return archive, roots


def test_a_file_deleted_by_hand_is_left_alone_and_said_so(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = _adopted(tmp_path, world)
    written = versions(archive, "fix")[-1].version
    _file(roots[1]).unlink()
    done = rollback_skill(archive, "fix")
    assert done.skipped == {
        str(real(_file(roots[1]))): f"{real(_file(roots[1]))} was changed by hand since v{written}"}
    assert _file(roots[0]).read_text() == OLD and not _file(roots[1]).exists()


def test_rollback_leaves_a_hand_deleted_file_alone_by_default_and_restores_it_forced(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = _adopted(tmp_path, world)
    _file(roots[1]).unlink()
    adoption.rollback(archive, "fix")
    assert _file(roots[0]).read_text() == OLD and not _file(roots[1]).exists()
    other = tmp_path / "again"
    archive, roots = _adopted(other, world_at(other))
    _file(roots[1]).unlink()
    adoption.rollback(archive, "fix", force=True)
    assert _file(roots[0]).read_text() == OLD and _file(roots[1]).read_bytes() == OWN.encode()


def test_a_file_whose_mode_was_changed_by_hand_is_left_alone(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = _adopted(tmp_path, world)
    written = versions(archive, "fix")[-1].version
    mode = _file(roots[1]).stat().st_mode & 0o777
    os.chmod(_file(roots[1]), 0o604 if mode != 0o604 else 0o640)
    done = rollback_skill(archive, "fix")
    assert done.skipped == {str(real(_file(roots[1]))): (
        f"{real(_file(roots[1]))} had its mode changed by hand since v{written}")}
    assert _file(roots[1]).read_bytes() == OWN_NEW.encode()
    assert _file(roots[0]).read_text() == OLD


def test_rollback_to_a_version_or_to_the_absence_before_the_first_write(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, _ = world
    fresh = tmp_path / "fresh" / "skills"  # no file before the first write
    adoption.adopt_skill(archive, _night(tmp_path, [fresh]), "fix", [fresh])
    history = versions(archive, "fix")
    assert [v.reason for v in history] == [adoption.ABSENT, "adopt"]
    adoption.rollback(archive, "fix", to=history[1].version)  # the adopted text again
    assert _file(fresh).read_text() == NEW
    adoption.rollback(archive, "fix", to=history[0].version)  # the absence
    assert not _file(fresh).exists()
    # A rollback *to* a version that stands for the absence is an absence too.
    back = versions(archive, "fix")[-1]
    assert back.reason == f"rollback to v{history[0].version}"
    adoption.rollback(archive, "fix", to=history[1].version)
    assert _file(fresh).read_text() == NEW
    adoption.rollback(archive, "fix", to=back.version)
    assert not _file(fresh).exists() and not _file(fresh).parent.exists()
    with pytest.raises(StoreError, match="has no version 99"):
        adoption.rollback(archive, "fix", to=99)


def _fail_after_commit(monkeypatch: pytest.MonkeyPatch, point: int) -> None:
    monkeypatch.setattr(transaction, "_points", 0)
    monkeypatch.setenv(transaction.FAIL_ENV, str(point))


def test_a_write_that_failed_after_the_ledger_recorded_it_is_finished_next_time(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, roots = world
    folder = _night(tmp_path, roots)
    # Points of a two-root write: intent, journal, two temps, two renames, then the commit.
    _fail_after_commit(monkeypatch, 7)
    with pytest.raises(PermissionError):
        adoption.adopt_skill(archive, folder, "fix", roots)
    monkeypatch.delenv(transaction.FAIL_ENV)
    journal = transaction.journal_path(archive)
    assert journal.exists() and intents.pending(archive) == []
    assert list(roots[0].joinpath("fix").glob(".SKILL.md.*.tmp"))  # the kept priors
    _file(roots[1]).write_text("torn by hand")  # the roll forward puts the new bytes back
    recovered = adoption.recover(archive)
    assert recovered is not None and (recovered.action, recovered.kind) == ("finished", "adopt")
    assert _file(roots[0]).read_text() == NEW and _file(roots[1]).read_bytes() == OWN_NEW.encode()
    assert not journal.exists()
    assert not [p for r in roots for p in r.joinpath("fix").glob(".SKILL.md.*.tmp")]
    txid = archive.conn.execute("SELECT txid FROM write_intents").fetchone()[0]
    found = intents.find(archive, txid)
    assert found is not None and found.state == "recovered"


def test_a_rollback_recovery_finished_is_not_done_twice(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, _ = world
    fresh = tmp_path / "fresh" / "skills"
    adoption.adopt_skill(archive, _night(tmp_path, [fresh]), "fix", [fresh])
    # A one-file rollback to the absence: intent, journal, one rename, then the commit.
    _fail_after_commit(monkeypatch, 4)
    with pytest.raises(PermissionError):
        rollback_skill(archive, "fix")
    monkeypatch.delenv(transaction.FAIL_ENV)
    assert not _file(fresh).exists() and _file(fresh).parent.exists()
    count = len(versions(archive, "fix"))
    recovered = adoption.recover(archive)
    assert recovered is not None and (recovered.action, recovered.kind) == ("finished", "rollback")
    done = rollback_skill(archive, "fix", recovered=recovered)
    assert done.already is True and done.recovered is recovered
    assert done.version == versions(archive, "fix")[-1].version and done.restored == {}
    assert not _file(fresh).exists() and not _file(fresh).parent.exists()
    assert len(versions(archive, "fix")) == count
    # Another skill's, or another kind's, finished recovery is no reason to skip this one.
    for other in (replace(recovered, skill="lint"), replace(recovered, kind="adopt"),
                  replace(recovered, action="undone")):
        assert rollback_skill(archive, "fix", recovered=other).already is False
        adoption.rollback(archive, "fix")  # and back, to the same absence
    assert not _file(fresh).exists()


def test_the_rollback_command_skips_what_its_recovery_already_finished(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, _ = world
    fresh = tmp_path / "fresh" / "skills"
    adoption.adopt_skill(archive, _night(tmp_path, [fresh]), "fix", [fresh])
    (fresh / "fix" / "notes.md").write_text("mine")  # the folder holds the user's file too
    _fail_after_commit(monkeypatch, 4)
    with pytest.raises(PermissionError):
        rollback_skill(archive, "fix")
    monkeypatch.delenv(transaction.FAIL_ENV)
    count = len(versions(archive, "fix"))
    assert adoption.rollback(archive, "fix") == versions(archive, "fix")[-1].version
    assert len(versions(archive, "fix")) == count and not _file(fresh).exists()
    assert (fresh / "fix" / "notes.md").read_text() == "mine"


def test_a_write_that_failed_before_its_commit_is_undone_and_marked(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, roots = world
    _fail_after_commit(monkeypatch, 3)  # after the first temp
    with pytest.raises(StoreError, match="every root was left as it was"):
        adoption.adopt_skill(archive, _night(tmp_path, roots), "fix", roots)
    txid = archive.conn.execute("SELECT txid FROM write_intents").fetchone()[0]
    found = intents.find(archive, txid)
    assert found is not None and found.state == "undone"
    assert _file(roots[0]).read_text() == OLD and _file(roots[1]).read_bytes() == OWN.encode()
    assert not transaction.journal_path(archive).exists()


def test_a_skill_never_written_has_nothing_to_roll_back(
        world: tuple[Archive, list[Path]]) -> None:
    archive, _ = world
    with pytest.raises(StoreError) as refused:
        adoption.rollback(archive, "fix")
    assert str(refused.value) == "skill 'fix' has no recorded versions to roll back to"


def test_restore_never_takes_a_kept_link_that_is_not_the_prior(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    prior = Snapshot(path, b"old", 0o640)  # not what the umask gives a new file
    kept = tmp_path / ".SKILL.md.t1.prior.tmp"
    for kept_data, kept_mode in ((b"other", 0o640), (b"old", 0o600)):
        path.write_bytes(b"new")
        kept.write_bytes(kept_data)
        os.chmod(kept, kept_mode)
        transaction.restore(prior, "t1")
        assert transaction.snapshot(path) == prior
        kept.unlink(missing_ok=True)
    # The kept link that is the prior is moved back: no bytes written.
    path.write_bytes(b"new")
    kept.write_bytes(b"old")
    os.chmod(kept, 0o640)
    inode = kept.stat().st_ino
    transaction.restore(prior, "t1")
    assert transaction.snapshot(path) == prior and path.stat().st_ino == inode
    # Already in place: left as it is, the same file (a second link keeps its inode alive,
    # so a rewritten file could not get its number back).
    hold = tmp_path / "hold"
    os.link(path, hold)
    transaction.restore(prior, "t1")
    transaction.restore(prior)
    assert path.samefile(hold)
    hold.unlink()
    # Something that is not a file where the prior was (a symlink): the prior replaces it.
    path.unlink()
    os.symlink(tmp_path / "elsewhere", path)
    transaction.restore(prior)
    assert transaction.snapshot(path) == prior


def test_the_kill_hook_kills_at_the_numbered_point_and_nowhere_else(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    """The kill trials' hook (``SKILLOPT_SLEEP_CRASH_AT``): killed at point 2 (the journal
    written, no root touched) the write is undone by the next command; at point 1 (before
    the journal) there is nothing to recover."""
    import multiprocessing

    archive, roots = world
    folder = _night(tmp_path, roots)

    def adopt_dying(point: int) -> None:
        os.environ[transaction.CRASH_ENV] = str(point)
        transaction._points = 0
        adoption.adopt_skill(Archive(archive.path), folder, "fix", roots)

    fork = multiprocessing.get_context("fork")
    for point, journal in ((1, False), (2, True)):
        child = fork.Process(target=adopt_dying, args=(point,))
        child.start()
        child.join(60)
        assert child.exitcode == -9, (point, child.exitcode)
        assert transaction.journal_path(archive).exists() is journal, point
        assert _file(roots[0]).read_text() == OLD
        recovered = adoption.recover(archive)
        assert (recovered is not None) is journal
    assert adoption.adopt_skill(archive, folder, "fix", roots).skipped == {}


def test_an_undo_puts_back_the_prior_file_itself_and_every_folder_it_made(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, roots = world
    fresh = tmp_path / "new" / "deep" / "skills"
    folder = _night(tmp_path, [roots[0], fresh])
    hold = tmp_path / "hold"
    os.link(_file(roots[0]), hold)  # the prior inode stays alive: its number is not reused
    monkeypatch.setenv(transaction.COMMIT_FAIL_ENV, "database is locked")
    with pytest.raises(StoreError, match="Every root was put back"):
        adoption.adopt_skill(archive, folder, "fix", [roots[0], fresh])
    assert _file(roots[0]).samefile(hold) and _file(roots[0]).read_text() == OLD
    assert not (tmp_path / "new").exists()  # deepest first, so every folder it made goes
    assert not [p for p in roots[0].joinpath("fix").iterdir() if p.name != "SKILL.md"]


def test_a_filesystem_without_hard_links_still_writes_and_undoes(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, roots = world

    def no_links(*_: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(transaction.os, "link", no_links)
    folder = _night(tmp_path, roots)
    monkeypatch.setenv(transaction.COMMIT_FAIL_ENV, "database is locked")
    with pytest.raises(StoreError, match="Every root was put back"):
        adoption.adopt_skill(archive, folder, "fix", roots)
    assert _file(roots[0]).read_text() == OLD and _file(roots[1]).read_bytes() == OWN.encode()
    monkeypatch.delenv(transaction.COMMIT_FAIL_ENV)
    assert adoption.adopt_skill(archive, folder, "fix", roots).skipped == {}
    assert _file(roots[0]).read_text() == NEW


def test_a_forced_rollback_of_a_new_skill_deleted_by_hand_leaves_no_file(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, _ = world
    fresh = tmp_path / "fresh" / "skills"
    adoption.adopt_skill(archive, _night(tmp_path, [fresh]), "fix", [fresh])
    _file(fresh).unlink()
    done = rollback_skill(archive, "fix", force=True)
    assert done.removed == [str(real(_file(fresh)))] and not _file(fresh).exists()


def test_rollback_to_a_version_that_is_an_absence_removes_every_file(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    """A skill whose first write found a file has no recorded absence: undoing a later
    write to a new root records "rollback to absence" for it, and ``--to`` that version (or
    a rollback to it) is an absence in every file."""
    archive, roots = world
    fresh = tmp_path / "fresh" / "skills"
    adoption.adopt_skill(archive, _night(tmp_path, [roots[0], fresh]), "fix", [roots[0], fresh])
    assert adoption.ABSENT not in [v.reason for v in versions(archive, "fix")]
    adoption.rollback(archive, "fix")
    absent = next(v for v in versions(archive, "fix") if v.reason == "rollback to absence")
    assert not _file(fresh).exists() and _file(roots[0]).read_text() == OLD
    assert absent.targets == [str(real(_file(fresh)))]
    assert content(archive, "fix", absent.version) == ""  # an absence holds no text
    adoption.rollback(archive, "fix", to=absent.version)
    assert not _file(roots[0]).exists() and not _file(fresh).exists()
    chained = versions(archive, "fix")[-1]
    assert chained.reason == f"rollback to v{absent.version}"
    adoption.rollback(archive, "fix", to=versions(archive, "fix")[1].version)
    assert _file(roots[0]).exists()
    adoption.rollback(archive, "fix", to=chained.version)
    assert not _file(roots[0]).exists() and not _file(fresh).exists()


def test_a_failed_write_names_the_file_and_the_cause_word_for_word(
        tmp_path: Path, world: tuple[Archive, list[Path]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive, roots = world
    folder = _night(tmp_path, roots)
    _fail_after_commit(monkeypatch, 3)  # the injected failure at the first temp
    with pytest.raises(StoreError) as refused:
        adoption.adopt_skill(archive, folder, "fix", roots)
    assert str(refused.value) == ("cannot write the injected root: Permission denied "
                                  "(injected); every root was left as it was")
    monkeypatch.delenv(transaction.FAIL_ENV)
    monkeypatch.setenv(transaction.COMMIT_FAIL_ENV, "database is locked")
    with pytest.raises(StoreError) as refused:
        adoption.adopt_skill(archive, folder, "fix", roots)
    message = str(refused.value)
    assert message.startswith("the ledger could not record the write of fix: ")
    assert "database is locked" in message
    assert message.endswith(". Every root was put back as it was; the proposal is still pending")


def test_a_journal_that_cannot_be_written_changes_nothing_and_marks_the_write_failed(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    path = real(_file(roots[0]))
    prior = transaction.snapshot(path)
    transaction.journal_path(archive).mkdir()  # where the journal goes, a folder
    write = transaction.Write("fix", "adopt", [transaction.Change(path, b"new", 0o644)], [prior])
    with pytest.raises(StoreError) as refused:
        transaction.write_files(archive, write, lambda txid: 1)
    assert str(refused.value) == (f"cannot write the journal {transaction.journal_path(archive)}"
                                  ": Is a directory; nothing was changed")
    assert transaction.snapshot(path) == prior
    state = archive.conn.execute("SELECT state FROM write_intents").fetchone()[0]
    assert state == "failed"
    archive.conn.close()  # an archive that cannot register the write: refused before any root
    with pytest.raises(StoreError, match=r"^cannot start the write of fix: .*; nothing was "
                                         r"changed$"):
        transaction.write_files(archive, write, lambda txid: 1)
    assert transaction.snapshot(path) == prior


def test_undoing_the_last_write_touches_only_the_files_it_wrote(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    own = OWN.replace("\r\n", "\n")  # the second night read only the second root
    second = _night(tmp_path, roots[1:], after=own + "\n" + REGION,
                    night="20261128-040000-abcdef12")
    adoption.adopt_skill(archive, second, "fix", roots[1:])
    assert _file(roots[1]).read_bytes() == OWN_NEW.encode()
    done = rollback_skill(archive, "fix")
    assert list(done.restored) == [str(real(_file(roots[1])))]
    assert _file(roots[1]).read_bytes() == OWN.encode() and _file(roots[0]).read_text() == NEW


def test_rollback_to_a_version_reaches_every_file_ever_written_not_only_the_last_writes(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    second = _night(tmp_path, roots[1:], after=OWN.replace("\r\n", "\n") + "\n" + REGION,
                    night="20261128-040000-abcdef12")
    adoption.adopt_skill(archive, second, "fix", roots[1:])  # the last write: roots[1] only
    original = versions(archive, "fix")[0]
    assert content(archive, "fix", original.version) == OLD
    done = rollback_skill(archive, "fix", to=original.version)
    assert sorted(done.restored) == sorted(str(real(_file(r))) for r in roots)
    assert _file(roots[0]).read_text() == OLD and _file(roots[1]).read_text() == OLD
