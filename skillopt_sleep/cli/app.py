"""The ``skillopt-sleep`` command: parse, call the library, render. No logic lives here."""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperOption

from skillopt_sleep.cli import MODULES
from skillopt_sleep.errors import SkillOptError

_value_type = TyperOption.display_type_rich


def _flag_type(option: TyperOption, ctx: Any) -> str | None:
    """A flag takes no value, so its help shows no ``<bool>`` placeholder (typer 0.29 prints
    one for every flag, ``--help`` included)."""
    return None if option.is_flag else _value_type(option, ctx)


TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]

app = typer.Typer(
    name="skillopt-sleep",
    help="Nightly, offline, validation-gated self-evolution of coding-agent skills.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in MODULES:
    importlib.import_module(f"skillopt_sleep.cli.{_module}").register(app)


def _version(value: bool) -> None:
    if value:
        from skillopt_sleep import __version__

        typer.echo(f"skillopt-sleep {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool | None, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = None,
) -> None:
    """Nightly, offline, validation-gated self-evolution of coding-agent skills."""


def main() -> None:
    """Console entry point: library errors become a one-line message and their exit code.

    Usage errors (unknown options, bad values) are reported by click itself with exit 2.
    """
    try:
        app()
    except SkillOptError as exc:
        print(f"skillopt-sleep: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
