"""Write validated skills into the agents' skill directories, with a ledger and an undo.

Each root gets a real copy (no symlinks); the legacy ``~/.codex/skills`` is never written
(the roots: ``roots.py``). A night's change is applied to each root's own text
(``merge.py``): its BOM, line endings, final newline and every byte outside the managed
regions stay its own. A root whose file changed since the night read it, or whose text
cannot take the change, is skipped with the reason; the rest are written as one
transaction (``transaction.py``) and recorded in the versions ledger byte-exact, so
``rollback`` restores exactly what was there, from any directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import (
    LedgerRow,
    Version,
    adopted_nights,
    last_written,
    versions,
)
from skillopt_sleep.errors import StaleSkillError, StoreError
from skillopt_sleep.firewall import Context, check_proposal
from skillopt_sleep.publish.merge import MergeRefused, merge, normalise
from skillopt_sleep.publish.recovery import Recovery
from skillopt_sleep.publish.recovery import recover as recover_journal
from skillopt_sleep.publish.rollback import rollback
from skillopt_sleep.publish.roots import (
    check_name,
    check_readable,
    file_text,
    project_roots,
    read_live,
    real,
    target,
    user_roots,
)
from skillopt_sleep.publish.staging import StagedSkill, load_manifest, proposal
from skillopt_sleep.publish.transaction import Snapshot, snapshot
from skillopt_sleep.publish.writes import ABSENT, Wanted, write_recorded
from skillopt_sleep.records import sha256_text

# The ledger's readers and the roots are re-exported: callers of adoption also list and
# undo it.
__all__ = [
    "ABSENT",
    "Adopted",
    "Recovery",
    "Version",
    "adopt",
    "adopt_night",
    "adopt_skill",
    "adopted_nights",
    "check_name",
    "check_readable",
    "last_written",
    "project_roots",
    "read_live",
    "recover",
    "rollback",
    "target",
    "user_roots",
    "versions",
]


def recover(archive: Archive) -> Recovery | None:
    """Finish or undo a write-back a crash interrupted (call with the state lock held)."""
    return recover_journal(archive)


@dataclass
class Adopted:
    """One skill's adoption: the new version, the files written, the roots skipped (path:
    why) and what recovery did first."""

    version: int
    written: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    recovered: Recovery | None = None


def adopt(archive: Archive, night_dir: Path, skill: str, roots: list[Path]) -> int:
    """``adopt_skill``'s new version."""
    return adopt_skill(archive, night_dir, skill, roots).version


def _proposal(archive: Archive, night_dir: Path, skill: str) -> tuple[str, StagedSkill, str]:
    manifest = load_manifest(night_dir)
    staged = manifest.skill(skill)
    if not staged.changed:
        raise StoreError(
            f"night {manifest.night_id} accepted nothing for {skill!r}; nothing to adopt"
        )
    text = proposal(night_dir.parent, manifest.night_id, skill)
    if sha256_text(text) != staged.proposal_sha256:
        raise StoreError(
            f"staged proposal for {skill!r} was modified after the night (hash mismatch)"
        )
    return manifest.night_id, staged, text


