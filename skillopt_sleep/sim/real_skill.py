"""A persona whose skill is a real document (``skill_file``): read it, install it, and
check what a night may change in it.

A real skill is read byte for byte (no newline translation, so CRLF and a missing final
newline survive) and must state none of the persona's rules already. The full proof
installs it in every skill root with its own mode before the first night; afterwards
``kept_outside`` says whether a night's text changed anything but the description value
(kept in its style) and the managed regions, and ``same_file`` whether a file holds
exactly the original bytes and mode.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from skillopt_sleep import frontmatter
from skillopt_sleep.records import EditOutcome
from skillopt_sleep.skilldoc import edit_description, parse, with_entries

if TYPE_CHECKING:
    from skillopt_sleep.sim.persona_model import Persona

INSTALL_MODES = (0o644, 0o600)
"""The modes the full proof gives the installed copies, one per root in turn: rollback must
give each file back its own mode, so the roots do not share one."""


def read_document(path: Path) -> tuple[str, str]:
    """The document's exact text and its frontmatter description (as routing reads it)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise ValueError(f"skill_file {path}: no such file") from exc
    return text, parse(text).description


def stated_rules(persona: Persona, text: str) -> list[str]:
    """Ids of the persona's rules (good, harmful or cross) a line of ``text`` states."""
    every = (*persona.rules, *persona.harmful, *persona.cross)
    return sorted({r.id for line in text.splitlines() for r in every if r.recognised_in(line)})


def install(text: str, roots: list[Path], folder: str) -> list[Path]:
    """Write ``text`` as ``<root>/<folder>/SKILL.md`` in every root, byte for byte, each
    with its mode from ``INSTALL_MODES``; the files written."""
    written = []
    for i, root in enumerate(roots):
        path = root / folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        os.chmod(path, INSTALL_MODES[i % len(INSTALL_MODES)])
        written.append(path)
    return written


def file_state(path: Path) -> tuple[bytes, int] | None:
    """A file's bytes and permission bits; None when there is no file."""
    try:
        return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def kept_outside(initial: str, final: str) -> str:
    """Why ``final`` is not ``initial`` with only the description value (in its style) and
    the managed regions changed; '' when it is.

    ``final`` is rebuilt from ``initial``: its description set by the same edit a night
    makes (``skilldoc.edit_description``), then each of its managed regions filled with
    ``final``'s entries, in ``final``'s order. Any other byte that differs is reported."""
    before, after = parse(initial), parse(final)
    style = frontmatter.description_style(initial)
    if frontmatter.description_style(final) != style:
        return (f"the description's style changed from {style} to "
                f"{frontmatter.description_style(final)}")
    rebuilt = before
    if after.description != before.description:
        done = edit_description(before, after.description)
        if done.outcome is not EditOutcome.APPLIED:
            return f"the description cannot be set in its own style: {done.reason}"
        rebuilt = done.doc
    for region in sorted(after.regions.values(), key=lambda r: r.body_start):
        rebuilt = with_entries(rebuilt, region.name, region.entries)
    if rebuilt.text == final:
        return ""
    at = next((i for i, (a, b) in enumerate(zip(rebuilt.text, final, strict=False)) if a != b),
              min(len(rebuilt.text), len(final)))
    return f"a byte outside the description and the managed regions changed at offset {at}"
