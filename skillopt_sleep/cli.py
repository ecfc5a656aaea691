"""The ``skillopt-sleep`` command: parse, call the library, render. No logic lives here."""

from __future__ import annotations

import importlib
import sys

import typer

from .commands import MODULES
from .errors import SkillOptError

app = typer.Typer(
    name="skillopt-sleep",
    help="Nightly, offline, validation-gated self-evolution of coding-agent skills.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in MODULES:
    importlib.import_module(f".commands.{_module}", __package__).register(app)


def main() -> None:
    """Console entry point: library errors become a one-line message and their exit code."""
    try:
        app(standalone_mode=False)
    except SkillOptError as exc:
        print(f"skillopt-sleep: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        raise
