"""Write validated skills into the agents' skill directories, with a ledger and an undo.

Roots: Claude Code ``$CLAUDE_CONFIG_DIR/skills`` (default ``~/.claude/skills``); Codex,
Copilot CLI and VS Code ``~/.agents/skills``; project ``.claude/skills``,
``.agents/skills`` and ``.github/skills`` on request. Each root gets a real copy (no
symlinks); the legacy ``~/.codex/skills`` is never written. Every write is atomic, refused
if the live file changed since the night read it, and recorded in the versions ledger
byte-exact, so ``rollback`` restores exactly what was there.
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import (
    Version,
    add_version,
    adopted_nights,
    content,
    last_written,
    versions,
)
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import StaleSkillError, StoreError
from skillopt_sleep.mine import names
from skillopt_sleep.publish.staging import load_manifest, proposal
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
    "rollback",
    "target",
    "user_roots",
    "versions",
]

ABSENT = "absent before the first write"


def user_roots() -> list[Path]:
    return paths.agent_skill_roots()


def project_roots(project: Path) -> list[Path]:
    return [
        project / ".claude" / "skills",
        project / ".agents" / "skills",
        project / ".github" / "skills",
    ]


def check_name(skill: str) -> str:
    """``skill`` as a folder to write, refusing plugin skills and anything not one plain path
    component (the rules, and how a loaded name becomes a folder: ``mine/names.py``)."""
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


def read_live(roots: list[Path], skill: str) -> tuple[str | None, dict[str, str | None]]:
    """The skill text the agents see now (first root that has it) and each root's hash."""
    text, hashes = None, {}
    for root in roots:
        path = target(root, skill)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        hashes[str(path)] = sha256_text(current) if current is not None else None
        text = text if text is not None else current
    return text, hashes


def _write_all(
    archive: Archive,
    skill: str,
    text: str,
    paths: list[Path],
    night_id: str | None,
    reason: str,
    remove: bool = False,
) -> int:
    """Record the prior contents (once), then write ``text`` to every path atomically
    (``remove``: delete the files instead, returning to a recorded absence)."""
    history = versions(archive, skill)
    known = {v.sha256 for v in history}
    if not history and not any(path.is_file() for path in paths):
        # The first write creates the skill: remember its absence so rollback can undo it.
        add_version(archive, skill, "", None, ABSENT, paths)
    for path in paths:
        if path.is_file():
            old = path.read_text(encoding="utf-8")
            if sha256_text(old) not in known:
                add_version(archive, skill, old, None, f"before write: {path}", [path])
                known.add(sha256_text(old))
    version = add_version(archive, skill, text, night_id, reason, paths)
    for path in paths:
        if remove:
            path.unlink(missing_ok=True)
        else:
            write_atomic(path, text.encode("utf-8"))
    return version


def adopt(archive: Archive, night_dir: Path, skill: str, roots: list[Path]) -> int:
    """Write one staged proposal into every root; return the new version number."""
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
    for path in paths:
        now = sha256_text(path.read_text(encoding="utf-8")) if path.is_file() else None
        read = staged.live.get(str(path), now)
        if now != read:
            raise StaleSkillError(
                f"{path} changed since night {manifest.night_id} read it; "
                "run a new night (or edit by hand) instead of overwriting it"
            )
    return _write_all(archive, skill, text, paths, manifest.night_id, "adopt")


def adopt_night(
    archive: Archive, night_dir: Path, roots: list[Path], skill: str | None = None,
    changed_only: bool = False,
) -> tuple[str, dict[str, int]]:
    """Adopt ``skill``, or every skill the night changed; returns the night id and each
    adopted skill's new version. ``StoreError`` when the night changed none of them.

    ``changed_only`` (``adopt --all``) only changes how the refusal names the skills.
    """
    manifest = load_manifest(night_dir)
    names = [skill] if skill else [s.name for s in manifest.skills if s.changed or not changed_only]
    changed = [n for n in names if manifest.skill(n).changed]
    if not changed:
        raise StoreError(
            f"night {manifest.night_id} accepted no edit for "
            f"{', '.join(names) or 'any skill'}; nothing adopted"
        )
    return manifest.night_id, {n: adopt(archive, night_dir, n, roots) for n in changed}


def rollback(archive: Archive, skill: str, roots: list[Path], to: int | None = None) -> int:
    """Restore version ``to`` (default: the one before the current) byte-exact everywhere."""
    history = versions(archive, skill)
    if not history:
        raise StoreError(f"skill {skill!r} has no recorded versions to roll back to")
    if to is None:
        if len(history) < 2:
            raise StoreError(f"skill {skill!r} has only one version; nothing earlier to restore")
        to = history[-2].version
    text = content(archive, skill, to)
    paths = [target(root, skill) for root in roots]
    absent = next(v for v in history if v.version == to).reason == ABSENT
    return _write_all(archive, skill, text, paths, None, f"rollback to v{to}", remove=absent)
