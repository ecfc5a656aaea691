"""The ``--json`` option and its printer, shared by the command modules that print JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from skillopt_sleep.secrets import redact_tree

JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]


def emit(data: Any, *, ensure_ascii: bool = True) -> None:
    """One JSON value on one line of standard output, every string in it redacted (a base
    URL, an error, a path: whatever a command prints, it prints no secret)."""
    plain = json.loads(json.dumps(data, default=str))  # records, dates, paths as JSON has them
    typer.echo(json.dumps(redact_tree(plain), ensure_ascii=ensure_ascii))
