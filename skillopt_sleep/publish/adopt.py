"""Write validated skills into the agents' skill directories, with a ledger and an undo.

Roots: Claude Code ``$CLAUDE_CONFIG_DIR/skills`` (default ``~/.claude/skills``); Codex,
Copilot CLI and VS Code ``~/.agents/skills``; project ``.claude/skills``,
``.agents/skills`` and ``.github/skills`` on request. Each root gets a real copy (no
symlinks); the legacy ``~/.codex/skills`` is never written. Every write is atomic, refused
if the live file changed since the night read it, and recorded in the versions ledger
byte-exact, so ``rollback`` restores exactly what was there.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep import skill_names as names
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import (
    LedgerRow,
    Prior,
    Version,
    adopted_nights,
    content,
    content_by_sha,
    last_written,
    priors,
    record_write,
    versions,
)
from skillopt_sleep.errors import StaleSkillError, StoreError
from skillopt_sleep.firewall import Context, check_proposal
from skillopt_sleep.publish.staging import load_manifest, proposal
from skillopt_sleep.publish.transaction import (
    Change,
    Snapshot,
    snapshot,
    sweep_orphans,
    write_files,
)
from skillopt_sleep.publish.transaction import recover as recover_journal
from skillopt_sleep.records import sha256_text

# The ledger's readers are re-exported: callers of adoption also list and undo it.
__all__ = [
    "ABSENT",
    "Version",
    "adopt",
    "adopt_night",
    "adopted_nights",
    "check_name",
    "last_written",
    "project_roots",
    "read_live",
    "recover",
    "rollback",
    "target",
    "user_roots",
    "versions",
]

ABSENT = "absent before the first write"


def user_roots() -> list[Path]:
    return paths.agent_skill_roots()


def project_roots(project: Path) -> list[Path]:
    """The project's skill dirs; ``StoreError`` when one is a symlink leading outside it
    (a cloned repository must not steer the write-back elsewhere)."""
    roots = [
        project / ".claude" / "skills",
        project / ".agents" / "skills",
        project / ".github" / "skills",
    ]
    inside = project.resolve()
    for root in roots:
        if not root.resolve().is_relative_to(inside):
            raise StoreError(
                f"refusing the project skill dir {root}: a symlink leads it outside {project}"
            )
    return roots


def check_name(skill: str) -> str:
    """``skill`` as a folder to write, refusing plugin skills and anything not one plain path
    component (the rules, and how a loaded name becomes a folder: ``skill_names.py``)."""
    if names.is_plugin(skill):
        raise StoreError(f"skill {skill!r} is a plugin skill: {names.PLUGIN_REASON}")
    if not names.is_folder_name(skill):
        raise StoreError(
            f"invalid skill name {skill!r} (one folder name: no '/', '\\', ':', control "
            "characters, leading '.' or '-')"
        )
    return skill


def target(root: Path, skill: str) -> Path:
    """``root/<skill>/SKILL.md``, refusing a path that a symlink leads out of ``root``."""
    path = root / check_name(skill) / "SKILL.md"
    real_root = root.resolve()
    if not path.resolve().is_relative_to(real_root):
        raise StoreError(f"refusing to write {path}: it leads outside {root}")
    if path.is_symlink():
        raise StoreError(f"refusing to write through the symlink {path}")
    return path


def _text(snap: Snapshot) -> str | None:
    """The exact text of a snapshot (line endings kept); ``StoreError`` when not UTF-8."""
    if snap.data is None:
        return None
    try:
        return snap.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError(f"{snap.path} is not UTF-8 text; refusing to replace it") from exc


def read_live(roots: list[Path], skill: str) -> tuple[str | None, dict[str, str | None]]:
    """The skill text the agents see now (first root that has it, newlines normalised as
    the night reads them) and each root's hash of its exact bytes."""
    text, hashes = None, {}
    for root in roots:
        path = target(root, skill)
        current = _text(snapshot(path))
        hashes[str(path)] = sha256_text(current) if current is not None else None
        if text is None and current is not None:
            text = current.replace("\r\n", "\n").replace("\r", "\n")
    return text, hashes


def check_readable(roots: list[Path]) -> None:
    """``StoreError`` (one line) for the first live skill file in ``roots`` that cannot be
    read: a night checks this before it harvests, so a skill it could never read or write
    back stops the run with nothing changed."""
    for root in roots:
        for path in sorted(root.glob("*/SKILL.md")) if root.is_dir() else []:
            snapshot(path)


def recover(archive: Archive) -> str | None:
    """Finish or undo a write-back a crash interrupted (call with the state lock held)."""
    return recover_journal(archive)


def _write(
    archive: Archive, skill: str, wanted: dict[Path, str | None], rows: list[LedgerRow],
    before: list[Snapshot] | None = None,
) -> int:
    """Put each path's wanted text (None: no file) in place as one transaction, keeping
    each file's mode, and record ``rows`` with every path's prior bytes and mode."""
    sweep_orphans(list(wanted))
    before = before if before is not None else [snapshot(p) for p in wanted]
    texts = [_text(s) for s in before]
    changes = [
        Change(s.path, None if wanted[s.path] is None else str(wanted[s.path]).encode("utf-8"),
               s.mode)
        for s in before
    ]
    first = None
    if all(t is None for t in texts):
        # The first write creates the skill: remember its absence so rollback can undo it.
        first = LedgerRow("", ABSENT, [str(p) for p in wanted])
    recorded = [Prior(str(s.path), t, s.mode) for s, t in zip(before, texts, strict=True)]
    version = write_files(
        archive, skill, changes, before,
        lambda: record_write(archive, skill, rows, recorded, first),
    )
    _drop_empty_folders([p for p, text in wanted.items() if text is None])
    return version


