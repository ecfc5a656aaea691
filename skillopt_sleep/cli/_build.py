"""The typer app, built from the command modules it needs: all of them for ``app.py`` (the
reference, the tests), only the one that owns the command being run for the entry point,
so ``status`` does not import the firewall, the proof or the MCP server to print a table."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import TyperOption, _TyperParameter

from skillopt_sleep.cli._text import plain_help
from skillopt_sleep.cli.exit_codes import EXIT_CODES

__all__ = ["EPILOG", "PANELS", "SUMMARY", "build", "plain_help"]

_value_type = TyperOption.display_type_rich


def _flag_type(option: TyperOption, ctx: Any) -> str | None:
    """A flag takes no value, so its help shows no ``<bool>`` placeholder (typer 0.29 prints
    one for every flag, ``--help`` included)."""
    return None if option.is_flag else _value_type(option, ctx)


TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]

@dataclass(frozen=True)
class _BuiltOnFirstValue(RuntimeParam):
    """An option's coercion, built when a value arrives. Typer 0.29 builds a pydantic
    TypeAdapter for every option it processes, a left-out one included, only to pass its
    ``None`` through: that put pydantic's import (0.1-0.2 s of CPU) into every command's
    start-up. ``RuntimeParam.coerce`` answers ``None`` itself; a real value builds typer's
    own coercion, which then replaces this one."""

    descriptor: Any = None

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Any) -> Any:
        plain = _plain_value(self.descriptor, value, param, ctx)
        if plain is not _NOT_PLAIN:
            return plain
        real = build_runtime_param(self.descriptor)
        param._runtime_param = real
        return real._coerce_value(value, param=param, ctx=ctx)


_NOT_PLAIN = object()
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _plain_value(descriptor: Any, value: Any, param: _TyperParameter, ctx: Any) -> Any:
    """A ``str``, ``Path``, ``int`` or ``float`` option's value as typer's pydantic adapter
    gives it, without building that adapter (pydantic's import and a schema per option,
    0.1-0.2 s of CPU: most of a ``mine`` pass that adds 1 % to a long history). Anything
    else, or a value these rules would not read plainly, is ``_NOT_PLAIN``: typer's own
    coercion then decides, and words its errors, as before."""
    info = descriptor.parameter_info
    if not isinstance(value, str) or info.parser is not None or info.min is not None \
            or info.max is not None or info.clamp:
        return _NOT_PLAIN
    annotation = descriptor.annotation
    if annotation is str:
        return value
    if annotation is int and _INT.fullmatch(value):
        return int(value)
    if annotation is float and _FLOAT.fullmatch(value):
        return float(value)
    if annotation is Path and info.path_type is None:
        # typer's own path checks (exists, readable, …) with the value already a Path,
        # which is all its adapter adds
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    return _NOT_PLAIN


def _deferred_runtime_param(self: _TyperParameter) -> RuntimeParam:
    if self._runtime_param is None:
        d = self.type_descriptor
        self._runtime_param = _BuiltOnFirstValue(
            parameter_info=d.parameter_info, annotation=d.annotation, descriptor=d)
    return self._runtime_param


_TyperParameter.get_runtime_param = _deferred_runtime_param  # type: ignore[method-assign]

SUMMARY = "Nightly, offline, validation-gated self-evolution of coding-agent skills."

PANELS: dict[str, tuple[str, ...]] = {
    "The daily loop": ("run", "status", "report", "adopt", "rollback", "versions"),
    "Set-up": ("doctor", "enroll", "unenroll", "daemon", "claude-alias", "mcp"),
    "Each stage on its own": ("harvest", "mine", "tasks", "recall", "lint"),
    "The proof": ("prove",),
}
"""``--help``'s panels, in the order a user meets them; every command is in one."""
_ORDER = {name: i for i, name in enumerate(n for names in PANELS.values() for n in names)}

EPILOG = ("Exit codes: " + "; ".join(f"{code} {short}" for code, short, _ in EXIT_CODES)
          + ". The docs' CLI reference says when each is used.")


def _panel_of(name: str) -> str:
    return next(panel for panel, names in PANELS.items() if name in names)


def _version(value: bool) -> None:
    if value:
        from skillopt_sleep import __version__

        typer.echo(f"skillopt-sleep {__version__}")
        raise typer.Exit()


def _options(
    # A plain bool (not ``bool | None``): typer coerces a None default through pydantic,
    # which would put pydantic's import into every command's start-up.
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Nightly, offline, validation-gated self-evolution of coding-agent skills."""


def build(modules: Iterable[str], only: str | None = None) -> typer.Typer:
    """The app with the commands of ``modules`` (names in ``skillopt_sleep.cli.MODULES``),
    in their panels and ``--help`` order, every help text plain; with ``only``, that one
    command of them (typer reads every registered command's signature, ``run``'s twenty
    options included, before it runs one)."""
    app = typer.Typer(name="skillopt-sleep", help=SUMMARY, no_args_is_help=True,
                      add_completion=False, pretty_exceptions_enable=False, epilog=EPILOG)
    app.callback()(_options)
    for module in modules:
        importlib.import_module(f"skillopt_sleep.cli.{module}").register(app)
    if only is not None:
        app.registered_commands[:] = [c for c in app.registered_commands if c.name == only]
        app.registered_groups[:] = [g for g in app.registered_groups if g.name == only]
    for command in app.registered_commands:
        command.rich_help_panel = _panel_of(command.name or "")
    for group in app.registered_groups:
        group.rich_help_panel = _panel_of(group.name or "")
    for each in [app, *(g.typer_instance for g in app.registered_groups if g.typer_instance)]:
        for info in each.registered_commands:
            info.help = plain_help(info.help or inspect.getdoc(info.callback))
    app.registered_commands.sort(key=lambda info: _ORDER[info.name or ""])
    app.registered_groups.sort(key=lambda info: _ORDER[info.name or ""])
    return app
