"""The documentation's reference pages, generated from the code so they cannot drift.

``python -m skillopt_sleep.cli.reference docs/reference`` writes ``configuration.md`` (every
``Settings`` key: its type, default, range or valid values, environment variable and the
docstring under it in ``config.py``) and ``cli.md`` (every command and option, from the
typer app). ``tests/test_docs.py`` fails when a committed page differs from what this
module writes now.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import sys
from pathlib import Path
from typing import Any

from skillopt_sleep import config, tables
from skillopt_sleep.cli.exit_codes import EXIT_CODES

__all__ = ["EXIT_CODES", "cli_reference", "config_reference", "exit_codes_table", "write"]


# Where a string key's valid values live, so the page lists them as the checks do.
_CHOICES: dict[str, Any] = {
    "adopt": lambda: ", ".join(config.ADOPT_POLICIES),
    "gate_test": lambda: tables.GATE_TESTS.valid(),
    "budget_schedule": lambda: tables.BUDGET_SCHEDULES.valid(),
    "embedder": lambda: tables.EMBEDDERS.valid(),
    "sources": lambda: tables.SOURCES.valid(),
    "cache": lambda: "record, replay-only (empty: none)",
    "target": lambda: tables.MODELS.valid(),
    "optimizer": lambda: tables.MODELS.valid(),
}


def field_docs() -> dict[str, str]:
    """Each ``Settings`` field's docstring (the string literal under it in ``config.py``)."""
    tree = ast.parse(inspect.getsource(config.Settings))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _default(spec: dataclasses.Field[Any]) -> str:
    factory = spec.default_factory
    value = spec.default if factory is dataclasses.MISSING else factory()
    if value is None or value in ("", (), {}):
        return "(empty)" if value is not None else "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(value)
    return str(value)


def _type(spec: dataclasses.Field[Any]) -> str:
    text = str(spec.type)
    return {"tuple[str, ...]": "list of strings", "str | None": "string",
            "str": "string", "int": "integer", "float": "number", "bool": "boolean",
            }.get(text, "table")


def config_reference() -> str:
    """The configuration page: one section per key, in ``Settings`` order."""
    docs = field_docs()
    out = [
        "# Configuration reference",
        "",
        "Generated from `skillopt_sleep/config.py` by "
        "`python -m skillopt_sleep.cli.reference docs/reference`; do not edit by hand.",
        "",
        "Settings are layered: defaults < the user `config.toml` "
        f"(`skillopt-sleep doctor` prints its path) < the project's `{config.PROJECT_FILE}` "
        "< environment variables `SKILLOPT_SLEEP_<KEY>` < command-line flags. Every layer is "
        "checked against the same schema: an unknown key, a value of the wrong type or out of "
        "range is an error that names the key and where it came from.",
        "",
    ]
    for spec in dataclasses.fields(config.Settings):
        key = spec.name
        out += [f"## `{key}`", "", docs.get(key, "").replace("``", "`"), ""]
        out.append(f"- type: {_type(spec)}; default: `{_default(spec)}`")
        if key in config.RANGES:
            out.append(f"- range: {config.RANGES[key]}")
        if key in _CHOICES:
            out.append(f"- valid values: {_CHOICES[key]()}")
        if _type(spec) != "table":
            out.append(f"- environment: `SKILLOPT_SLEEP_{key.upper()}`")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _option_row(param: Any) -> str:
    names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    helptext = " ".join((getattr(param, "help", None) or "").split())
    if param.param_type_name == "argument":
        names = f"`{(param.name or '').upper()}`"
        helptext = helptext or "argument"
    cell = helptext.replace("|", "\\|")
    return f"| {names} | {cell} |"


def _command_section(path: str, command: Any) -> list[str]:
    out = [f"## `{path}`", ""]
    helptext = inspect.cleandoc(command.help or "")
    if helptext:
        out += [helptext.split("\b")[0].strip(), ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        out += ["| option | what it does |", "|---|---|"]
        out += [_option_row(p) for p in params]
        out.append("")
    return out


def _walk(path: str, command: Any) -> list[str]:
    """Every leaf command under ``command`` (typer's groups are duck-typed: typer 0.29
    carries its own click, so ``click.Group`` is not their base)."""
    out: list[str] = []
    if hasattr(command, "list_commands"):
        ctx = command.context_class(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _walk(f"{path} {name}", sub)
        return out
    return _command_section(path, command)


def cli_reference() -> str:
    """The CLI page: every command, its help and its options, from the typer app."""
    import typer

    from skillopt_sleep.cli.app import app

    root = typer.main.get_command(app)
    out = ["# CLI reference", "",
           "Generated from the typer app by "
           "`python -m skillopt_sleep.cli.reference docs/reference`; do not edit by hand.",
           "", *_walk("skillopt-sleep", root), "## Exit codes", "", exit_codes_table()]
    return "\n".join(out).rstrip() + "\n"


def exit_codes_table() -> str:
    rows = "\n".join(f"| {code} | {text} |" for code, _, text in EXIT_CODES)
    return f"| code | meaning |\n|---|---|\n{rows}\n"


PAGES = {"configuration.md": config_reference, "cli.md": cli_reference}


def write(folder: Path) -> list[Path]:
    """Write every reference page into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, render in PAGES.items():
        target = folder / name
        target.write_text(render(), encoding="utf-8")
        written.append(target)
    return written


if __name__ == "__main__":  # pragma: no cover - the docs' regeneration command
    for page in write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/reference")):
        print(page)
