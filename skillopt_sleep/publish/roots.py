"""Where a skill is written: the roots, one skill's file in each, and what it holds now.

Roots: Claude Code ``$CLAUDE_CONFIG_DIR/skills`` (default ``~/.claude/skills``); Codex,
Copilot CLI and VS Code ``~/.agents/skills``; project ``.claude/skills``,
``.agents/skills`` and ``.github/skills`` on request. A symlink may not lead a project
root out of the project, nor a user root out of the home folder (list it in the config's
``skill_roots`` to write there anyway). The ledger and the journal name each file by its
absolute, resolved path (``real``), so a rollback finds it from any directory.
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep import skill_names as names
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish.transaction import Snapshot, snapshot
from skillopt_sleep.records import sha256_text

__all__ = ["check_name", "check_readable", "file_text", "project_roots", "read_live", "real",
           "target", "user_roots"]


def user_roots() -> list[Path]:
    """The user-level skill dirs; ``StoreError`` when a symlink leads one out of HOME."""
    home = Path.home().resolve()
    roots = paths.agent_skill_roots()
    for root in roots:
        resolved = root.resolve()
        if resolved != root.absolute() and not resolved.is_relative_to(home):
            raise StoreError(
                f"refusing the skill dir {root}: a symlink leads it outside your home folder "
                f"(to {resolved}); list it in `skill_roots` in the config to write there anyway"
            )
    return roots


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


def real(path: Path) -> Path:
    """``path`` absolute with its folders' symlinks resolved (the file itself is never a
    symlink: ``target`` refuses one): how the ledger and the journal name it."""
    return path.parent.resolve() / path.name


def file_text(snap: Snapshot) -> str | None:
    """The exact text of a snapshot (line endings kept); ``StoreError`` when not UTF-8."""
    if snap.data is None:
        return None
    try:
        return snap.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError(f"{snap.path} is not UTF-8 text; refusing to replace it") from exc


def read_live(roots: list[Path], skill: str) -> tuple[str | None, dict[str, str | None]]:
    """The skill text the agents see now (first root that has it, BOM dropped and newlines
    normalised as the night reads them) and each root's hash of its exact bytes."""
    text, hashes = None, {}
    for root in roots:
        path = target(root, skill)
        current = file_text(snapshot(path))
        hashes[str(path)] = sha256_text(current) if current is not None else None
        if text is None and current is not None:
            text = current.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text, hashes


def check_readable(roots: list[Path]) -> None:
    """``StoreError`` (one line) for the first live skill file in ``roots`` that cannot be
    read: a night checks this before it harvests, so a skill it could never read or write
    back stops the run with nothing changed."""
    for root in roots:
        for path in sorted(root.glob("*/SKILL.md")) if root.is_dir() else []:
            snapshot(path)
