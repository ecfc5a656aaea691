"""Finish or undo a write a crash interrupted, and say so.

Every command that writes (``adopt``, ``rollback``, ``run``) calls ``recover`` first with
the state lock held. A journal is replayed only when the archive registered its id and
paths before the write began (``journal.foreign``); the archive's intent decides the
direction (``committed``: forward, ``pending``: back). A damaged or foreign journal is
moved aside and named, never replayed. What was done comes back as one ``Recovery`` whose
``line`` the command prints (and whose ``as_dict`` goes into ``--json``).
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from skillopt_sleep.archive import intents
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.publish.journal import JOURNAL, aside_files, foreign, move_aside, parse

__all__ = ["Recovery", "pending_note", "recover"]

DOCTOR_HINT = "`skillopt-sleep doctor` explains"


@dataclass(frozen=True)
class Recovery:
    """What recovery did: ``finished`` (rolled forward), ``undone`` or ``moved aside``."""

    action: str
    skill: str
    kind: str
    line: str
    paths: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def recover(archive: Archive) -> Recovery | None:
    """Finish or undo the interrupted write the journal names (None: there was none)."""
    state = Path(archive.path).parent
    for orphan in state.glob(f".{JOURNAL}.*.tmp"):
        orphan.unlink(missing_ok=True)
    path = state / JOURNAL
    if not path.exists() and not path.is_symlink():
        return None
    try:
        journal = parse(path.read_bytes())
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _aside(path, f"it is damaged ({type(exc).__name__}: {str(exc)[:80]})", "", "")
    intent = intents.find(archive, journal.txid)
    why = foreign(journal, intent)
    if not why and intent is not None and intent.state not in ("pending", "committed"):
        why = f"the write it names already ended ({intent.state})"
    if why:
        return _aside(path, why, journal.skill, journal.kind)
    assert intent is not None
    # Here, not at the top: ``status`` reads ``pending_note`` and replays nothing.
    from skillopt_sleep.publish.transaction import finish, undo

    paths = [str(c.path) for c in journal.changes]
    roots = len(paths)
    if intent.state == "committed":
        finish(archive, journal)
        return Recovery("finished", journal.skill, journal.kind,
                        f"recovered the interrupted {journal.kind} of {journal.skill}: the "
                        f"ledger had recorded it, so it was finished in {roots} root(s)", paths)
    undo(archive, journal)
    return Recovery("undone", journal.skill, journal.kind,
                    f"recovered the interrupted {journal.kind} of {journal.skill}: the ledger "
                    f"had not recorded it, so {roots} root(s) were put back as they were", paths)


def _aside(path: Path, why: str, skill: str, kind: str) -> Recovery:
    with contextlib.suppress(OSError):
        moved = move_aside(path)
        return Recovery("moved aside", skill, kind,
                        f"the interrupted-write journal was not replayed ({why}); it was "
                        f"moved aside to {moved} and no skill file was touched; {DOCTOR_HINT}")
    return Recovery("moved aside", skill, kind,
                    f"the interrupted-write journal {path} was not replayed ({why}) and cannot "
                    f"be moved aside; remove it by hand; {DOCTOR_HINT}")


def pending_note(state: Path) -> list[str]:
    """What ``status`` and ``doctor`` say about journals: a write waiting for recovery,
    and journals moved aside (with what to do about them)."""
    notes = []
    if (state / JOURNAL).exists():
        notes.append(f"an interrupted write-back is pending (journal {state / JOURNAL}); the "
                     "next adopt, rollback or run finishes or undoes it and says which")
    for aside in aside_files(state):
        notes.append(f"a journal was moved aside unreplayed ({aside}): compare the skill "
                     "files with `skillopt-sleep versions --skill NAME`, then delete it")
    return notes
