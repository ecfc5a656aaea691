"""One write of a skill into every root, as a transaction a crash cannot tear.

Order of a write (the numbered crash points are where ``SKILLOPT_SLEEP_CRASH_AT`` kills):

1. the journal (``<state>/adopt.journal.json``) records every target's prior bytes and
   mode, the new bytes, and the ledger's newest version number;
2. every temp (``.SKILL.md.<txid>.tmp`` beside its target) is written and fsynced;
3. the temps are renamed over the targets (a removal unlinks instead);
4. the ledger rows go in, in one SQLite transaction: this is the commit point;
5. the journal is deleted.

Any failure before 4 puts every target back to its prior bytes and mode in-process; a
crash is finished by ``recover`` at the next command: when the ledger is past the
journal's version number the write is rolled forward, else back. Either way the temps of
the write, and any orphan ``.SKILL.md.*.tmp`` beside the targets, are removed. Callers
hold the state dir's lock (``publish.lock``) so no two writes interleave.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import stat
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import max_version
from skillopt_sleep.atomic import fsync_dir, write_atomic
from skillopt_sleep.errors import StoreError

__all__ = ["Change", "Snapshot", "recover", "snapshot", "sweep_orphans", "write_files"]

JOURNAL = "adopt.journal.json"
CRASH_ENV = "SKILLOPT_SLEEP_CRASH_AT"
FAIL_ENV = "SKILLOPT_SLEEP_FAIL_AT"
_points = 0


def _crash_point() -> None:
    """Fault hooks for the trials: at the Nth point reached, SIGKILL this process
    (``SKILLOPT_SLEEP_CRASH_AT``) or fail as an unwritable root does (``…_FAIL_AT``)."""
    global _points
    crash, fail = os.environ.get(CRASH_ENV), os.environ.get(FAIL_ENV)
    if not (crash or fail):
        return
    _points += 1
    if crash and _points == int(crash):
        os.kill(os.getpid(), signal.SIGKILL)
    if fail and _points == int(fail):
        raise PermissionError(13, "Permission denied (injected)", "the injected root")


@dataclass(frozen=True)
class Snapshot:
    """A path's bytes (None: no file) and permission bits, as read before a write."""

    path: Path
    data: bytes | None
    mode: int | None


@dataclass(frozen=True)
class Change:
    """Put ``data`` at ``path`` with ``mode`` (None: the umask's default); ``data`` None
    removes the file."""

    path: Path
    data: bytes | None
    mode: int | None


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


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _tmp(path: Path, txid: str) -> Path:
    return path.with_name(f".{path.name}.{txid}.tmp")


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


def _restore(prior: Snapshot) -> None:
    """Put ``prior`` back at its path unless it is already there, byte- and mode-exact."""
    try:
        now = snapshot(prior.path)
    except StoreError:
        now = Snapshot(prior.path, b"", None)
    if now == prior:
        return
    if prior.data is None:
        prior.path.unlink(missing_ok=True)
        return
    back = _tmp(prior.path, "restore")
    back.unlink(missing_ok=True)
    _write_tmp(back, prior.data, prior.mode)
    os.replace(back, prior.path)
    fsync_dir(prior.path.parent)


def _apply(change: Change, txid: str) -> None:
    if change.data is None:
        change.path.unlink(missing_ok=True)
    else:
        os.replace(_tmp(change.path, txid), change.path)
    fsync_dir(change.path.parent)


def write_files(
    archive: Archive, skill: str, changes: list[Change], priors: list[Snapshot],
    commit: Callable[[], int],
) -> int:
    """Apply ``changes`` all or nothing, then ``commit`` (the ledger rows); its result."""
    journal = Path(archive.path).parent / JOURNAL
    txid = uuid.uuid4().hex[:12]
    _crash_point()
    try:
        write_atomic(journal, json.dumps({
            "txid": txid, "skill": skill, "ledger": max_version(archive, skill),
            "priors": [{"path": str(p.path), "data": _b64(p.data), "mode": p.mode}
                       for p in priors],
            "changes": [{"path": str(c.path), "data": _b64(c.data), "mode": c.mode}
                        for c in changes],
        }).encode("utf-8"))
    except OSError as exc:
        raise StoreError(f"cannot write the journal {journal}: {exc.strerror or exc}; "
                         "nothing was changed") from exc
    _crash_point()
    try:
        for change in changes:
            if change.data is not None:
                _write_tmp(_tmp(change.path, txid), change.data, change.mode)
                _crash_point()
        for change in changes:
            _apply(change, txid)
            _crash_point()
    except OSError as exc:
        _roll_back(priors, [c.path for c in changes], journal)
        where = f" {exc.filename}" if exc.filename else ""
        raise StoreError(
            f"cannot write{where}: {exc.strerror or exc}; every root was left as it was"
        ) from exc
    version = commit()
    _crash_point()
    journal.unlink(missing_ok=True)
    _crash_point()
    return version


def _roll_back(priors: list[Snapshot], paths: list[Path], journal: Path) -> None:
    for prior in priors:
        _restore(prior)
    _sweep(paths)
    journal.unlink(missing_ok=True)


def recover(archive: Archive) -> str | None:
    """Finish or undo a write a crash interrupted; what was done ("" / None: nothing).

    Also removes orphan temps of the journal's targets and of the journal itself.
    """
    state = Path(archive.path).parent
    for orphan in state.glob(f".{JOURNAL}.*.tmp"):
        orphan.unlink(missing_ok=True)
    journal = state / JOURNAL
    if not journal.is_file():
        return None
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
        priors = [Snapshot(Path(p["path"]), _unb64(p["data"]), p["mode"]) for p in data["priors"]]
        changes = [Change(Path(c["path"]), _unb64(c["data"]), c["mode"]) for c in data["changes"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"interrupted-write journal {journal} is damaged: {exc}") from exc
    paths = [c.path for c in changes]
    if max_version(archive, data["skill"]) > data["ledger"]:
        for change in changes:
            if change.data is None:
                change.path.unlink(missing_ok=True)
            elif snapshot(change.path).data != change.data:
                _restore(Snapshot(change.path, change.data, change.mode))
        _sweep(paths)
        journal.unlink(missing_ok=True)
        return f"finished an interrupted write of {data['skill']}"
    _roll_back(priors, paths, journal)
    return f"undid an interrupted write of {data['skill']}"


def sweep_orphans(paths: list[Path]) -> None:
    """Remove temps left beside ``paths`` by writes older than the journal."""
    _sweep(paths)
