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


def migrations() -> list[tuple[int, str, str]]:
    """All migrations as ``(number, module name, sql)``, in order."""
    found: list[tuple[int, str, str]] = []
    for info in pkgutil.iter_modules(__path__):
        match = _NAME.match(info.name)
        if not match:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.append((int(match.group(1)), info.name, module.SQL))
    found.sort()
    numbers = [n for n, _, _ in found]
    if len(numbers) != len(set(numbers)):
        raise RuntimeError(f"duplicate migration numbers: {numbers}")
    return found
