"""Undo a skill's write on exactly the files the ledger says it wrote, from any directory.

The ledger keeps, for every write, each file it touched (absolute, resolved), its bytes
and mode before, and what the write left. ``rollback`` undoes the last write file by
file; ``--to N`` puts version N into every file the skill was ever written to. A file
whose root is gone, or that was changed by hand since the write, is reported and left
alone unless ``force``. A rollback the previous (killed) command already finished through
recovery is not done twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import (
    LedgerRow,
    PathWrite,
    Version,
    content,
    content_by_sha,
    path_writes,
    versions,
)
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish.recovery import Recovery, recover
from skillopt_sleep.publish.roots import file_text, real, target
from skillopt_sleep.publish.transaction import snapshot
from skillopt_sleep.publish.writes import ABSENT, Wanted, write_recorded
from skillopt_sleep.records import sha256_text

__all__ = ["RolledBack", "rollback", "rollback_skill"]


@dataclass
class RolledBack:
    """The last ledger row's number, each restored file with what it now holds ("v3",
    "absence"), the files left alone (path: why) and what recovery did first."""

    version: int
    restored: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    recovered: Recovery | None = None
    removed: list[str] = field(default_factory=list)
    """Restored files whose earlier state is no file (removed)."""
    already: bool = False
    """The interrupted rollback recovery finished was this one: nothing more was undone."""


def rollback(archive: Archive, skill: str, roots: list[Path] | None = None,
             to: int | None = None, force: bool = False) -> int:
    """``rollback_skill``'s last ledger row (``roots`` only for writes recorded before the
    ledger kept each file)."""
    return rollback_skill(archive, skill, to, force, roots, recover(archive)).version


def _is_absence(history: list[Version], number: int) -> bool:
    """Whether version ``number`` stands for no file (the absence or a rollback to it)."""
    by_number = {v.version: v for v in history}
    seen: set[int] = set()
    while number in by_number and number not in seen:
        seen.add(number)
        reason = by_number[number].reason
        if reason in (ABSENT, "rollback to absence"):
            return True
        if not reason.startswith("rollback to v"):
            return False
        number = int(reason.removeprefix("rollback to v").split()[0])
    return False


def _changed_by_hand(write: PathWrite) -> str:
    """Why the file no longer holds what ``write`` left there ('' : it does, or the ledger
    did not record it)."""
    path = Path(write.path)
    if not path.parent.parent.is_dir():
        return f"its skill root {path.parent.parent} no longer exists"
    if write.after_sha256 is None:
        return ""
    now = snapshot(path)  # a file that cannot be read stops the rollback: its state is unknown
    text = file_text(now)
    sha = "" if text is None else sha256_text(text)
    if sha != write.after_sha256:
        return f"{path} was changed by hand since v{write.version}"
    if write.after_mode is not None and now.mode is not None and now.mode != write.after_mode:
        return f"{path} had its mode changed by hand since v{write.version}"
    return ""


def _last_writes(archive: Archive, skill: str, version: int | None) -> list[PathWrite]:
    """Each file of write ``version`` (None: every file the skill was ever written to, with
    the newest write that touched it)."""
    if version is not None:
        return path_writes(archive, skill, version)
    newest: dict[str, PathWrite] = {}
    for write in path_writes(archive, skill):
        newest[write.path] = write
    return list(newest.values())


def _legacy(history: list[Version], roots: list[Path] | None, skill: str) -> list[PathWrite]:
    """A write recorded before the ledger kept each file: its targets, or ``roots``."""
    last = history[-1]
    found = [real(target(r, skill)) for r in roots] if roots else [Path(t) for t in last.targets]
    return [PathWrite(str(p), last.version, None, None, None, None) for p in found]


def rollback_skill(archive: Archive, skill: str, to: int | None = None, force: bool = False,
                   roots: list[Path] | None = None,
                   recovered: Recovery | None = None) -> RolledBack:
    """Undo the skill's last write, each file back to its own prior bytes, mode or absence;
    with ``to``, put that version in every file the skill was written to. Call with the
    state lock held, after ``recover`` (its outcome in ``recovered``)."""
    history = versions(archive, skill)
    if not history:
        raise StoreError(f"skill {skill!r} has no recorded versions to roll back to")
    if (recovered is not None and recovered.action == "finished"
            and recovered.kind == "rollback" and recovered.skill == skill and to is None):
        return RolledBack(history[-1].version, recovered=recovered, already=True)
    if to is not None and to not in {v.version for v in history}:
        raise StoreError(f"skill {skill!r} has no version {to}")
    writes = _last_writes(archive, skill, None if to is not None else history[-1].version)
    legacy = not writes
    if legacy:
        writes = _legacy(history, roots, skill)
    wanted: Wanted = {}
    labels: dict[Path, str] = {}
    skipped: dict[str, str] = {}
    for write in writes:
        path = Path(write.path)
        why = _changed_by_hand(write)
        if why and not force:
            skipped[write.path] = why
            continue
        text, mode, label = _restored(archive, skill, history, write, to, legacy)
        wanted[path], labels[path] = (text, mode), label
    if not wanted:
        raise StoreError(f"nothing of {skill!r} was rolled back: " + "; ".join(skipped.values())
                         + ". `--force` takes them back anyway")
    version = write_recorded(archive, skill, "rollback", wanted, _rows(wanted, labels))
    return RolledBack(version, {str(p): labels[p] for p in wanted}, skipped, recovered,
                      [str(p) for p, (text, _) in wanted.items() if text is None])


def _restored(archive: Archive, skill: str, history: list[Version], write: PathWrite,
              to: int | None, legacy: bool) -> tuple[str | None, int | None, str]:
    """What a file goes back to: its text (None: no file), mode, and the version label
    (the recorded absence's number when there is one, so the row names a version)."""
    absence = next((f"v{v.version}" for v in history if v.reason == ABSENT), "absence")
    if to is not None:
        if _is_absence(history, to):
            return None, None, f"v{to}"
        return content(archive, skill, to), write.after_mode, f"v{to}"
    if legacy:  # a write recorded before per-file priors were kept: the version before it
        if len(history) < 2:
            raise StoreError(f"skill {skill!r} has only one version; nothing earlier to restore")
        prev = history[-2].version
        if _is_absence(history, prev):
            return None, None, absence
        return content(archive, skill, prev), None, f"v{prev}"
    if write.before_sha256 is None:
        return None, None, absence
    text = content_by_sha(archive, skill, write.before_sha256)
    source = max(v.version for v in history if v.sha256 == write.before_sha256)
    return text, write.before_mode, f"v{source}"


def _rows(wanted: Wanted, labels: dict[Path, str]) -> list[LedgerRow]:
    """One ledger row per distinct restored text, named by the version that holds it."""
    by_label: dict[str, tuple[str, list[str]]] = {}
    for path, (text, _) in wanted.items():
        by_label.setdefault(labels[path], (text or "", []))[1].append(str(path))
    def number(label: str) -> int:
        return int(label[1:]) if label[1:].isdigit() else 1 << 62

    return [LedgerRow(text, f"rollback to {label}", sorted(targets))
            for label, (text, targets) in sorted(by_label.items(), key=lambda i: number(i[0]))]
