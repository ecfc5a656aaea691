"""Existing skills as routing sees them: name and description from each SKILL.md.

Read from the agents' skill roots (Claude Code's ``$CLAUDE_CONFIG_DIR/skills``, default
``~/.claude/skills``; Codex and Copilot's ``~/.agents/skills``) or from folders given.
An unreadable file is skipped, never fatal (odd frontmatter is read as far as it can
be), and so is a folder no night could write (``names.is_folder_name``). Each skill
keeps its folder name beside its ``name:``, since the two may differ and a night writes the folder.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from skillopt_sleep import frontmatter, paths
from skillopt_sleep.mine.route import SkillInfo
from skillopt_sleep.skill_names import is_folder_name


def default_roots() -> list[Path]:
    return paths.agent_skill_roots()


def read_skill(path: Path) -> SkillInfo | None:
    """The skill in ``path`` (a SKILL.md), or None when it cannot be read at all.

    Frontmatter is read as the agents read it (``frontmatter.read``): invalid YAML key by
    key, a ``name`` that is not text or is missing gives way to the folder, and a file
    without frontmatter is a skill with no description."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = frontmatter.read(text)
    return SkillInfo(name=fields.text("name").strip() or path.parent.name,
                     description=fields.text("description").strip(), text=text,
                     folder=path.parent.name)


def discover_skills(roots: Iterable[Path] | None = None) -> list[SkillInfo]:
    """Skills under ``roots`` (``<root>/<folder>/SKILL.md``), one per folder, first root
    wins (each agent's root holds its own copy of a skill)."""
    found: dict[str, SkillInfo] = {}
    for root in default_roots() if roots is None else roots:
        if not root.is_dir():
            continue
        for path in sorted(root.glob("*/SKILL.md")):
            skill = read_skill(path) if is_folder_name(path.parent.name) else None
            if skill is not None:
                found.setdefault(skill.folder, skill)
    return list(found.values())


def skill_notes(roots: Iterable[Path] | None = None) -> list[tuple[str, str]]:
    """``(SKILL.md path, note)`` for each odd frontmatter in ``roots`` (``doctor`` shows
    them): none stops a night, they say what the agents and the nights read instead."""
    found = []
    for root in default_roots() if roots is None else roots:
        for path in sorted(root.glob("*/SKILL.md")) if root.is_dir() else []:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                found.append((str(path), f"unreadable: {exc.strerror or exc}"))
                continue
            fields = frontmatter.read(text)
            notes = [*fields.notes, *frontmatter.folder_notes(fields, path.parent.name)]
            found += [(str(path), str(note)) for note in notes]
    return found
