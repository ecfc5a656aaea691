"""``skillopt-sleep claude-alias install|uninstall``: a bare ``/skillopt-sleep`` in Claude Code.

Claude Code namespaces every plugin command: the plugin's command answers only to
``/skillopt-sleep:skillopt-sleep`` (measured with claude 2.1.330; a bare ``/skillopt-sleep``
reaches the model as plain text). A personal command, ``$CLAUDE_CONFIG_DIR/commands/
skillopt-sleep.md`` (default ``~/.claude/commands``), is not namespaced. This opt-in command
writes one holding the plugin's own command text, marked as ours, and removes it again.

A file of that name the user wrote is never replaced without asking: on a terminal the
command asks, elsewhere it refuses unless ``--force``, and a replaced file is backed up
beside it first. ``uninstall`` removes only a file that carries our mark.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from skillopt_sleep import paths
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import ConfigError

alias_app = typer.Typer(
    help="A bare /skillopt-sleep in Claude Code (plugin commands are namespaced "
         "/skillopt-sleep:skillopt-sleep): install or remove a personal command that runs it.",
    no_args_is_help=True,
)

MARK = ("<!-- written by `skillopt-sleep claude-alias install`; "
        "`skillopt-sleep claude-alias uninstall` removes it -->")


def register(app: typer.Typer) -> None:
    """Add the ``claude-alias`` group to ``app``."""
    app.add_typer(alias_app, name="claude-alias")


def alias_path() -> Path:
    """Where Claude Code reads personal commands from."""
    return paths.claude_home() / "commands" / "skillopt-sleep.md"


def alias_text() -> str:
    """The plugin's command text (shipped in the package), with our mark after its
    frontmatter, where Claude Code does not show it as the description."""
    text = resources.files("skillopt_sleep.cli").joinpath("claude_command.md").read_text(
        encoding="utf-8")
    _, head, body = text.split("---\n", 2)
    return f"---\n{head}---\n{MARK}\n{body}"


def _ours(path: Path) -> bool:
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


@alias_app.command("install")
def install_command(
    force: Annotated[bool, typer.Option(
        "--force", help="replace a file of that name you wrote (backed up beside it first)")]
    = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print, write nothing")] = False,
) -> None:
    """Write the personal command ~/.claude/commands/skillopt-sleep.md (opt-in)."""
    path, text = alias_path(), alias_text()
    if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text:
        typer.echo(f"already installed: {path}")
        return
    backup = None
    if path.exists() and not _ours(path):
        if not (force or _asked(path)):
            raise ConfigError(
                f"{path} exists and was not written by skillopt-sleep; left as it is "
                "(--force replaces it, keeping a backup beside it)")
        backup = path.with_name(f"{path.name}.{datetime.now(UTC):%Y%m%d-%H%M%S}.bak")
    if dry_run:
        typer.echo(f"would write {path}" + (f" (backing up the old file to {backup})"
                                            if backup else ""))
        return
    if backup is not None:
        shutil.copy2(path, backup)
        typer.echo(f"backed up your file to {backup}")
    write_atomic(path, text.encode("utf-8"))
    typer.echo(f"wrote {path}: /skillopt-sleep now runs the plugin's command "
               "(/skillopt-sleep:skillopt-sleep); start a new Claude Code session")


def _asked(path: Path) -> bool:
    """On a terminal, ask before replacing the user's own file; elsewhere, never."""
    from skillopt_sleep.cli._console import is_terminal

    if not is_terminal(stderr=False):
        return False
    return typer.confirm(f"{path} was not written by skillopt-sleep. Replace it (a backup "
                         "is kept beside it)?", default=False)


@alias_app.command("uninstall")
def uninstall_command() -> None:
    """Remove the personal command, only if skillopt-sleep wrote it."""
    path = alias_path()
    if not path.exists():
        typer.echo(f"nothing to remove: {path} does not exist")
        return
    if not _ours(path):
        raise ConfigError(f"{path} was not written by skillopt-sleep; left as it is")
    path.unlink()
    typer.echo(f"removed {path}; the plugin's command stays /skillopt-sleep:skillopt-sleep")
