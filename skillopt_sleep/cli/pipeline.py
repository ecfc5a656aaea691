"""Pipeline commands: run, status, report, adopt, rollback, versions, doctor."""

from __future__ import annotations

import json
import webbrowser
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from skillopt_sleep import config, paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.cli._json import JsonOpt, emit
from skillopt_sleep.harvest.base import project_of
from skillopt_sleep.pipeline.status import Status, staged_night, status
from skillopt_sleep.publish import adopt as adoption

err = Console(stderr=True)
def _project(project: str | None) -> Path:
    return Path(project_of(project or str(Path.cwd())))


def run_cmd(
    project: Annotated[str | None, typer.Option(help="project folder (default: cwd)")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="stage nothing, write no state")
    ] = False,
    adopt: Annotated[
        str | None, typer.Option(help="review (stage only) or auto (write back)")
    ] = None,
    target: Annotated[str | None, typer.Option(help="target model spec")] = None,
    optimizer: Annotated[str | None, typer.Option(help="optimizer model spec")] = None,
    base_url: Annotated[str | None, typer.Option(help="base URL for openai kinds")] = None,
    max_usd_per_night: Annotated[float | None, typer.Option(help="dollar cap per night")] = None,
    max_usd_per_skill: Annotated[float | None, typer.Option(help="dollar cap per skill")] = None,
    record: Annotated[bool, typer.Option("--record", help="record model calls for replay")] = False,
    replay_only: Annotated[
        bool, typer.Option("--replay-only", help="answer only from recorded calls")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Harvest what is new, mine tasks, run the night, stage the proposal."""
    from skillopt_sleep.pipeline.run import run_once

    where = _project(project)
    cache = "replay-only" if replay_only else "record" if record else None
    flags = {
        "target": target,
        "optimizer": optimizer,
        "base_url": base_url,
        "cache": cache,
        "max_usd_per_night": max_usd_per_night,
        "max_usd_per_skill": max_usd_per_skill,
    }
    settings = config.load(where, flags=flags)
    if as_json:
        emit(run_once(where, settings=settings, dry_run=dry_run, adopt=adopt).to_dict())
        return
    with err.status("starting the night") as status:

        def say(message: str) -> None:
            err.print(f"[dim]{message}[/dim]")
            status.update(message)

        outcome = run_once(where, settings=settings, dry_run=dry_run, adopt=adopt, progress=say)
    _print_run(outcome)


def _print_run(outcome: Any) -> None:
    out = Console()
    for skill in outcome.to_dict()["skills"]:
        note = skill["abstained"] or skill["stopped"]
        out.print(
            f"{skill['skill']}: {skill['accepted']} edit(s) accepted; validation "
            f"{skill['baseline_val']:.3f} → {skill['after_val']:.3f}"
            + (f"  [yellow]{note}[/yellow]" if note else "")
        )
    if outcome.staged:
        out.print(
            f"staged: {outcome.staged}  (review: skillopt-sleep report {outcome.night_id} --open)"
        )
    for skill, version in outcome.adopted.items():
        out.print(f"adopted {skill} as version {version}")
    if outcome.skipped_skills:
        out.print(skipped_line(outcome.skipped_skills), highlight=False)
    if outcome.message:
        out.print(outcome.message)


def skipped_line(skipped: list[dict[str, Any]]) -> str:
    """One line for every loaded skill the night did not train, with the reason."""
    parts = [
        f"{s['skill']} ({s['reason']}; {s['families']} famil"
        f"{'y' if s['families'] == 1 else 'ies'} trained {', '.join(s['routed_to'])} instead)"
        for s in skipped
    ]
    return f"skipped {len(skipped)} skill(s): " + "; ".join(parts)


def _status_rows(found: Status) -> dict[str, list[dict[str, Any]]]:
    """The status as ``kind -> rows``, the shape both renderings walk."""
    return {
        "night": [asdict(n) for n in found.nights],
        "pending": [asdict(p) for p in found.pending],
        "adopted": [asdict(a) for a in found.adopted],
    }


def _print_status(found: dict[str, list[dict[str, Any]]]) -> None:
    out = Console()
    out.print(f"state: {paths.state_dir()}")
    for n in found["night"]:
        note = n["abstained"] or n["stopped"]
        out.print(
            f"night {n['night_id']} {n['skill']}: {n['status']}, {n['accepted']} accepted"
            + (f" ({note})" if note else "")
        )
    for p in found["pending"]:
        out.print(
            f"[yellow]pending review[/yellow]: {p['skill']} from night {p['night_id']} "
            f"(skillopt-sleep adopt {p['night_id']} --skill {p['skill']})"
        )
    for a in found["adopted"]:
        where = ", ".join(f"{t} ({state})" for t, state in a["on_disk"].items())
        out.print(f"adopted {a['skill']} v{a['version']} ({a['reason']}) at {where}")


def status_cmd(as_json: JsonOpt = False) -> None:
    """What the last nights did, what is pending review, what is adopted where."""
    archive = Archive(paths.archive_path())
    try:
        found = _status_rows(status(archive))
    finally:
        archive.close()
    if not as_json:
        _print_status(found)
        return
    for kind, rows in found.items():
        for row in rows:
            emit({"kind": kind, **row})
    summary = {kind: len(rows) for kind, rows in found.items()}
    emit(
        {
            "summary": {
                "nights": summary["night"],
                "pending": summary["pending"],
                "adopted": summary["adopted"],
                "state_dir": str(paths.state_dir()),
            }
        }
    )


def report_cmd(
    night: Annotated[str | None, typer.Argument(help="night id (default: latest)")] = None,
    open_: Annotated[bool, typer.Option("--open", help="open in a browser")] = False,
    as_json: JsonOpt = False,
) -> None:
    """The night's HTML report."""
    folder = staged_night(night)
    html = folder / "report.html"
    if as_json:
        emit(
            {
                "night_id": folder.name,
                "report": str(html),
                "results": json.loads((folder / "report.json").read_text(encoding="utf-8")),
            }
        )
    else:
        typer.echo(str(html))
    if open_:
        webbrowser.open(html.as_uri())


def adopt_cmd(
    night: Annotated[str | None, typer.Argument(help="night id (default: oldest pending)")] = None,
    skill: Annotated[str | None, typer.Option(help="adopt only this skill")] = None,
    all_: Annotated[bool, typer.Option("--all", help="every changed skill")] = False,
    project: Annotated[str | None, typer.Option(help="project (for project roots)")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a staged proposal into the agents' skill dirs."""
    from skillopt_sleep.pipeline.run import skill_roots

    where = _project(project)
    roots = skill_roots(config.load(where), where)
    archive = Archive(paths.archive_path())
    try:
        folder = staged_night(night, archive)
        night_id, done = adoption.adopt_night(archive, folder, roots, skill, changed_only=all_)
    finally:
        archive.close()
    if as_json:
        emit({"night_id": night_id, "adopted": done, "roots": [str(r) for r in roots]})
    else:
        for name, version in done.items():
            typer.echo(f"adopted {name} v{version} into {', '.join(map(str, roots))}")


def rollback_cmd(
    skill: Annotated[
        str | None, typer.Option(help="skill to restore (default: the last one written)")
    ] = None,
    to: Annotated[int | None, typer.Option(help="version (default: previous)")] = None,
    project: Annotated[str | None, typer.Option(help="project (for project roots)")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Restore an earlier version of a skill, byte-exact, everywhere it was written."""
    from skillopt_sleep.pipeline.run import skill_roots

    where = _project(project)
    roots = skill_roots(config.load(where), where)
    archive = Archive(paths.archive_path())
    try:
        skill = skill or adoption.last_written(archive)
        version = adoption.rollback(archive, skill, roots, to)
    finally:
        archive.close()
    if as_json:
        emit({"skill": skill, "version": version, "restored": to})
    else:
        typer.echo(f"restored {skill} (recorded as v{version})")


def versions_cmd(
    skill: Annotated[str, typer.Option(help="skill name")], as_json: JsonOpt = False
) -> None:
    """Every recorded version of a skill."""
    archive = Archive(paths.archive_path())
    try:
        found = adoption.versions(archive, skill)
    finally:
        archive.close()
    for v in found:
        row = {
            "skill": v.skill,
            "version": v.version,
            "sha256": v.sha256,
            "night_id": v.night_id,
            "reason": v.reason,
            "targets": v.targets,
            "created_at": v.created_at,
        }
        emit(row) if as_json else typer.echo(
            f"v{v.version} {v.created_at} {v.reason} {v.sha256[:12]}"
        )
    if as_json:
        emit({"summary": {"skill": skill, "versions": len(found)}})


def register(app: typer.Typer) -> None:
    """Add the pipeline commands to ``app``."""
    app.command("run")(run_cmd)
    app.command("status")(status_cmd)
    app.command("report")(report_cmd)
    app.command("adopt")(adopt_cmd)
    app.command("rollback")(rollback_cmd)
    app.command("versions")(versions_cmd)