def adopt_skill(archive: Archive, night_dir: Path, skill: str, roots: list[Path]) -> Adopted:
    """Write one staged proposal into every root that can take it, as one transaction.

    A root whose file differs from what the night read there (a root the night never read
    included), or whose text cannot take the change, is skipped with the reason; when no
    root can take it nothing is written. Call with the state lock held (``publish.lock``).
    """
    recovered = recover(archive)
    night_id, staged, text = _proposal(archive, night_dir, skill)
    found = [target(root, skill) for root in roots]
    before = [snapshot(real(p)) for p in found]
    stale = [_stale(archive, night_id, skill, staged, p, s) for p, s in zip(found, before,
                                                                           strict=True)]
    # What the night read: the first root that held the file then (BOM dropped, LF). When
    # that file changed since, the change has no base to apply to: nothing is written.
    read = next((i for i, p in enumerate(found) if staged.live.get(str(p))), None)
    if read is not None and stale[read]:
        raise StaleSkillError(stale[read])
    raw = None if read is None else file_text(before[read])
    live = None if raw is None else normalise(raw)
    granted = Context(frozenset((str(k), str(t)) for k, t in staged.granted))
    if live is not None and (refused := check_proposal(live, text, granted)):
        # The whole text again, as it will be written: frontmatter, the user's own words,
        # hidden text, secrets, and capabilities neither the live skill nor the user's own
        # requests (as the night recorded them) grant.
        why = "; ".join(f"{f.rule}: {f.excerpt}" for f in refused[:3])
        raise StoreError(f"the firewall refuses the proposal for {skill!r} ({why}); "
                         "refusing to write it")
    if live is not None and merge(live, live, text) != text:
        raise StoreError(f"the proposal for {skill!r} changes text outside its managed regions "
                         "and description; refusing to write it")
    wanted, skipped = _per_root(before, stale, live, text)
    if not wanted:
        raise StaleSkillError(next(iter(skipped.values())))
    kept = [s for s in before if s.path in wanted]
    version = write_recorded(archive, skill, "adopt", wanted, _adopt_rows(wanted, night_id), kept)
    return Adopted(version, [str(p) for p in wanted], skipped, recovered)


def _per_root(before: list[Snapshot], stale: list[str], live: str | None,
              text: str) -> tuple[Wanted, dict[str, str]]:
    """Each root's own text with the night's change, or why it is skipped."""
    wanted: Wanted = {}
    skipped: dict[str, str] = {}
    for snap, why in zip(before, stale, strict=True):
        own = file_text(snap)
        if why:
            skipped[str(snap.path)] = why
        elif own is None or live is None:
            wanted[snap.path] = (text, None)  # a new copy: the night's whole document
        else:
            try:
                wanted[snap.path] = (merge(own, live, text), None)
            except MergeRefused as exc:
                skipped[str(snap.path)] = f"{snap.path} cannot take the change: {exc}"
    return wanted, skipped


def _adopt_rows(wanted: Wanted, night_id: str) -> list[LedgerRow]:
    """One ledger row per distinct text written (roots keep their own bytes)."""
    by_text: dict[str, list[str]] = {}
    for path, (text, _) in wanted.items():
        by_text.setdefault(text or "", []).append(str(path))
    return [LedgerRow(text, "adopt", targets, night_id) for text, targets in by_text.items()]


def _stale(archive: Archive, night_id: str, skill: str, staged: StagedSkill, path: Path,
           snap: Snapshot) -> str:
    """Why this root's file is not what the night read there ('' : it is)."""
    now = file_text(snap)
    key = next((k for k in (str(path), str(snap.path)) if k in staged.live), None)
    if key is not None and staged.live[key] == (now and sha256_text(now)):
        return ""
    if (night_id, skill) in adopted_nights(archive):
        return (f"{skill} from night {night_id} is already adopted; "
                "`skillopt-sleep rollback` undoes it")
    if key is None:
        return (f"night {night_id} never read {path} (a skill root added since?); "
                "run a new night instead of overwriting it")
    return (f"{path} changed since night {night_id} read it; "
            "run a new night (or edit by hand) instead of overwriting it")


def adopt_night(
    archive: Archive, night_dir: Path, roots: list[Path], skill: str | None = None,
    changed_only: bool = False,
) -> tuple[str, dict[str, Adopted]]:
    """Adopt ``skill``, or every skill the night changed; returns the night id and each
    adopted skill's outcome. ``StoreError`` when the night changed none of them.

    ``changed_only`` only changes how the refusal names the skills.
    """
    manifest = load_manifest(night_dir)
    if manifest.failed:
        raise StoreError(f"night {manifest.night_id} failed ({manifest.failed}); nothing to adopt")
    names = [skill] if skill else [s.name for s in manifest.skills if s.changed or not changed_only]
    changed = [n for n in names if manifest.skill(n).changed]
    if not changed:
        raise StoreError(
            f"night {manifest.night_id} accepted no edit for "
            f"{', '.join(names) or 'any skill'}; nothing adopted"
        )
    return manifest.night_id, {n: adopt_skill(archive, night_dir, n, roots) for n in changed}