def _drop_empty_folders(removed: list[Path]) -> None:
    """Remove the skill folder of each removed SKILL.md when nothing else is in it: the
    folder the first write created goes with the file, and a folder holding anything of
    the user's stays (``rmdir`` removes only an empty folder)."""
    for path in removed:
        with contextlib.suppress(OSError):  # not empty, or already gone
            path.parent.rmdir()


def adopt(archive: Archive, night_dir: Path, skill: str, roots: list[Path]) -> int:
    """Write one staged proposal into every root as one transaction; the new version.

    Refused when any root's file differs from what the night read there, a root the
    night never read included. Call with the state lock held (``publish.lock``).
    """
    recover(archive)
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
    paths = [target(root, skill) for root in roots]
    before = [snapshot(p) for p in paths]
    for snap in before:
        now = _text(snap)
        key = str(snap.path)
        if key not in staged.live or staged.live[key] != (now and sha256_text(now)):
            raise StaleSkillError(_stale_message(archive, manifest.night_id, skill, snap.path,
                                                 key in staged.live))
    live = next((_text(s) for s in before if s.data is not None), None)
    granted = Context(frozenset((str(k), str(t)) for k, t in staged.granted))
    if live is not None and (refused := check_proposal(live, text, granted)):
        # The whole text again, as it will be written: frontmatter, the user's own words,
        # hidden text, secrets, and capabilities the live skill does not already grant.
        why = "; ".join(f"{f.rule}: {f.excerpt}" for f in refused[:3])
        raise StoreError(f"the firewall refuses the proposal for {skill!r} ({why}); "
                         "refusing to write it")
    row = LedgerRow(text, "adopt", [str(p) for p in paths], manifest.night_id)
    return _write(archive, skill, {p: text for p in paths}, [row], before)


def _stale_message(archive: Archive, night_id: str, skill: str, path: Path, read: bool) -> str:
    if (night_id, skill) in adopted_nights(archive):
        return (f"{skill} from night {night_id} is already adopted; "
                "`skillopt-sleep rollback` undoes it")
    if not read:
        return (f"night {night_id} never read {path} (a skill root added since?); "
                "run a new night instead of overwriting it")
    return (f"{path} changed since night {night_id} read it; "
            "run a new night (or edit by hand) instead of overwriting it")


def adopt_night(
    archive: Archive, night_dir: Path, roots: list[Path], skill: str | None = None,
    changed_only: bool = False,
) -> tuple[str, dict[str, int]]:
    """Adopt ``skill``, or every skill the night changed; returns the night id and each
    adopted skill's new version. ``StoreError`` when the night changed none of them.

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
    return manifest.night_id, {n: adopt(archive, night_dir, n, roots) for n in changed}


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


def _undo_last(archive: Archive, skill: str, history: list[Version],
               paths: list[Path]) -> tuple[dict[Path, str | None], int]:
    """Each path's text before the skill's last write, and the version that held it."""
    last = history[-1]
    recorded = {Path(p): (sha, mode) for p, sha, mode in priors(archive, skill, last.version)}
    if not recorded:
        # A write recorded before per-path priors were kept: the version before it.
        if len(history) < 2:
            raise StoreError(f"skill {skill!r} has only one version; nothing earlier to restore")
        prev = history[-2].version
        text = None if _is_absence(history, prev) else content(archive, skill, prev)
        return {p: text for p in paths}, prev
    wanted: dict[Path, str | None] = {}
    for path in paths:
        sha = recorded[path][0] if path in recorded else None
        if path not in recorded:
            wanted[path] = _text(snapshot(path))  # a root this write never touched stays
        else:
            wanted[path] = None if sha is None else content_by_sha(archive, skill, sha)
    earlier = [v.version for v in history[:-1]]
    return wanted, earlier[-1] if earlier else last.version


def rollback(archive: Archive, skill: str, roots: list[Path], to: int | None = None) -> int:
    """Undo the skill's last write, each root back to its own prior bytes, mode or absence;
    with ``to``, put that version in every root. Returns the last ledger row's number.
    Call with the state lock held (``publish.lock``)."""
    recover(archive)
    history = versions(archive, skill)
    if not history:
        raise StoreError(f"skill {skill!r} has no recorded versions to roll back to")
    paths = [target(root, skill) for root in roots]
    if to is None:
        wanted, to = _undo_last(archive, skill, history, paths)
    else:
        if to not in {v.version for v in history}:
            raise StoreError(f"skill {skill!r} has no version {to}")
        text = None if _is_absence(history, to) else content(archive, skill, to)
        wanted = {p: text for p in paths}
    rows = _rollback_rows(archive, skill, history, wanted, to)
    return _write(archive, skill, wanted, rows)


def _rollback_rows(archive: Archive, skill: str, history: list[Version],
                   wanted: dict[Path, str | None], to: int) -> list[LedgerRow]:
    """One ledger row per distinct restored text, naming the version that held it."""
    by_text: dict[str | None, list[str]] = {}
    for path, text in wanted.items():
        by_text.setdefault(text, []).append(str(path))
    rows = []
    for text, targets in by_text.items():
        source = _source(history, text)
        reason = f"rollback to v{source}" if source else "rollback to absence"
        rows.append(LedgerRow(text or "", reason if text is None or source else
                              f"rollback to v{to}", targets))
    return rows


def _source(history: list[Version], text: str | None) -> int | None:
    """The newest version holding ``text`` (None: the recorded absence)."""
    if text is None:
        return next((v.version for v in history if v.reason == ABSENT), None)
    sha = sha256_text(text)
    return next((v.version for v in reversed(history) if v.sha256 == sha), None)
