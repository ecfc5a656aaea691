"""``skillopt-sleep harvest``: read the agents' transcripts into the archive."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from skillopt_sleep.cli._json import emit
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.paths import archive_path
from skillopt_sleep.records import Session, to_dict
from skillopt_sleep.secrets import redact
from skillopt_sleep.tables import SOURCES

if TYPE_CHECKING:  # the harvesters load only when the command runs (fast --help)
    from skillopt_sleep.harvest.base import HarvestStats

SOURCE_NAMES = SOURCES.names(plugins=False)

SourceOption = Annotated[
    str, typer.Option("--source", help=f"One of {', '.join(SOURCE_NAMES)}, or all.")
]
PathOption = Annotated[
    Path | None,
    typer.Option(
        "--path", help="A directory laid out as the agent lays it out (needs one --source)."
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since", help="Only sessions that ended at or after this ISO time (with a zone)."
    ),
]
ProjectOption = Annotated[
    str | None,
    typer.Option("--project", help="Only sessions of this project (its git root, or the folder)."),
]


def register(app: typer.Typer) -> None:
    """Add the ``harvest`` command to ``app``."""
    app.command("harvest")(harvest_command)


def harvest_command(
    source: SourceOption = "all",
    path: PathOption = None,
    since: SinceOption = None,
    project: ProjectOption = None,
    include_headless: Annotated[
        bool,
        typer.Option(
            "--include-headless", help="Also return headless sessions (claude -p, codex exec)."
        ),
    ] = False,
    rescan: Annotated[
        bool, typer.Option("--rescan", help="Ignore checkpoints and read every file again.")
    ] = False,
    next_night: Annotated[bool, typer.Option(
        "--next-night", help="List every session the next night will learn from (archived "
        "since the project's last night, by any harvest or the daemon), not only new ones.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines output.")] = False,
) -> None:
    """Harvest new agent sessions into the archive and print them."""
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.ingest import harvest
    from skillopt_sleep.archive.sessions import unlearned_sessions
    from skillopt_sleep.harvest.base import HarvestStats, parse_since
    from skillopt_sleep.harvest.sources import Filter, make_source

    names = _names(source, path)
    wanted = Filter(parse_since(since), project, include_headless)
    stats = HarvestStats()
    sources = [make_source(n, path, stats=stats) for n in names]
    archive = Archive(archive_path())
    listed = 0
    try:
        archive.verify()
        found = harvest(archive, sources, wanted, rescan=rescan)
        if next_night:  # what this pass found is archived; list it with the rest below
            for _ in found:
                pass
            found = (s for s in unlearned_sessions(archive, wanted.project, wanted.since,
                                                   include_headless=include_headless)
                     if s.source in names)
        for session in found:
            listed += 1
            _print_session(session, as_json)
    finally:
        archive.close()
    _print_summary(stats, as_json, listed, next_night)


def _names(source: str, path: Path | None) -> list[str]:
    if source == "all":
        if path is not None:
            raise ConfigError(
                "--path needs a single --source (each agent lays out its files differently)"
            )
        return list(SOURCE_NAMES)
    if source not in SOURCE_NAMES:
        raise ConfigError(
            f"unknown --source {source!r}; choose one of {', '.join(SOURCE_NAMES)}, all"
        )
    if path is not None and not path.is_dir():
        raise ConfigError(f"--path {path} is not a directory")
    return [source]


def _print_session(session: Session, as_json: bool) -> None:
    if as_json:
        emit(to_dict(session), ensure_ascii=False)
        return
    first = session.turns[0].request.splitlines()[0][:70] if session.turns else ""
    ended = session.ended_at.strftime("%Y-%m-%d %H:%M") if session.ended_at else "?"
    typer.echo(
        f"{session.source:15} {ended}  {len(session.turns):3} turns  {session.project}  {first}"
    )


def _print_summary(stats: HarvestStats, as_json: bool, listed: int, next_night: bool) -> None:
    summary = stats.as_dict() | {"listed": listed, "next_night": next_night}
    hints = _hints(stats, listed, next_night)
    if as_json:
        emit({"summary": summary | {"hints": hints}}, ensure_ascii=False)
        return
    by_source = ", ".join(f"{k} {v}" for k, v in summary["sessions_by_source"].items()) or "none"
    typer.echo(
        f"harvested: {by_source}; listed {listed}; files read {summary['files_read']}, "
        f"unchanged {summary['files_unchanged']}, failed {summary['files_failed']}; lines "
        f"skipped {summary['lines_skipped']}; secrets redacted {summary['secrets_redacted']}",
        err=True,
    )
    for error in _failed_files(stats):
        typer.echo(f"failed: {error}", err=True)
    for hint in hints:
        typer.echo(f"hint: {hint}", err=True)


FAILED_SHOWN = 10


def _failed_files(stats: HarvestStats) -> list[str]:
    """Each file the summary counts as failed, named with why (redacted: an error can quote
    what it read), at most ``FAILED_SHOWN`` and a count of the rest."""
    shown = [redact(error)[0] for error in stats.errors[:FAILED_SHOWN]]
    rest = max(stats.files_failed, len(stats.errors)) - len(shown)
    return shown + ([f"{rest} more (--json lists up to 20)"] if rest > 0 else [])


def _hints(stats: HarvestStats, listed: int, next_night: bool) -> list[str]:
    """Why fewer sessions were listed than harvested, and the flag that shows them."""
    hints = []
    headless = stats.dropped.get("headless", 0)
    if headless:
        hints.append(f"{headless} headless session(s) (claude -p, codex exec, copilot -p) were "
                     "archived but not listed: add --include-headless")
    if not listed and stats.files_unchanged and not next_night:
        hints.append(f"{stats.files_unchanged} file(s) unchanged since an earlier harvest: "
                     "their sessions are already archived (--next-night lists what the next "
                     "night will learn from; --rescan reads every file again)")
    return hints
