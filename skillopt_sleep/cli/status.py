"""``skillopt-sleep status``: the command a user runs most, so it starts light.

The entry point runs ``status`` and ``status --json`` here without building the typer app
(``status --help`` and any other option still go through typer, whose ``status`` command
calls ``show`` too). What it loads: the configuration (validated as ``run`` validates it),
the archive, the staging folder's manifests and the daemon's files; no typer, click or rich.
Lines are written as ``typer.echo`` writes them: colour only on a terminal, and a line that
carries colour codes of its own to a pipe goes through ``typer.echo`` itself, which strips
them (``tests/test_cli_status_plain.py`` holds the two writers to the same bytes).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep import config, paths
from skillopt_sleep.stamps import minute

if TYPE_CHECKING:
    from skillopt_sleep.pipeline.status import Status

__all__ = ["show", "style"]

_SGR = {"red": 31, "yellow": 33}
"""The colours status uses, as click numbers them (``typer.style``'s ``fg``)."""
_RESET = "\x1b[0m"


def style(text: str, fg: str, *, bold: bool = False) -> str:
    """``typer.style(text, fg=fg, bold=bold)``, byte for byte (a test compares them)."""
    return f"\x1b[{_SGR[fg]}m" + ("\x1b[1m" if bold else "") + text + _RESET


def _plain(text: str, fg: str, *, bold: bool = False) -> str:
    return text


def _printer() -> tuple[Callable[[str], None], Callable[..., str]]:
    """How to write a line, and how to colour a word: ``typer.echo`` and ``typer.style`` as
    they behave here. On a terminal the line is wrapped to its width (a pipe gets whole
    lines, for grep) and keeps its colour; to a pipe, click would strip every colour code,
    so none is added, and a line holding one of its own goes through click to be stripped."""
    out = sys.stdout
    if not out.isatty():
        def write(line: str) -> None:
            if "\x1b" in line:
                import typer

                typer.echo(line)
                return
            out.write(line + "\n")
            out.flush()

        return write, _plain
    import shutil
    import textwrap

    width = shutil.get_terminal_size((80, 24)).columns

    def wrapped(line: str) -> None:
        out.write(textwrap.fill(line, width, subsequent_indent="    ") + "\n")
        out.flush()

    return wrapped, style


def rows(found: Status, enrolled: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The status as ``kind -> rows``, the shape both renderings walk."""
    return {
        "enrolled": enrolled,
        "alert": [{"alert": f.alert, **asdict(f)} for f in found.failing
                  if f.alert in found.alerts],
        "night": [asdict(n) for n in found.nights],
        "pending": [asdict(p) for p in found.pending],
        "adopted": [asdict(a) for a in found.adopted],
        "skipped": [asdict(s) for s in found.skipped],
        "journal": [{"note": note} for note in found.journal],
    }


def print_lines(found: dict[str, list[dict[str, Any]]]) -> None:
    say, paint = _printer()
    for a in found["alert"]:  # first, before anything else: nobody has fixed it for days
        say(f"{paint('ALERT', 'red', bold=True)}: {a['alert']}")
    say(f"state: {paths.state_dir()}")
    for e in found["enrolled"]:
        served = "daemon running" if e["daemon_running"] else \
            "no daemon running: skillopt-sleep daemon install"
        say(f"enrolled {e['project']}: nightly at {e['at']}, next run {e['next_run']},"
            f" adopt {e['adopt']} ({served})")
    for n in found["night"]:
        if n["failed"]:
            say(f"night {n['night_id']} {n['skill'] or '(no skill)'}: "
                f"{paint('failed', 'red')} ({n['failed']})")
            continue
        note = n["abstained"] or n["stopped"]
        say(f"night {n['night_id']} {n['skill']}: {n['status']}, {n['accepted']} accepted"
            + (f" ({note})" if note else ""))
        for warning in n["warnings"]:
            say(f"  {paint('warning', 'yellow')}: {warning}")
    for s in found["skipped"]:
        say(f"last run of {s['project']} at {minute(s['at'])}: skipped, {s['reason']}")
    for p in found["pending"]:
        say(f"{paint('pending review', 'yellow')}: {p['skill']} from night {p['night_id']} "
            f"(skillopt-sleep adopt {p['night_id']} --skill {p['skill']})")
    for a in found["adopted"]:
        where = ", ".join(f"{t} ({state})" for t, state in a["on_disk"].items())
        say(f"adopted {a['skill']} v{a['version']} ({a['reason']}) at {where}")
    for row in found["journal"]:
        say(f"{paint('write-back', 'yellow')}: {row['note']}")


def show(as_json: bool) -> None:
    """What the last nights did, what is pending review, what is adopted where."""
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.daemon.status import schedule
    from skillopt_sleep.pipeline.status import status

    config.load(Path.cwd())  # the settings a run here would refuse, status refuses too
    archive = Archive(paths.archive_path())
    try:
        current = status(archive)
    finally:
        archive.close()
    found = rows(current, schedule())
    if not as_json:
        print_lines(found)
        return
    from skillopt_sleep.cli._json import emit

    for kind, kind_rows in found.items():
        for row in kind_rows:
            emit({"kind": kind, **row})
    summary = {kind: len(kind_rows) for kind, kind_rows in found.items()}
    emit({"summary": {
        "nights": summary["night"],
        "pending": summary["pending"],
        "adopted": summary["adopted"],
        "skipped": summary["skipped"],
        "enrolled": summary["enrolled"],
        "journal": summary["journal"],
        "failed_in_a_row": max((f.failed_in_a_row for f in current.failing), default=0),
        "alerts": current.alerts,
        "state_dir": str(paths.state_dir()),
    }})
