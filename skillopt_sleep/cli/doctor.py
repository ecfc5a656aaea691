"""``skillopt-sleep doctor``: what is found, configured and loadable, without changing anything.

It runs the same pre-flight a night runs before mining (every configured role's spec,
price, CLI installed and logged in, endpoint answering its model list), names the folders it
scanned for transcripts, loads the embedding model, checks the archive (``PRAGMA
integrity_check`` and its schema version, read-only), and exits 1 when anything is in
error. ``--live`` also makes one tiny model call per configured role.
"""

from __future__ import annotations

import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from skillopt_sleep import config, paths
from skillopt_sleep.cli._console import console, working
from skillopt_sleep.cli._json import emit
from skillopt_sleep.cli._options import JsonOpt
from skillopt_sleep.errors import SkillOptError


def _say(message: str) -> None:
    """Progress on stderr: plain lines when piped, so logs and CI show them too."""
    if not console(stderr=True).is_terminal:
        print(message, file=sys.stderr, flush=True)


def _backends(settings: config.Settings, live: bool) -> dict[str, Any]:
    """Each configured role's check (no model call unless ``live``)."""
    from skillopt_sleep.models.build import base_urls, check_role, role_specs

    try:
        urls = base_urls(settings)
    except SkillOptError as exc:  # an ambiguous base URL: no role can be checked
        return {"config": {"status": f"error: {exc}"}}
    rows: dict[str, Any] = {}
    for role, spec in role_specs(settings).items():
        try:
            c = check_role(settings, role, spec, urls[role], reach=True)
        except SkillOptError as exc:  # an unknown spec, a missing price
            rows[role] = {"spec": spec, "base_url": urls[role], "status": f"error: {exc}"}
            continue
        errors = c.readiness.errors
        status = f"error: {'; '.join(f.detail for f in errors)}" if errors else "ok"
        rows[role] = {
            "spec": spec, "base_url": c.base_url, "status": status,
            "checks": [{"what": f.what, "level": f.level, "detail": f.detail}
                       for f in c.readiness.findings],
            "unknowable": c.readiness.unknowable,
        }
        if live and not errors:
            rows[role]["live"] = _live_call(spec, role, settings, urls[role])
            if rows[role]["live"].startswith("error"):
                rows[role]["status"] = rows[role]["live"]
    return rows


def _checked_backends(settings: config.Settings, live: bool) -> dict[str, Any]:
    with working("checking the configured models (CLIs, logins, endpoints)"):
        return _backends(settings, live)


def _live_call(spec: str, role: str, settings: config.Settings, url: str | None) -> str:
    from skillopt_sleep.models.base import tag
    from skillopt_sleep.models.registry import build_llm

    _say(f"asking the {role} model ({spec}) for one word")
    try:
        llm = build_llm(spec, base_url=url, pricing=settings.pricing,
                        persona=settings.persona or None,
                        role="optimizer" if role == "miner" else role)
        started = time.monotonic()
        done = llm.complete([{"role": "user", "content": tag("Reply with the word ok.")}],
                            max_tokens=16, temperature=0.0, seed=0)
    except SkillOptError as exc:
        return f"error: {exc}"
    return f"ok ({time.monotonic() - started:.1f} s, {done.text.strip()[:40]!r})"


def _embedder_check(name: str) -> str:
    from skillopt_sleep.mine.embed import make_embedder

    started = time.monotonic()
    _say(f"loading the embedding model ({name})")
    try:
        err = console(stderr=True)
        with err.status(f"loading the embedding model ({name})…") if err.is_terminal \
                else nullcontext():
            vectors = make_embedder(name).embed(["run the tests"])
    except Exception as exc:  # doctor reports every failure instead of stopping at one
        return f"error: {exc}"
    _say(f"embedding model loaded in {time.monotonic() - started:.1f} s")
    return f"ok ({name}, {vectors.shape[1]} dimensions)"


def _lock_check() -> str | None:
    """Who holds the night lock, and whether that process still exists."""
    import psutil

    from skillopt_sleep.publish.lock import holder

    pid = holder(paths.state_dir())
    if not pid:
        return None
    alive = pid.isdigit() and psutil.pid_exists(int(pid))
    return f"pid {pid} ({'running' if alive else 'stale: that process is gone'})"


def _archive_check() -> dict[str, Any]:
    """The archive's integrity check and schema version, read-only."""
    from skillopt_sleep.archive.health import check

    _say("checking the archive")
    health = check(paths.archive_path())
    return {"path": health.path, "status": health.status, "schema": health.schema,
            "known_schema": health.known}


def _journal_check() -> list[str]:
    """A write-back waiting for recovery, and journals moved aside unreplayed (with what
    to do about each)."""
    from skillopt_sleep.publish.recovery import pending_note

    return pending_note(paths.state_dir())


def _sources() -> tuple[dict[str, int], dict[str, list[str]]]:
    """Sessions found per source, and the folders each one scanned."""
    from skillopt_sleep.harvest.sources import SOURCE_NAMES, make_source

    found, folders = {}, {}
    for name in SOURCE_NAMES:
        _say(f"scanning {name} transcripts")
        source = make_source(name)
        roots = getattr(source, "roots", None) or [getattr(source, "root", None)]
        folders[name] = [str(r) for r in roots if r is not None]
        found[name] = len(source.discover())
    return found, folders


def _skill_check() -> dict[str, Any]:
    """The installed skills and what is odd in their frontmatter (notes: never an error)."""
    from skillopt_sleep.mine.skills import discover_skills, skill_notes

    return {"found": len(discover_skills()),
            "notes": [{"path": path, "note": note} for path, note in skill_notes()]}


