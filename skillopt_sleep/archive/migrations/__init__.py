"""Numbered schema migrations of the archive.

Each module ``mNNNN_<name>.py`` holds ``SQL``, applied once in number order and recorded
in ``schema_version``. A later change adds a new module; an applied one is never edited.
Numbers are owned by the part that adds them: 0001 core (nights, rejected-edit buffer,
meta notes), 0002 harvest, 0003 mining, 0004 model calls; later parts take the next free.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

_NAME = re.compile(r"^m(\d{4})_\w+$")


def known() -> list[tuple[int, str]]:
    """Every migration's ``(number, module name)``, in order, from the file names alone:
    opening an archive that is up to date (every command's start-up) imports none."""
    found = [(int(m.group(1)), info.name) for info in pkgutil.iter_modules(__path__)
             if (m := _NAME.match(info.name))]
    return sorted(found)


def migrations(skip: set[int] | frozenset[int] = frozenset()) -> list[tuple[int, str, str]]:
    """All migrations as ``(number, module name, sql)``, in order; those numbered in
    ``skip`` (already applied) carry no SQL and their modules are not imported."""
    found = [(number, name, "" if number in skip else
              importlib.import_module(f"{__name__}.{name}").SQL) for number, name in known()]
    numbers = [n for n, _, _ in found]
    if len(numbers) != len(set(numbers)):
        raise RuntimeError(f"duplicate migration numbers: {numbers}")
    return found
