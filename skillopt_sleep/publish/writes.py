"""One recorded write of a skill: files through the transaction, rows into the ledger.

Shared by ``adopt`` and ``rollback``: each path gets its wanted text and mode (text None:
no file), the ledger records every path's bytes and mode before and what the write left,
and the folders a removal empties are removed with it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import LedgerRow, Prior, record_write
from skillopt_sleep.publish.roots import file_text
from skillopt_sleep.publish.transaction import Change, Snapshot, Write, snapshot, sweep_orphans
from skillopt_sleep.publish.transaction import write_files as transact

__all__ = ["ABSENT", "Wanted", "write_recorded"]

ABSENT = "absent before the first write"

# Each path's wanted text (None: no file) and mode (None: keep the file's, or the umask's).
Wanted = dict[Path, tuple[str | None, int | None]]


def _mode_now(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return None


def write_recorded(
    archive: Archive, skill: str, kind: str, wanted: Wanted, rows: list[LedgerRow],
    before: list[Snapshot] | None = None,
) -> int:
    """Put each path's wanted text and mode in place as one transaction and record ``rows``
    with every path's prior and new bytes and mode; the last ledger row's number."""
    sweep_orphans(list(wanted))
    before = before if before is not None else [snapshot(p) for p in wanted]
    texts = [file_text(s) for s in before]
    changes = []
    for snap in before:
        text, mode = wanted[snap.path]
        changes.append(Change(snap.path, None if text is None else text.encode("utf-8"),
                              snap.mode if mode is None else mode))
    first = None
    if all(t is None for t in texts):
        # The first write creates the skill: remember its absence so rollback can undo it.
        first = LedgerRow("", ABSENT, [str(p) for p in wanted])

    def commit(txid: str) -> int:
        recorded = [Prior(str(s.path), t, s.mode, wanted[s.path][0], _mode_now(s.path))
                    for s, t in zip(before, texts, strict=True)]
        return record_write(archive, skill, rows, recorded, first, txid)

    version = transact(archive, Write(skill, kind, changes, before), commit)
    for path, (text, _) in wanted.items():
        if text is None:
            # The skill folder goes with its file when nothing of the user's is left in it.
            with contextlib.suppress(OSError):
                path.parent.rmdir()
    return version
