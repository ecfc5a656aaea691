"""Core commands: ``prove`` and ``lint``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the core commands to ``app``."""
