"""One write of a skill into every root, as a transaction a crash cannot tear.

Order of a write (the numbered crash points are where ``SKILLOPT_SLEEP_CRASH_AT`` kills):

0. the write is registered in the archive (``write_intents``, ``pending``): a read-only or
   full archive refuses here, before any root is touched;
1. the journal (``<state>/adopt.journal.json``, see ``journal.py``) records every target's
   prior bytes and mode, the new bytes, and the folders the write will create;
2. every temp (``.SKILL.md.<txid>.tmp`` beside its target) is written and fsynced;
3. each target's prior file is kept as a hard link (``.SKILL.md.<txid>.prior.tmp``), then
   the temp is renamed over it (a removal unlinks instead);
4. the ledger rows go in and the intent becomes ``committed``, in one SQLite transaction:
   this is the commit point;
5. the kept priors and temps are removed, then the journal.

Any failure before 5, the ledger commit included, puts every target back to its prior
bytes and mode in-process (from the kept link, so even a full disk cannot stop it),
removes the folders the write created and the journal, and names the real cause. A crash
is finished by ``recover`` at the next command: a ``committed`` intent rolls forward, a
``pending`` one back. A journal the archive did not register is moved aside, never
replayed. Callers hold the state dir's lock (``publish.lock``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive import intents
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.atomic import fsync_dir, write_atomic
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish.journal import JOURNAL, Entry, Journal, failure_cause

__all__ = ["Change", "Snapshot", "journal_path", "missing_folders", "restore", "snapshot",
           "sweep_orphans", "write_files"]

CRASH_ENV = "SKILLOPT_SLEEP_CRASH_AT"
FAIL_ENV = "SKILLOPT_SLEEP_FAIL_AT"
COMMIT_FAIL_ENV = "SKILLOPT_SLEEP_FAIL_COMMIT"
_points = 0

# A snapshot and a change are both one path's bytes and mode.
Snapshot = Entry
Change = Entry


def _crash_point() -> None:
    """Fault hooks for the trials: at the Nth point reached, SIGKILL this process
    (``SKILLOPT_SLEEP_CRASH_AT``) or fail as an unwritable root does (``…_FAIL_AT``)."""
    global _points
    crash, fail = os.environ.get(CRASH_ENV), os.environ.get(FAIL_ENV)
    if not (crash or fail):
        return
    _points += 1
    if crash and _points == int(crash):
        import signal  # the tests' crash injection only

        os.kill(os.getpid(), signal.SIGKILL)
    if fail and _points == int(fail):
        raise PermissionError(13, "Permission denied (injected)", "the injected root")


def journal_path(archive: Archive) -> Path:
    return Path(archive.path).parent / JOURNAL


def snapshot(path: Path) -> Snapshot:
    """What ``path`` holds now; ``StoreError`` (one line) when it cannot be read."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return Snapshot(path, None, None)
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise StoreError(f"refusing to write through the symlink {path}")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path} is not a regular file; refusing to replace it")
    try:
        return Snapshot(path, path.read_bytes(), stat.S_IMODE(info.st_mode))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc


def _tmp(path: Path, txid: str) -> Path:
    return path.with_name(f".{path.name}.{txid}.tmp")


def _kept(path: Path, txid: str) -> Path:
    return path.with_name(f".{path.name}.{txid}.prior.tmp")


def missing_folders(paths: list[Path]) -> list[Path]:
    """The folders above ``paths`` that do not exist yet, deepest first (a write creates
    them; undoing it removes them again)."""
    found: list[Path] = []
    for path in paths:
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            if folder not in found:
                found.append(folder)
            folder = folder.parent
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def _drop_folders(folders: list[Path]) -> None:
    """Remove each folder that is empty, deepest first (``rmdir`` never removes content)."""
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _write_tmp(path: Path, data: bytes, mode: int | None) -> None:
    """A new file at ``path`` with ``data``, fsynced; mode 0666 less the umask unless given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _sweep(paths: list[Path]) -> None:
    """Remove every temp a write (this one or an older crashed one) left beside ``paths``."""
    for path in paths:
        if path.parent.is_dir():
            for orphan in path.parent.glob(f".{path.name}.*.tmp"):
                orphan.unlink(missing_ok=True)


def _same(a: Snapshot, b: Snapshot) -> bool:
    return a.data == b.data and a.mode == b.mode


def restore(prior: Snapshot, txid: str = "") -> None:
    """Put ``prior`` back at its path unless it is already there, byte- and mode-exact:
    from the write's kept link when there is one (no bytes to write), else from ``prior``."""
    try:
        now = snapshot(prior.path)
    except StoreError:
        now = Snapshot(prior.path, b"", None)
    kept = _kept(prior.path, txid) if txid else None
    if now == prior:
        return
    if prior.data is None:
        prior.path.unlink(missing_ok=True)
    elif kept is not None and _same(snapshot(kept), prior):
        os.replace(kept, prior.path)  # the prior inode itself: no byte to write
    else:
        back = _tmp(prior.path, "restore")
        back.unlink(missing_ok=True)
        _write_tmp(back, prior.data, prior.mode)
        os.replace(back, prior.path)
    fsync_dir(prior.path.parent)


