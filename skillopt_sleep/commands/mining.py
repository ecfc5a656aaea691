"""Commands of this area are registered here (filled in by the part that owns it)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
