"""The ``--json`` printer, shared by the command modules that print JSON (the option itself
is ``_options.JsonOpt``). Standard library only: the plain ``status`` path prints with it
and loads no typer."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.secrets import redact_tree

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
    sys.stdout.write(json.dumps(redact_tree(plain), ensure_ascii=ensure_ascii) + "\n")
    sys.stdout.flush()
    _printed[0] += 1
