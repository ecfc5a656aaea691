"""Write-back commands: adopt, rollback, versions.

Adopt and rollback take the state lock that ``run`` holds (``--wait SECONDS`` to queue behind
a running night) and finish or undo a write-back a crash interrupted before their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from skillopt_sleep import config, paths
from skillopt_sleep.archive import versions as ledger
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.cli._json import JsonOpt, emit
from skillopt_sleep.cli.pipeline import project_dir
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish.lock import night_lock

ProjectOpt = Annotated[str | None, typer.Option(help="project (for project roots)")]


@contextmanager
def _locked(project: str | None, wait: float) -> Iterator[tuple[Archive, list[Path]]]:
    """The archive and the project's skill roots, under the state lock."""
    from skillopt_sleep.pipeline.run import skill_roots

    where = project_dir(project)
    roots = skill_roots(config.load(where), where)
    with night_lock(paths.ensure(paths.state_dir()), wait, offer_wait=True):
        archive = Archive(paths.archive_path())
        try:
            archive.verify()  # adopt and rollback write the ledger: never into damaged pages
            yield archive, roots
        finally:
            archive.close()


WaitOpt = Annotated[
    float, typer.Option("--wait", metavar="SECONDS",
                        help="wait this long for a running night, adopt or rollback")
]


def adopt_cmd(
    night: Annotated[
        str | None, typer.Argument(help="night id (default: the newest pending review)")
    ] = None,
    skill: Annotated[str | None, typer.Option(help="adopt only this skill")] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="every pending skill, each from its newest night")
    ] = False,
    project: ProjectOpt = None,
    wait: WaitOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Write a staged proposal into every skill dir as one all-or-nothing transaction."""
    from skillopt_sleep.pipeline.review import adopt_review

    with _locked(project, wait) as (archive, roots):
        found = adopt_review(archive, roots, night, skill, all_)
    if as_json:
        emit({**found, "roots": [str(r) for r in roots]})
    else:
        for name, version in found["adopted"].items():
            typer.echo(f"adopted {name} v{version} into {', '.join(map(str, roots))}")


def rollback_cmd(
    skill: Annotated[
        str | None, typer.Option(help="skill to restore (default: the last one written)")
    ] = None,
    to: Annotated[
        int | None, typer.Option(help="version for every root (default: undo the last write)")
    ] = None,
    project: ProjectOpt = None,
    wait: WaitOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Undo a skill's last write: each root back to its own earlier bytes, or absence."""
    with _locked(project, wait) as (archive, roots):
        adoption.recover(archive)
        skill = skill or adoption.last_written(archive)
        before = max((v.version for v in adoption.versions(archive, skill)), default=0)
        version = adoption.rollback(archive, skill, roots, to)
        history = adoption.versions(archive, skill)
    # Each new ledger row names what it restored ("rollback to v2", "rollback to absence");
    # a rollback whose roots held different copies writes one row per copy.
    absent = {f"v{v.version}" for v in history if v.reason == adoption.ABSENT}
    restored: list[dict[str, Any]] = [
        {"reason": v.reason, "version": v.version, "targets": v.targets}
        for v in history if v.version > before]
    if as_json:
        emit({"skill": skill, "version": version, "restored": to, "rows": restored})
        return
    for row in restored:
        what = row["reason"].removeprefix("rollback to ")
        what += " (no skill file: removed)" if what in absent else ""
        typer.echo(f"restored {skill} to {what} (recorded as v{row['version']}) in "
                   f"{', '.join(row['targets'])}")


def versions_cmd(
    skill: Annotated[str, typer.Option(help="skill name")], as_json: JsonOpt = False
) -> None:
    """Every recorded version of a skill."""
    archive = Archive(paths.archive_path())
    try:
        found = adoption.versions(archive, skill)
        known = [] if found else ledger.skills(archive)
    finally:
        archive.close()
    if not found:
        raise StoreError(f"no recorded versions of skill {skill!r} (skills with versions: "
                         f"{', '.join(known) or 'none yet'})")
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
    """Add the write-back commands to ``app``."""
    app.command("adopt")(adopt_cmd)
    app.command("rollback")(rollback_cmd)
    app.command("versions")(versions_cmd)
