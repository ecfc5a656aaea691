"""What the write transaction promises, through its public functions: a path it cannot
own is refused word for word before anything is written; a new file gets the mode asked
for, or 0666 less the umask; every folder a write makes is known deepest first and goes
again when it is undone; the temps of older writes are swept and nothing else; and when
the archive cannot take the record of how a write ended, the files are still put right
and the cause named is the write's own, not the record's."""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import transaction
from skillopt_sleep.publish.recovery import recover
from skillopt_sleep.publish.transaction import Change, Snapshot, Write, snapshot, write_files


@pytest.fixture
def umask() -> Iterator[int]:
    # Group-writable, not the common 022: a hard-coded 0644 cannot pass, and each bit of
    # 0666 it lets through is checked.
    old = os.umask(0o002)
    try:
        yield 0o002
    finally:
        os.umask(old)


def _skill(base: Path, root: str) -> Path:
    return base / root / "skills" / "fix" / "SKILL.md"


def _state(tmp_path: Path) -> Archive:
    return Archive(tmp_path / "state" / "archive.sqlite3")


def _intent_state(archive: Archive) -> str:
    return str(archive.conn.execute("SELECT state FROM write_intents").fetchone()[0])


def test_a_path_that_is_not_a_regular_file_is_refused_word_for_word(tmp_path: Path) -> None:
    target = tmp_path / "SKILL.md"
    assert snapshot(target) == Snapshot(target, None, None)
    target.mkdir()
    with pytest.raises(StoreError) as refused:
        snapshot(target)
    assert str(refused.value) == f"{target} is not a regular file; refusing to replace it"
    target.rmdir()
    target.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StoreError) as refused:
        snapshot(target)
    assert str(refused.value) == f"refusing to write through the symlink {target}"
    under = tmp_path / "file"
    under.write_text("x")
    with pytest.raises(StoreError) as refused:
        snapshot(under / "SKILL.md")
    assert str(refused.value) == f"cannot read {under / 'SKILL.md'}: Not a directory"
    target.unlink()
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    assert snapshot(target) == Snapshot(target, b"old", 0o640)


