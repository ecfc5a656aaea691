"""Skill names as agents load them, and the folders a night may write them to.

An agent can load a skill under any name: a Claude Code plugin skill as
``plugin:skill`` (``superpowers:brainstorming``), a user skill whose folder has capitals,
spaces or non-ASCII letters (``Research-Notes``, ``Notizen Überblick``). Routing turns
each loaded name into either a writable folder or a skip with its reason:

1. **Plugin skills are read-only.** A name with a ``:`` is a plugin skill (Claude Code
   namespaces every plugin skill and command as ``plugin:name``); it lives in the plugin
   cache, which the plugin manager overwrites on update, so it is never written back. Its
   families go on to the next routing step (the nearest writable skill by description,
   else the managed ``skillopt-sleep-learned``), and the run's summary counts it as
   skipped with the reason.
2. **An existing skill keeps its folder.** A name that matches a skill on disk in the
   write-back roots, by folder name or by the ``name:`` in its frontmatter (which may
   differ from the folder), trains that folder, whatever characters the folder has.
3. **A safe name is its own folder**: lowercase ASCII letters, digits, ``-``, ``_``, ``.``,
   not starting with ``.`` or ``-``, at most 64 characters (the Claude Code rule for
   ``name:``), e.g. ``release`` or ``research-notes``.
4. **Anything else gets a slug with a fingerprint**: the name folded to ASCII
   (NFKD, accents dropped), lowercased, every other run of characters turned into one
   ``-``, cut to 48 characters, then ``-`` and the first 8 hex digits of the sha256 of the
   exact name: ``Research-Notes`` → ``research-notes-6f1d…``. The fingerprint makes the
   mapping collision-free (``Research-Notes`` and ``research-notes`` never share a
   folder) and the same every night; a name with no letters or digits at all becomes
   ``skill-<fingerprint>``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

PLUGIN_SEPARATOR = ":"
PLUGIN_REASON = "plugin skill: read-only, never written back"
MAX_SAFE = 64
_SLUG_CUT = 48
_SAFE = re.compile(r"^[a-z0-9_][a-z0-9._-]{0,63}$")
_OTHER = re.compile(r"[^a-z0-9]+")
_UNSAFE_FOLDER = re.compile(r"[/\\\x00-\x1f\x7f:]")


class OnDisk(Protocol):
    """A skill found in a write-back root: its frontmatter name and its folder."""

    name: str
    folder: str


@dataclass(frozen=True)
class Skipped:
    """A loaded skill a night does not train, and why."""

    skill: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"skill": self.skill, "reason": self.reason}


def is_plugin(name: str) -> bool:
    return PLUGIN_SEPARATOR in name


def is_safe(name: str) -> bool:
    """A name that is its own folder (rule 3 of the module docstring)."""
    return bool(_SAFE.match(name)) and ".." not in name


def fingerprint(name: str) -> str:
    import hashlib  # here: most commands name no skill's folder

    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def slug(name: str) -> str:
    """Rule 4: a deterministic, collision-free folder name for any string."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    base = _OTHER.sub("-", folded.lower()).strip("-")[:_SLUG_CUT].strip("-")
    return f"{base or 'skill'}-{fingerprint(name)}"


def is_folder_name(folder: str) -> bool:
    """A single path component a skill may live in: no separator, no control character, no
    ``:`` (that is a plugin skill), not hidden, not an option, not ``..``."""
    return (
        bool(folder) and len(folder) <= 255 and not _UNSAFE_FOLDER.search(folder)
        and folder.strip() == folder and not folder.startswith((".", "-"))
    )


def folder_for(name: str, on_disk: Sequence[OnDisk] = ()) -> str | None:
    """The folder a loaded skill ``name`` trains, or None for a plugin (read-only) skill."""
    name = name.strip().lstrip("/")
    if not name or is_plugin(name):
        return None
    # The frontmatter name first: it is what Claude Code's Skill tool loads by; then the
    # folder, which is what a read of ``skills/<folder>/SKILL.md`` names.
    for field in ("name", "folder"):
        for skill in on_disk:
            if getattr(skill, field) == name and is_folder_name(skill.folder):
                return skill.folder
    return name if is_safe(name) else slug(name)


def is_route(folder: str, on_disk: Sequence[OnDisk] = ()) -> bool:
    """Whether ``folder`` is something routing gives: a folder on disk, or a safe name (a
    slug is one). A raw loaded name stored by an older version is not."""
    return is_folder_name(folder) and (
        is_safe(folder) or any(skill.folder == folder for skill in on_disk))


def writable(
    loaded: Iterable[str], on_disk: Sequence[OnDisk] = ()
) -> tuple[list[str], list[Skipped]]:
    """Each loaded name's folder (in order, repeats kept so counts survive), and the skips."""
    folders: list[str] = []
    skipped: list[Skipped] = []
    for name in loaded:
        folder = folder_for(name, on_disk)
        if folder is not None:
            folders.append(folder)
        elif name.strip():
            skipped.append(Skipped(name.strip().lstrip("/"), PLUGIN_REASON))
    return folders, skipped
