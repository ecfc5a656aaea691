"""The ``--json`` printer, shared by the command modules that print JSON (the option itself
is ``_options.JsonOpt``). Standard library only: the plain ``status`` path prints with it
and loads no typer."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.secrets import may_hold_secrets, redact, redact_value
from skillopt_sleep.secrets.assignments import keyed

_printed = [0]  # JSON values printed by this process: a failure after them adds no second


def wanted(args: Sequence[str]) -> bool:
    """Whether a command line asks for JSON (``--json`` before any ``--``)."""
    words = list(args)
    return "--json" in (words[:words.index("--")] if "--" in words else words)


def reset() -> None:
    _printed[0] = 0


def emitted() -> int:
    """How many JSON values this process has printed."""
    return _printed[0]


def emit(data: Any, *, ensure_ascii: bool = True) -> None:
    """One JSON value on one line of standard output, every string in it redacted (a base
    URL, an error, a path: whatever a command prints, it prints no secret)."""
    plain = json.loads(json.dumps(data, default=str))  # records, dates, paths as JSON has them
    # As ``typer.echo`` wrote it: the line, then a flush (JSON escapes every control
    # character, so there is no colour code for it to strip).
    sys.stdout.write(json.dumps(redacted(plain), ensure_ascii=ensure_ascii) + "\n")
    sys.stdout.flush()
    _printed[0] += 1


CHUNK = 64
"""Strings tested together by ``may_hold_secrets``: one test on a chunk clears all of it."""


def redacted(node: Any) -> Any:
    """``secrets.redact_tree(node)``, faster where most strings hold nothing to redact.

    A ``mine`` pass lists thousands of member ids; redacting each alone cost more than the
    pass's mining. ``may_hold_secrets`` answers for a chunk of strings in one scan, and a
    string of a chunk it clears is kept as ``redact`` would keep it; the rest are redacted
    one by one, and a value whose key names a secret is judged as ``redact_value`` does."""
    leaves: list[str] = []
    _strings(node, leaves)
    unique = list(dict.fromkeys(leaves))
    safe: set[str] = set()
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        if not may_hold_secrets(chunk):
            safe.update(chunk)
    return _walk(node, safe)


def _strings(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for value in node.values():
            _strings(value, out)
    elif isinstance(node, list):
        for value in node:
            _strings(value, out)


def _walk(node: Any, safe: set[str]) -> Any:
    if isinstance(node, str):
        return node if node in safe else redact(node)[0]
    if isinstance(node, dict):
        return {k: (v if v in safe and not (isinstance(k, str) and v and keyed(k, v))
                    else redact_value(k, v)[0]) if isinstance(v, str) else _walk(v, safe)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(v, safe) for v in node]
    return node