def test_a_file_that_cannot_be_read_is_refused_with_the_cause(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regular file whose read fails (a failing disk; root reads any mode) is named."""
    target = tmp_path / "SKILL.md"
    target.write_bytes(b"old")

    def failing(self: Path) -> bytes:
        raise OSError(errno.EIO, os.strerror(errno.EIO), str(self))

    monkeypatch.setattr(Path, "read_bytes", failing)
    with pytest.raises(StoreError) as refused:
        snapshot(target)
    assert str(refused.value) == f"cannot read {target}: Input/output error"


def test_the_folders_a_write_makes_are_listed_deepest_first_once_each(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    paths = [tmp_path / "a" / "b" / "c" / "SKILL.md", tmp_path / "a" / "b" / "d" / "SKILL.md",
             tmp_path / "kept" / "SKILL.md", tmp_path / "a" / "SKILL.md",
             tmp_path / "x" / "SKILL.md"]
    a, b = tmp_path / "a", tmp_path / "a" / "b"
    assert transaction.missing_folders(paths) == [b / "c", b / "d", b, a, tmp_path / "x"]
    assert transaction.missing_folders([tmp_path / "kept" / "SKILL.md"]) == []


def test_a_new_file_gets_the_mode_asked_for_or_the_umasks(
        tmp_path: Path, umask: int) -> None:
    archive = _state(tmp_path)
    paths = [_skill(tmp_path, "one"), _skill(tmp_path, "two")]
    write = Write("fix", "adopt", [Change(paths[0], b"new", None), Change(paths[1], b"new", 0o600)],
                  [snapshot(p) for p in paths])
    assert write_files(archive, write, lambda txid: 7) == 7
    assert [snapshot(p) for p in paths] == [Snapshot(paths[0], b"new", 0o666 & ~umask),
                                             Snapshot(paths[1], b"new", 0o600)]
    assert _intent_state(archive) == "pending"  # the commit callable marks it, not the write
    assert not transaction.journal_path(archive).exists()
    assert sorted(p.name for p in paths[0].parent.iterdir()) == ["SKILL.md"]


def test_only_the_temps_beside_a_skill_file_are_swept(tmp_path: Path) -> None:
    target = _skill(tmp_path, "one")
    target.parent.mkdir(parents=True)
    names = [".SKILL.md.0123456789ab.tmp", ".SKILL.md.0123456789ab.prior.tmp",
             ".SKILL.md.restore.tmp"]
    kept = ["SKILL.md", ".notes.md.0123456789ab.tmp", "SKILL.md.tmp", ".SKILL.md.txt"]
    for name in names + kept:
        (target.parent / name).write_text("x")
    transaction.sweep_orphans([target, _skill(tmp_path, "missing")])
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(kept)


def test_a_write_undone_removes_every_folder_it_made_and_only_those(tmp_path: Path) -> None:
    archive = _state(tmp_path)
    old = _skill(tmp_path, "old")
    old.parent.mkdir(parents=True)
    old.write_bytes(b"old")
    (tmp_path / "half" / "skills").mkdir(parents=True)
    paths = [old, _skill(tmp_path, "new"), _skill(tmp_path, "half")]
    write = Write("fix", "adopt", [Change(p, b"new", 0o644) for p in paths],
                  [snapshot(p) for p in paths])

    def refuse(txid: str) -> int:
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(StoreError, match="Every root was put back as it was"):
        write_files(archive, write, refuse)
    assert old.read_bytes() == b"old"
    assert not (tmp_path / "new").exists() and not (tmp_path / "half" / "skills" / "fix").exists()
    assert (tmp_path / "half" / "skills").is_dir()  # it was there before the write
    assert _intent_state(archive) == "undone"


def test_a_write_failing_without_a_file_name_says_so_without_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A temp's fsync fails (a failing disk): the error carries no file name, and the
    message names none; the root is left as it was."""
    archive = _state(tmp_path)
    path = _skill(tmp_path, "one")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"old")
    sync = os.fsync

    def failing_on_temps(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if Path(name).name.startswith(".SKILL.md."):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        sync(fd)

    monkeypatch.setattr(os, "fsync", failing_on_temps)
    write = Write("fix", "adopt", [Change(path, b"new", 0o644)], [snapshot(path)])
    with pytest.raises(StoreError) as refused:
        write_files(archive, write, lambda txid: 1)
    assert str(refused.value) == "cannot write: Input/output error; every root was left as it was"
    assert path.read_bytes() == b"old" and _intent_state(archive) == "undone"


def test_the_archive_refusing_the_write_before_it_starts_changes_nothing(
        tmp_path: Path) -> None:
    archive = _state(tmp_path)
    path = _skill(tmp_path, "one")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"old")
    _read_only(archive)
    write = Write("fix", "adopt", [Change(path, b"new", 0o644)], [snapshot(path)])
    with pytest.raises(StoreError) as refused:
        write_files(archive, write, lambda txid: 1)
    assert str(refused.value) == (
        f"cannot start the write of fix: the archive {archive.path} is read-only; make it and "
        f"its folder writable (chmod u+w {archive.path} {archive.path.parent}, or remount) "
        "and run the command again; nothing was changed")
    assert path.read_bytes() == b"old" and not transaction.journal_path(archive).exists()


def test_restoring_an_absence_removes_whatever_is_at_the_path(tmp_path: Path) -> None:
    """Undoing the creation of a file: a symlink (which ``snapshot`` refuses to read) that
    took the file's place goes too."""
    path = tmp_path / "SKILL.md"
    path.symlink_to(tmp_path / "elsewhere")
    transaction.restore(Snapshot(path, None, None))
    assert not path.is_symlink() and not path.exists()


def _read_only(archive: Archive) -> None:
    """From here on the archive refuses every write, as a full disk or a remount would."""
    archive.conn.execute("PRAGMA query_only = ON")


