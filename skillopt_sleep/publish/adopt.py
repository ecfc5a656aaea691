"""Write validated skills into the agents' skill directories, with a ledger and an undo.

Roots: Claude Code ``$CLAUDE_CONFIG_DIR/skills`` (default ``~/.claude/skills``); Codex,
Copilot CLI and VS Code ``~/.agents/skills``; project ``.claude/skills``,
``.agents/skills`` and ``.github/skills`` on request. Each root gets a real copy (no
symlinks); the legacy ``~/.codex/skills`` is never written. Every write is atomic, refused
if the live file changed since the night read it, and recorded in the versions ledger
byte-exact, so ``rollback`` restores exactly what was there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import StaleSkillError, StoreError
from skillopt_sleep.publish.staging import load_manifest, proposal
from skillopt_sleep.records import sha256_text, utcnow

ABSENT = "absent before the first write"
_NAME_OK = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def user_roots() -> list[Path]:
    return paths.agent_skill_roots()


def project_roots(project: Path) -> list[Path]:
    return [
        project / ".claude" / "skills",
        project / ".agents" / "skills",
        project / ".github" / "skills",
    ]


def check_name(skill: str) -> str:
    if not skill or not set(skill) <= _NAME_OK or skill.startswith(".") or ".." in skill:
        raise StoreError(f"invalid skill name {skill!r} (lowercase letters, digits, -_.)")
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


@dataclass(frozen=True)
class Version:
    skill: str
    version: int
    sha256: str
    night_id: str | None
    reason: str
    targets: list[str]
    created_at: str


def versions(archive: Archive, skill: str) -> list[Version]:
    rows = archive.conn.execute(
        "SELECT skill, version, sha256, night_id, reason, targets, created_at FROM skill_versions"
        " WHERE skill = ? ORDER BY version",
        (skill,),
    ).fetchall()
    return [Version(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6]) for r in rows]


def _content(archive: Archive, skill: str, version: int) -> str:
    row = archive.conn.execute(
        "SELECT content FROM skill_versions WHERE skill = ? AND version = ?", (skill, version)
    ).fetchone()
    if row is None:
        raise StoreError(f"skill {skill!r} has no version {version}")
    return str(row[0])


def _record(
    archive: Archive, skill: str, text: str, night_id: str | None, reason: str, paths: list[Path]
) -> int:
    with archive.transaction() as conn:
        row = conn.execute(
            "SELECT MAX(version) FROM skill_versions WHERE skill = ?", (skill,)
        ).fetchone()
        version = (row[0] or 0) + 1
        conn.execute(
            "INSERT INTO skill_versions VALUES (?,?,?,?,?,?,?,?)",
            (
                skill,
                version,
                sha256_text(text),
                text,
                night_id,
                reason,
                json.dumps([str(p) for p in paths]),
                utcnow().isoformat(),
            ),
        )
    return version


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
        _record(archive, skill, "", None, ABSENT, paths)
    for path in paths:
        if path.is_file():
            old = path.read_text(encoding="utf-8")
            if sha256_text(old) not in known:
                _record(archive, skill, old, None, f"before write: {path}", [path])
                known.add(sha256_text(old))
    version = _record(archive, skill, text, night_id, reason, paths)
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


def rollback(archive: Archive, skill: str, roots: list[Path], to: int | None = None) -> int:
    """Restore version ``to`` (default: the one before the current) byte-exact everywhere."""
    history = versions(archive, skill)
    if not history:
        raise StoreError(f"skill {skill!r} has no recorded versions to roll back to")
    if to is None:
        if len(history) < 2:
            raise StoreError(f"skill {skill!r} has only one version; nothing earlier to restore")
        to = history[-2].version
    text = _content(archive, skill, to)
    paths = [target(root, skill) for root in roots]
    absent = next(v for v in history if v.version == to).reason == ABSENT
    return _write_all(archive, skill, text, paths, None, f"rollback to v{to}", remove=absent)


def adopted_nights(archive: Archive) -> set[tuple[str, str]]:
    rows = archive.conn.execute(
        "SELECT night_id, skill FROM skill_versions WHERE night_id IS NOT NULL AND reason = 'adopt'"
    )
    return {(r[0], r[1]) for r in rows}


def last_written(archive: Archive) -> str:
    """The skill whose newest version is the most recent write (what ``rollback`` undoes)."""
    row = archive.conn.execute(
        "SELECT skill FROM skill_versions ORDER BY created_at DESC, version DESC LIMIT 1"
    ).fetchone()
    if row is None:
        raise StoreError("nothing has been adopted yet, so there is nothing to roll back")
    return str(row[0])