def doctor_cmd(
    live: Annotated[bool, typer.Option("--live", help="also make one tiny model call per "
                                       "configured role (costs a few tokens)")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Sources found, backends checked, state location, embedding model, stale locks.

    Exits 1 when a configured backend, the embedding model or the archive (SQLite's
    integrity check, a schema newer than this version) is in error."""
    settings = config.load(Path.cwd())
    with working("scanning the agents' transcript folders"):
        found, folders = _sources()
    _say("checking the configured models")
    checks: dict[str, Any] = {
        "state_dir": str(paths.state_dir()),
        "config": str(paths.config_file()),
        "sources": found,
        "folders": folders,
        "backends": _checked_backends(settings, live),
        "embedding_model": _embedder_check(settings.embedder),
        "lock": _lock_check(),
        "archive": _archive_check(),
        "skills": _skill_check(),
        "write_back": _journal_check(),
    }
    checks["problems"] = problems(checks)
    checks["summary"] = summary(checks["problems"])
    checks["ok"] = not any(p["level"] == "error" for p in checks["problems"])
    if as_json:
        emit(checks)
    else:
        _print(checks)
    if not checks["ok"]:
        raise typer.Exit(1)


def problems(checks: dict[str, Any]) -> list[dict[str, str]]:
    """Every error and warning once, each with what it is about: the backends' pre-flight
    findings (or the one error that stopped a role's check), the live call, the embedding
    model, the archive, a stale lock and a write-back waiting for recovery."""
    found: list[dict[str, str]] = []
    for role, row in checks["backends"].items():
        listed = [c for c in row.get("checks", []) if c["level"] in ("error", "warning")]
        found += [{"about": f"{role}: {c['what']}", "level": c["level"], "detail": c["detail"]}
                  for c in listed]
        status = row["status"]
        if status.startswith("error") and not any(c["level"] == "error" for c in listed):
            found.append({"about": role, "level": "error", "detail": _detail(status)})
    if checks["embedding_model"].startswith("error"):
        found.append({"about": "embedding model", "level": "error",
                      "detail": _detail(checks["embedding_model"])})
    if checks["archive"]["status"].startswith("error"):
        found.append({"about": "archive", "level": "error",
                      "detail": _detail(checks["archive"]["status"])})
    if checks["lock"] and "stale" in checks["lock"]:
        found.append({"about": "night lock", "level": "warning", "detail": checks["lock"]})
    found += [{"about": "write-back", "level": "warning", "detail": note}
              for note in checks["write_back"]]
    return found


def _detail(status: str) -> str:
    return status.removeprefix("error: ").removeprefix("error")


def summary(found: list[dict[str, str]]) -> str:
    """``2 errors, 1 warning``, or ``all good``."""
    errors = sum(p["level"] == "error" for p in found)
    warnings = len(found) - errors
    if not found:
        return "all good"
    parts = [f"{n} {word}{'' if n == 1 else 's'}"
             for n, word in ((errors, "error"), (warnings, "warning")) if n]
    return ", ".join(parts)


def _print(checks: dict[str, Any]) -> None:
    """Every check once; a problem is shown where it belongs (a backend's finding under the
    backend), so the role line says only ok or error, and the summary line counts them."""
    out = console()
    out.print(f"state_dir: {checks['state_dir']}\nconfig: {checks['config']}", highlight=False)
    for name, count in checks["sources"].items():
        out.print(f"source {name}: {count} transcript(s) in {', '.join(checks['folders'][name])}",
                  highlight=False)
    for role, row in checks["backends"].items():
        _print_backend(out, role, row)
    out.print(f"embedding_model: {_coloured(checks['embedding_model'])}", highlight=False)
    out.print(f"lock: {checks['lock'] or 'not held'}", highlight=False)
    skills = checks["skills"]
    out.print(f"skills: {skills['found']} installed, {len(skills['notes'])} note(s)")
    for row in skills["notes"]:
        out.print(f"  note: {escape(row['path'])}: {escape(row['note'])}", highlight=False)
    archive = checks["archive"]
    schema = "no schema yet" if archive["schema"] is None else f"schema {archive['schema']}"
    out.print(f"archive: {escape(archive['path'])} ({schema}, this version knows "
              f"{archive['known_schema']}) {_coloured(archive['status'])}", highlight=False)
    for note in checks["write_back"]:
        out.print(f"write-back: [yellow]{escape(note)}[/yellow]", highlight=False)
    colour = "red" if not checks["ok"] else "yellow" if checks["problems"] else "green"
    out.print(f"[{colour}]{checks['summary']}[/{colour}]")


def _print_backend(out: Any, role: str, row: dict[str, Any]) -> None:
    listed = row.get("checks", [])
    status = row["status"]
    if status.startswith("error") and any(c["level"] == "error" for c in listed) \
            and not row.get("live", "").startswith("error"):
        status = "error"  # its findings, below, say what
    out.print(f"{role}: {row.get('spec', '')} {_coloured(status)}", highlight=False)
    for c in listed:
        out.print(f"  {c['what']}: {c['level']}: {escape(c['detail'])}", highlight=False)
    if row.get("unknowable") and "live" not in row:
        out.print(f"  not known without a call: {row['unknowable']}", highlight=False)
    if "live" in row and not row["live"].startswith("error"):  # an error is the status
        out.print(f"  live call: {escape(row['live'])}", highlight=False)


def _coloured(status: str) -> str:
    colour = "red" if status.startswith("error") else "green"
    return f"[{colour}]{escape(status)}[/{colour}]"


def register(app: typer.Typer) -> None:
    """Add ``doctor`` to ``app``."""
    app.command("doctor")(doctor_cmd)
