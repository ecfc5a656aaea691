"""The interrupted-write journal: its file, what it must hold to be replayed, and why not.

``<state>/adopt.journal.json`` names one write: its id (registered in the archive's
``write_intents`` before the journal exists), the skill, the kind of command, every
target's prior bytes and mode, the new bytes, and the folders the write created. A journal
that cannot be parsed, or whose id or paths the archive never registered, is *not*
replayed: it is moved aside (``adopt.journal.json.aside-<time>``) and named, so a damaged
or planted file can never steer a write outside the roots the ledger knows.
"""

from __future__ import annotations

import errno
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep import skill_names as names
from skillopt_sleep.archive.intents import Intent
from skillopt_sleep.records import utcnow

__all__ = ["ASIDE", "JOURNAL", "Entry", "Journal", "aside_files", "failure_cause", "foreign",
           "move_aside", "parse"]

JOURNAL = "adopt.journal.json"
ASIDE = f"{JOURNAL}.aside-"


@dataclass(frozen=True)
class Entry:
    """One path of a write: ``data`` None means no file; ``mode`` None the umask's."""

    path: Path
    data: bytes | None
    mode: int | None


@dataclass(frozen=True)
class Journal:
    txid: str
    skill: str
    kind: str
    priors: list[Entry]
    changes: list[Entry]
    created: list[Path]
    """Folders that did not exist before the write (removed again when it is undone)."""

    def dump(self) -> bytes:
        return json.dumps({
            "txid": self.txid, "skill": self.skill, "kind": self.kind,
            "priors": [_entry(e) for e in self.priors],
            "changes": [_entry(e) for e in self.changes],
            "created": [str(p) for p in self.created],
        }).encode("utf-8")


def _entry(entry: Entry) -> dict[str, object]:
    import base64  # here: ``status`` reads whether a journal exists, never one's bytes

    data = None if entry.data is None else base64.b64encode(entry.data).decode("ascii")
    return {"path": str(entry.path), "data": data, "mode": entry.mode}


def _load_entry(item: dict[str, object]) -> Entry:
    data, mode = item["data"], item["mode"]
    if not (data is None or isinstance(data, str)) or not (mode is None or isinstance(mode, int)):
        raise TypeError("an entry's data or mode has the wrong type")
    import base64

    return Entry(Path(str(item["path"])), None if data is None else base64.b64decode(data), mode)


def parse(raw: bytes) -> Journal:
    """The journal in ``raw``; ``ValueError`` / ``KeyError`` / ``TypeError`` when damaged."""
    data = json.loads(raw.decode("utf-8"))
    return Journal(str(data["txid"]), str(data["skill"]), str(data["kind"]),
                   [_load_entry(e) for e in data["priors"]],
                   [_load_entry(e) for e in data["changes"]],
                   [Path(str(p)) for p in data.get("created", [])])


def foreign(journal: Journal, intent: Intent | None) -> str:
    """Why ``journal`` must not be replayed ('' : it may): its id and every path must be
    the ones the archive registered before the write began."""
    if intent is None:
        return "the archive registered no write with its id"
    if intent.skill != journal.skill or intent.kind != journal.kind:
        return "its skill or command differs from the write the archive registered"
    registered = set(intent.paths)
    for group in (journal.priors, journal.changes):
        if {str(e.path) for e in group} != registered:
            return "it names files the archive did not register for that write"
    for name in registered:
        path = Path(name)
        if (not path.is_absolute() or path.name != "SKILL.md" or path.parent.name != intent.skill
                or not names.is_folder_name(intent.skill)):
            return f"{name} is not a skill file of {intent.skill!r}"
    for folder in journal.created:
        if not any(Path(p).is_relative_to(folder) for p in registered):
            return f"it would remove {folder}, which holds none of the write's files"
    return ""


def move_aside(path: Path) -> Path:
    """Rename the journal out of the way (never replayed, kept for a look); its new name."""
    target = path.with_name(f"{ASIDE}{utcnow():%Y%m%dT%H%M%S%f}")
    path.rename(target)
    return target


def aside_files(state: Path) -> list[Path]:
    return sorted(state.glob(f"{ASIDE}*"))


def failure_cause(archive_path: Path, exc: BaseException) -> str:
    """The real cause of a ledger write that failed, and its fix, in one clause."""
    text = str(exc)
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC or "disk is full" in text or "No space left" in text:
        return (f"the disk holding {archive_path.parent} is full; free space there and run "
                "the command again")
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or "readonly" in text \
            or "read-only" in text:
        return (f"the archive {archive_path} is read-only; make it and its folder writable "
                f"(chmod u+w {archive_path} {archive_path.parent}, or remount) and run the "
                "command again")
    if isinstance(exc, sqlite3.Error):
        return (f"the archive {archive_path} could not record the write ({text}); "
                "`skillopt-sleep doctor` checks it")
    return f"the write could not be recorded ({text})"
