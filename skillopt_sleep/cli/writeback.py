"""Write-back commands: adopt, rollback, versions.

Adopt and rollback take the state lock that ``run`` holds (``--wait SECONDS`` to queue behind
a running night) and finish or undo a write-back a crash interrupted before their own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from skillopt_sleep import config, paths
from skillopt_sleep.archive import versions as ledger
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.cli._json import emit
from skillopt_sleep.cli._options import JsonOpt
from skillopt_sleep.cli.run_json import project_dir
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.publish.rollback import RolledBack, rollback_skill

ProjectOpt = Annotated[str | None, typer.Option(help="project (for project roots)")]


@contextmanager
def _locked(wait: float) -> Iterator[Archive]:
    """The archive, under the state lock, refused when damaged."""
    with night_lock(paths.ensure(paths.state_dir()), wait, offer_wait=True):
        archive = Archive(paths.archive_path())
        try:
            archive.verify()  # adopt and rollback write the ledger: never into damaged pages
            yield archive
        finally:
            archive.close()


def _roots(project: str | None) -> list[Path]:
    """The project's skill roots (the config's, or the agents' and the project's own)."""
    from skillopt_sleep.pipeline.run import skill_roots

    where = project_dir(project)
    return skill_roots(config.load(where), where)


def _say_recovery(found: dict[str, Any] | None) -> None:
    if found:
        typer.echo(found["line"])


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

    roots = _roots(project)
    with _locked(wait) as archive:
        found = adopt_review(archive, roots, night, skill, all_)
    if as_json:
        emit({**found, "roots": [str(r) for r in roots]})
        return
    _say_recovery(found["recovered"])
    for name, version in found["adopted"].items():
        typer.echo(f"adopted {name} v{version} into {', '.join(found['written'][name])}")
        for path, why in found["skipped"].get(name, {}).items():
            typer.echo(f"skipped {path}: {why}")


def rollback_cmd(
    skill: Annotated[
        str | None, typer.Option(help="skill to restore (default: the last one written)")
    ] = None,
    to: Annotated[
        int | None, typer.Option(help="version for every file (default: undo the last write)")
    ] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="also restore files changed by hand since, or whose root is gone")] = False,
    project: ProjectOpt = None,
    wait: WaitOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Undo a skill's last write on the files the ledger says it wrote, from any directory:
    each back to its own earlier bytes and mode, or absence."""
    roots = None
    with contextlib.suppress(StoreError):  # only writes recorded before files were kept
        roots = _roots(project)
    with _locked(wait) as archive:
        recovered = adoption.recover(archive)
        if skill is None and recovered is not None and recovered.kind == "rollback":
            skill = recovered.skill
        skill = skill or adoption.last_written(archive)
        before = max((v.version for v in adoption.versions(archive, skill)), default=0)
        done = rollback_skill(archive, skill, to, force, roots, recovered)
        history = adoption.versions(archive, skill)
    rows: list[dict[str, Any]] = [
        {"reason": v.reason, "version": v.version, "targets": v.targets}
        for v in history if v.version > before]
    if as_json:
        emit({"skill": skill, "version": done.version, "restored": done.restored,
              "skipped": done.skipped, "removed": done.removed, "rows": rows,
              "already_done": done.already,
              "recovered": None if recovered is None else recovered.as_dict()})
        return
    _say_rollback(skill, done, rows)


def _say_rollback(skill: str, done: RolledBack, rows: list[dict[str, Any]]) -> None:
    _say_recovery(None if done.recovered is None else done.recovered.as_dict())
    if done.already:
        typer.echo(f"that rollback of {skill} is complete (recovery finished it); nothing "
                   "more was rolled back. Run rollback again to undo the write before it")
    absent = {done.restored[path] for path in done.removed}
    for row in rows:
        what = row["reason"].removeprefix("rollback to ")
        what += " (no skill file: removed)" if what in absent else ""
        typer.echo(f"restored {skill} to {what} (recorded as v{row['version']}) in "
                   f"{', '.join(row['targets'])}")
    for path, why in done.skipped.items():
        typer.echo(f"left {path} alone: {why} (`--force` takes it back anyway)")


def versions_cmd(
    skill: Annotated[str, typer.Option(help="skill name")], as_json: JsonOpt = False
) -> None:
    """Every recorded version of a skill, and the files its writes touched."""
    archive = Archive(paths.archive_path())
    try:
        found = adoption.versions(archive, skill)
        known = [] if found else ledger.skills(archive)
        # The files a rollback acts on: every one the ledger recorded, wherever this runs.
        files = sorted({w.path for w in ledger.path_writes(archive, skill)}
                       | {t for v in found for t in v.targets})
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
        emit({"summary": {"skill": skill, "versions": len(found), "files": files}})
    else:
        typer.echo(f"files (what rollback restores, from any directory): {', '.join(files)}")


def register(app: typer.Typer) -> None:
    """Add the write-back commands to ``app``."""
    app.command("adopt")(adopt_cmd)
    app.command("rollback")(rollback_cmd)
    app.command("versions")(versions_cmd)
