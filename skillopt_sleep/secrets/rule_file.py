"""detect-secrets' vendor rules, kept in a file between processes.

Reading the rules means importing detect-secrets' plugins, and its package imports its
scanner first (multiprocessing, logging, hashlib, …): about 75 ms of CPU, for 26 regular
expressions that compile in about 5 ms. Any text with a long token run that holds a digit
needs them, and a night id (``20261121-030000-abcdef12``) is one, so every ``status``
paid that import. The rules read once are kept as their patterns, flags and kinds, keyed
by the plugin files they came from (folder, size and modification time of each) and by
the plugin list and kind names asking for them: an upgraded or edited detect-secrets, or
a changed rule selection here, is read again. A file that is missing, damaged or written
for another key is ignored and rewritten; one that cannot be written is not kept.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["FORMAT", "load"]

FORMAT = 1
"""The file's layout; a new layout is a new key."""

Rules = tuple[tuple[str, re.Pattern[str]], ...]


def load(where: Path, plugins: Sequence[str], kinds: Mapping[str, str],
         read: Callable[[], Rules]) -> Rules:
    """The rules ``read`` returns from ``plugins`` (named by ``kinds``): from ``where``
    when it holds them for the installed plugin files, else read and written there."""
    key = _key(plugins, kinds)
    if key is None:  # not plain files (a zip, a frozen build): nothing to key them by
        return read()
    kept = _kept(where, key)
    if kept is not None:
        return kept
    rules = read()
    _keep(where, key, rules)
    return rules


def _key(plugins: Sequence[str], kinds: Mapping[str, str]) -> list[Any] | None:
    spec = importlib.util.find_spec("detect_secrets")  # finds it without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "plugins"
    files = []
    for name in plugins:
        try:
            found = (folder / f"{name}.py").stat()
        except OSError:
            return None
        files.append([name, found.st_size, found.st_mtime_ns])
    return [FORMAT, str(folder), files, sorted([k, v] for k, v in kinds.items())]


def _kept(where: Path, key: list[Any]) -> Rules | None:
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        return tuple((str(kind), re.compile(pattern, int(flags)))
                     for kind, pattern, flags in data["rules"])
    except (OSError, ValueError, KeyError, TypeError, re.error):
        return None


def _keep(where: Path, key: list[Any], rules: Rules) -> None:
    if not all(isinstance(rule.pattern, str) for _, rule in rules):
        return
    from skillopt_sleep.atomic import write_atomic

    text = json.dumps({"key": key, "rules": [[kind, rule.pattern, rule.flags]
                                             for kind, rule in rules]})
    with contextlib.suppress(OSError):  # read-only: the next process reads the plugins
        write_atomic(where, text.encode("utf-8"))
