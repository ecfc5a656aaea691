"""The ``skillopt-sleep`` command: parse, call the library, render. No logic lives here."""

from __future__ import annotations

import importlib
import inspect
import sqlite3
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperOption

from skillopt_sleep.cli import MODULES
from skillopt_sleep.cli.exit_codes import EXIT_CODES
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

PANELS: dict[str, tuple[str, ...]] = {
    "The daily loop": ("run", "status", "report", "adopt", "rollback", "versions"),
    "Set-up": ("doctor", "enroll", "unenroll", "daemon", "claude-alias", "mcp"),
    "Each stage on its own": ("harvest", "mine", "tasks", "recall", "lint"),
    "The proof": ("prove",),
}
"""``--help``'s panels, in the order a user meets them; every command is in one."""
_ORDER = {name: i for i, name in enumerate(n for names in PANELS.values() for n in names)}


def _panel_of(name: str) -> str:
    return next(panel for panel, names in PANELS.items() if name in names)


def plain_help(doc: str | None) -> str | None:
    """A docstring as ``--help`` shows it: each paragraph on one line (the terminal wraps
    it; a docstring's own line breaks would cut sentences in two) and no reST backticks."""
    if not doc:
        return doc
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()).replace("``", "").replace("`", "")
                       for p in paragraphs)


for _command in app.registered_commands:
    _command.rich_help_panel = _panel_of(_command.name or "")
for _typer in app.registered_groups:
    _typer.rich_help_panel = _panel_of(_typer.name or "")
for _group in [app, *(g.typer_instance for g in app.registered_groups if g.typer_instance)]:
    for _info in _group.registered_commands:
        _info.help = plain_help(_info.help or inspect.getdoc(_info.callback))
app.info.epilog = ("Exit codes: " + "; ".join(f"{code} {short}" for code, short, _ in EXIT_CODES)
                   + ". The docs' CLI reference says when each is used.")
app.registered_commands.sort(key=lambda info: _ORDER[info.name or ""])
app.registered_groups.sort(key=lambda info: _ORDER[info.name or ""])


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
    A file the user's machine will not let us read or write, and an archive whose pages
    turn out damaged mid-command, get one line too: never a traceback. Everything the
    command writes to stdout and stderr, errors included, is redacted (``guarded``).
    """
    from skillopt_sleep.cli._console import guarded

    with guarded():
        _main()


def _main() -> None:
    try:
        app()
    except SkillOptError as exc:
        _fail(str(exc), exc.exit_code)
    except sqlite3.DatabaseError as exc:
        from skillopt_sleep import paths
        from skillopt_sleep.archive.db import damaged

        _fail(damaged(paths.archive_path(), str(exc), "the command stopped there"), 1)
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        _fail(f"{exc.strerror or exc}{where}", 1)


def _fail(message: str, code: int) -> None:
    print(f"skillopt-sleep: error: {message}", file=sys.stderr)
    sys.exit(code)
