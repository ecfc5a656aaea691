"""The ``--json`` option and its printer, shared by the command modules that print JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]


def emit(data: Any) -> None:
    """One JSON value on one line of standard output."""
    typer.echo(json.dumps(data, default=str))
