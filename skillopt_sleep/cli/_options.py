"""Options several command modules share (typer's: apart from ``_json``, whose printer the
plain ``status`` path uses without loading typer)."""

from __future__ import annotations

from typing import Annotated

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]