def _apply(change: Change, txid: str) -> None:
    if change.path.exists():
        with contextlib.suppress(OSError):  # a filesystem without hard links: bytes suffice
            os.link(change.path, _kept(change.path, txid))
    if change.data is None:
        change.path.unlink(missing_ok=True)
    else:
        os.replace(_tmp(change.path, txid), change.path)
    fsync_dir(change.path.parent)


@dataclass(frozen=True)
class Write:
    """One write: what it is (for the journal and the archive's intent) and its files."""

    skill: str
    kind: str
    changes: list[Change]
    priors: list[Snapshot]


def _begin(archive: Archive, write: Write, txid: str) -> Journal:
    journal = Journal(txid, write.skill, write.kind, write.priors, write.changes,
                      missing_folders([c.path for c in write.changes if c.data is not None]))
    try:
        intents.begin(archive, txid, write.skill, write.kind, [str(c.path) for c in write.changes])
    except sqlite3.Error as exc:
        raise StoreError(f"cannot start the write of {write.skill}: "
                         f"{failure_cause(Path(archive.path), exc)}; nothing was changed") from exc
    _crash_point()
    try:
        write_atomic(journal_path(archive), journal.dump())
    except OSError as exc:
        with contextlib.suppress(sqlite3.Error):
            intents.mark(archive, txid, "failed")
        raise StoreError(f"cannot write the journal {journal_path(archive)}: "
                         f"{exc.strerror or exc}; nothing was changed") from exc
    return journal


def write_files(archive: Archive, write: Write, commit: Callable[[str], int]) -> int:
    """Apply the write all or nothing, then ``commit(txid)`` (the ledger rows); its result."""
    import uuid  # here: reading a snapshot (every night's start) needs none

    txid = uuid.uuid4().hex[:12]
    journal = _begin(archive, write, txid)
    _crash_point()
    try:
        for change in write.changes:
            if change.data is not None:
                _write_tmp(_tmp(change.path, txid), change.data, change.mode)
                _crash_point()
        for change in write.changes:
            _apply(change, txid)
            _crash_point()
    except OSError as exc:
        undo(archive, journal)
        where = f" {exc.filename}" if exc.filename else ""
        raise StoreError(
            f"cannot write{where}: {exc.strerror or exc}; every root was left as it was"
        ) from exc
    try:
        if os.environ.get(COMMIT_FAIL_ENV):
            raise sqlite3.OperationalError(os.environ[COMMIT_FAIL_ENV])
        version = commit(txid)
    except (sqlite3.Error, OSError) as exc:
        undo(archive, journal)
        raise StoreError(f"the ledger could not record the write of {write.skill}: "
                         f"{failure_cause(Path(archive.path), exc)}. Every root was put back "
                         "as it was; the proposal is still pending") from exc
    _crash_point()
    _sweep([c.path for c in write.changes])  # before the journal goes: no temp outlives it
    journal_path(archive).unlink(missing_ok=True)
    _crash_point()
    return version


def undo(archive: Archive, journal: Journal) -> None:
    """Every target back to its prior bytes and mode, the write's folders and temps
    removed, the journal deleted, the intent marked ``undone`` when the archive can."""
    for prior in journal.priors:
        restore(prior, journal.txid)
    paths = [c.path for c in journal.changes]
    _sweep(paths)
    _drop_folders(journal.created)
    journal_path(archive).unlink(missing_ok=True)
    with contextlib.suppress(sqlite3.Error):
        intents.mark(archive, journal.txid, "undone")


def finish(archive: Archive, journal: Journal) -> None:
    """Every target to the write's new bytes and mode (a committed write a crash stopped)."""
    for change in journal.changes:
        if change.data is None:
            change.path.unlink(missing_ok=True)
        elif snapshot(change.path) != change:
            restore(change)
    paths = [c.path for c in journal.changes]
    _sweep(paths)
    _drop_folders([c.path.parent for c in journal.changes if c.data is None])
    journal_path(archive).unlink(missing_ok=True)
    with contextlib.suppress(sqlite3.Error):
        intents.mark(archive, journal.txid, "recovered")


def sweep_orphans(paths: list[Path]) -> None:
    """Remove temps left beside ``paths`` by writes older than the journal."""
    _sweep(paths)
