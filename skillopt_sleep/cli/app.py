"""The ``skillopt-sleep`` command with every subcommand: what the reference, the tests and
``python -m skillopt_sleep.cli.app`` use. The console entry point (``entry.main``) builds
only the part a command line needs. No logic lives here."""

from __future__ import annotations

from skillopt_sleep.cli import MODULES
from skillopt_sleep.cli._build import PANELS, build, plain_help
from skillopt_sleep.cli.entry import main

__all__ = ["PANELS", "app", "main", "plain_help"]

app = build(MODULES)
