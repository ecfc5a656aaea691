"""Adopting what is pending review: which staged proposals an ``adopt`` without a night
means, and writing them back (each skill one transaction, see ``publish/transaction.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import StoreError
from skillopt_sleep.pipeline.status import pending, staged_night
from skillopt_sleep.publish import adopt as adoption


def pending_picks(archive: Archive, every: bool) -> list[tuple[Path, str]]:
    """(night folder, skill) to adopt when no night is named: the newest pending night's
    skills, or with ``every`` each pending skill from its newest pending night."""
    waiting = pending(archive)
    if not waiting:
        raise StoreError(
            "nothing is pending review (every changed night is adopted); "
            "`skillopt-sleep status` shows what is adopted where"
        )
    chosen = waiting if every else [p for p in waiting if p.night_id == waiting[0].night_id]
    seen: dict[str, Path] = {}
    for p in chosen:
        seen.setdefault(p.skill, paths.staging_dir() / p.night_id)
    return [(folder, skill) for skill, folder in seen.items()]


def adopt_review(
    archive: Archive, roots: list[Path], night: str | None, skill: str | None, every: bool
) -> dict[str, Any]:
    """Adopt ``night`` (or what is pending) into ``roots``; call with the state lock held.

    Returns ``{"night_id", "adopted": {skill: version}, "written": {skill: [file]},
    "skipped": {skill: {file: why}}, "recovered": what recovery did or None}`` and, when no
    night was named, ``"nights": {skill: night id}``.
    """
    recovered = adoption.recover(archive)
    if night:
        night_id, done = adoption.adopt_night(archive, staged_night(night), roots, skill, every)
        return {"night_id": night_id, **_outcome(done, recovered)}
    picks = pending_picks(archive, every)
    if skill:
        picks = [(f, s) for f, s in picks if s == skill] or [
            (f, s) for f, s in pending_picks(archive, True) if s == skill]
        if not picks:
            raise StoreError(f"no pending review for skill {skill!r}")
    adopted = {s: adoption.adopt_skill(archive, folder, s, roots) for folder, s in picks}
    return {"night_id": max(folder.name for folder, _ in picks), **_outcome(adopted, recovered),
            "nights": {s: folder.name for folder, s in picks}}


def _outcome(done: dict[str, adoption.Adopted],
             recovered: adoption.Recovery | None) -> dict[str, Any]:
    return {"adopted": {s: a.version for s, a in done.items()},
            "written": {s: a.written for s, a in done.items()},
            "skipped": {s: a.skipped for s, a in done.items() if a.skipped},
            "recovered": None if recovered is None else recovered.as_dict()}