def test_a_ledger_that_fails_for_good_is_named_not_the_record_of_the_undo(
        tmp_path: Path) -> None:
    """The ledger commit fails and the archive cannot take the ``undone`` mark either: the
    roots are put back and the error names the ledger's failure, not the mark's."""
    archive = _state(tmp_path)
    path = _skill(tmp_path, "one")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"old")
    write = Write("fix", "adopt", [Change(path, b"new", 0o644)], [snapshot(path)])

    def commit(txid: str) -> int:
        _read_only(archive)
        raise sqlite3.OperationalError("attempt to write a readonly database")

    with pytest.raises(StoreError) as refused:
        write_files(archive, write, commit)
    assert str(refused.value) == (
        f"the ledger could not record the write of fix: the archive {archive.path} is "
        f"read-only; make it and its folder writable (chmod u+w {archive.path} "
        f"{archive.path.parent}, or remount) and run the command again. Every root was put "
        "back as it was; the proposal is still pending")
    assert path.read_bytes() == b"old" and not transaction.journal_path(archive).exists()
    assert _intent_state(archive) == "pending"  # the mark could not be written


def test_a_journal_on_a_full_disk_names_the_disk_not_the_failed_mark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = _state(tmp_path)
    path = _skill(tmp_path, "one")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"old")
    write = Write("fix", "adopt", [Change(path, b"new", 0o644)], [snapshot(path)])

    def full(target: Path, data: bytes) -> None:
        _read_only(archive)  # the disk that cannot take the journal cannot take the mark
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(transaction, "write_atomic", full)
    with pytest.raises(StoreError) as refused:
        write_files(archive, write, lambda txid: 1)
    assert str(refused.value) == (f"cannot write the journal {transaction.journal_path(archive)}"
                                  ": No space left on device; nothing was changed")
    assert snapshot(path) == Snapshot(path, b"old", snapshot(path).mode)
    assert _intent_state(archive) == "pending"


def _crashed_after_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          point: int) -> tuple[Archive, Path]:
    """A one-file write stopped by the injected failure at ``point`` (see below); its
    commit marks the intent as the ledger's own transaction does."""
    archive = _state(tmp_path)
    path = _skill(tmp_path, "one")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"old")
    write = Write("fix", "adopt", [Change(path, b"new", 0o644)], [snapshot(path)])

    def commit(txid: str) -> int:
        with archive.transaction() as conn:
            conn.execute("UPDATE write_intents SET state = 'committed' WHERE txid = ?", (txid,))
        return 1

    monkeypatch.setattr(transaction, "_points", 0)
    monkeypatch.setenv(transaction.FAIL_ENV, str(point))
    with pytest.raises((PermissionError, StoreError)):
        write_files(archive, write, commit)
    monkeypatch.delenv(transaction.FAIL_ENV)
    return archive, path


def test_recovery_in_an_archive_that_cannot_record_it_still_finishes_the_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive, path = _crashed_after_commit(tmp_path, monkeypatch, 5)
    assert transaction.journal_path(archive).exists()
    path.write_bytes(b"torn")
    _read_only(archive)
    done = recover(archive)
    assert done is not None and done.action == "finished"
    assert snapshot(path) == Snapshot(path, b"new", 0o644)
    assert not transaction.journal_path(archive).exists()
    assert _intent_state(archive) == "committed"  # the mark could not be written
    assert recover(archive) is None  # and nothing is left to replay


def test_the_injected_failure_fails_at_its_numbered_point_and_nowhere_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Points of a one-file write: 1 the intent, 2 the journal, 3 the temp, 4 the rename,
    5 after the commit, 6 after the journal is removed."""
    archive, path = _crashed_after_commit(tmp_path, monkeypatch, 3)
    assert path.read_bytes() == b"old" and _intent_state(archive) == "undone"
    # The hook fails as an unwritable root does: EACCES, which the causes are told by.
    monkeypatch.setattr(transaction, "_points", 0)
    monkeypatch.setenv(transaction.FAIL_ENV, "1")
    with pytest.raises(PermissionError) as raised:
        write_files(archive, Write("fix", "adopt", [], []), lambda txid: 1)
    assert (raised.value.errno, raised.value.filename) == (errno.EACCES, "the injected root")
    monkeypatch.delenv(transaction.FAIL_ENV)
    assert not transaction.journal_path(archive).exists()
    archive.close()
    for point, written, journal in ((1, False, False), (4, False, False), (5, True, True),
                                    (6, True, False)):
        base = tmp_path / str(point)
        archive, path = _crashed_after_commit(base, monkeypatch, point)
        assert (path.read_bytes() == b"new") is written, point
        assert transaction.journal_path(archive).exists() is journal, point
        archive.close()
