"""The console entry point: parse, call the library, render; one line for every failure,
and with ``--json`` one JSON object on stdout for it too.

Start-up is kept small: bare ``--help`` is printed from a generated table (``top_help``)
``status``, ``status --json`` and ``run --json`` run without typer (``cli.status``,
``cli.run_json``), and any other command line builds the typer app from the one module
that owns its command, so ``versions`` does not import the firewall, the proof or the MCP
server. The standard library is all this
module imports before it knows what it has to run.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Sequence
from typing import NoReturn

COMMANDS: dict[str, str] = {
    "run": "pipeline", "status": "pipeline", "report": "pipeline",
    "adopt": "writeback", "rollback": "writeback", "versions": "writeback",
    "doctor": "doctor", "enroll": "daemon", "unenroll": "daemon", "daemon": "daemon",
    "claude-alias": "claude_alias", "mcp": "mcp",
    "harvest": "harvest", "mine": "mining", "tasks": "mining", "recall": "mining",
    "lint": "core", "prove": "core",
}
"""Each command's module in ``skillopt_sleep.cli`` (a test checks it against the app)."""

PLAIN = (["status"], ["status", "--json"], ["run", "--json"])
"""The command lines run without building the typer app (``cli.status``, ``cli.run_json``):
the command a user runs most, and the nightly one, whose night often has nothing new."""


def modules_for(args: Sequence[str]) -> tuple[str, ...]:
    """The command modules a command line needs: its command's, or all of them when it
    names none (top-level options, a typo: click's message then lists every command)."""
    from skillopt_sleep.cli import MODULES

    module = COMMANDS.get(args[0]) if args else None
    return (module,) if module else MODULES


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: library errors become a one-line message and their exit code.

    Usage errors (unknown options, bad values) are reported by click itself with exit 2.
    A file the user's machine will not let us read or write, and an archive whose pages
    turn out damaged mid-command, get one line too: never a traceback. With ``--json``,
    every failure is also one ``{"error": {"code", "message"}}`` object on stdout, with the
    same exit code. Everything written to stdout and stderr is redacted (``guarded``).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--help"]:
        from skillopt_sleep.cli.top_help import program_name, render

        sys.stdout.write(render(program_name(), None if sys.stdout.isatty() else 80))
        return
    from skillopt_sleep import paths
    from skillopt_sleep.cli._redacting import guarded
    from skillopt_sleep.secrets.vendor import keep_rules_in

    # A night id in a line is a long token run, which needs detect-secrets' vendor rules:
    # kept in the cache folder, they cost a file read instead of its import (~75 ms).
    keep_rules_in(lambda: paths.cache_dir() / "vendor-rules.json")
    with guarded():
        if args in PLAIN:
            _plain(args)
        else:
            _main(args)


def _plain(args: list[str]) -> None:
    """A command line of ``PLAIN`` as the typer app runs it, ending as the app ends: a
    failure is one line (and one JSON object), Ctrl-C exits 130, a pipe closed early ends
    quietly with 1, and a night's own exit code (waiting, failed) is the process's."""
    from skillopt_sleep.cli import _json

    as_json = args[-1] == "--json"
    _json.reset()
    code = 0
    try:
        if args[0] == "run":
            from skillopt_sleep.cli import run_json

            code = run_json.main()
        else:
            from skillopt_sleep.cli.status import show

            show(as_json)
    except KeyboardInterrupt:
        _exit(130, as_json=as_json)  # typer: Exit(130)
    except Exception as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE and not as_json:
            sys.exit(1)  # click's standalone mode; under --json it is a failure like any
        failure = _failure(exc)
        if failure is None:
            raise
        _fail(*failure, as_json=as_json)
    if code:
        _exit(code, as_json=as_json)


def _main(args: list[str]) -> None:
    from skillopt_sleep.cli import _json
    from skillopt_sleep.cli._build import build

    as_json = _json.wanted(args)
    _json.reset()  # a count per command line (tests call main more than once)
    modules = modules_for(args)
    app = build(modules, only=args[0] if len(modules) == 1 else None)
    try:
        # Outside --json, click prints its own usage errors (typer's panels) and exits.
        code = app(args=args, standalone_mode=not as_json)
    except Exception as exc:
        failure = _failure(exc)
        if failure is None:
            raise
        _fail(*failure, as_json=as_json)
    if isinstance(code, int) and code:  # only under --json: click returns typer.Exit's code
        _exit(code, as_json=True)


def _exit(code: int, *, as_json: bool) -> NoReturn:
    """Exit with ``code``; under --json, after one error object if nothing printed one."""
    from skillopt_sleep.cli import _json

    if as_json and not _json.emitted():
        _fail(f"stopped with exit code {code}; the reason is on standard error", code,
              as_json=True)
    sys.exit(code)


def _failure(exc: Exception) -> tuple[str, int] | None:
    """What a failure says and its exit code; None for a bug (its traceback is the report)."""
    import sqlite3

    from skillopt_sleep.errors import SkillOptError

    typer = sys.modules.get("typer")  # not loaded (plain status): not one of its exceptions
    if typer is not None and isinstance(exc, typer.TyperException):
        return exc.format_message(), exc.exit_code  # a usage error: here only under --json
    if typer is not None and isinstance(exc, typer.Abort):
        return "aborted", 1
    if isinstance(exc, SkillOptError):
        return str(exc), exc.exit_code
    if isinstance(exc, sqlite3.DatabaseError):
        from skillopt_sleep import paths
        from skillopt_sleep.archive.db import damaged

        return damaged(paths.archive_path(), str(exc), "the command stopped there"), 1
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", 1
    return None


def _fail(message: str, code: int, *, as_json: bool) -> NoReturn:
    print(f"skillopt-sleep: error: {message}", file=sys.stderr)
    from skillopt_sleep.cli import _json

    if as_json and not _json.emitted():  # a command that printed its object said it there
        _json.emit({"error": {"code": code, "message": message}})
    sys.exit(code)
