"""``skillopt-sleep doctor``: what is found, configured and loadable, without changing anything."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import typer

from skillopt_sleep import config, paths
from skillopt_sleep.cli._json import JsonOpt, emit


def _backend_check(spec: str, settings: config.Settings) -> str:
    """Whether a model spec builds (known backend, priced, CLI present); no call is made."""
    from skillopt_sleep.errors import SkillOptError
    from skillopt_sleep.models.registry import build_llm

    try:
        build_llm(
            spec,
            base_url=settings.base_url,
            pricing=settings.pricing,
            persona=settings.persona or None,
        )
    except SkillOptError as exc:
        return f"error: {exc}"
    binary = {"claude-code": "claude", "codex": "codex"}.get(spec.split(":", 1)[0])
    if binary and shutil.which(binary) is None:
        return f"error: the {binary} CLI is not on PATH"
    return "ok (configured; reachability is only known at the first call)"


def _embedder_check(name: str) -> str:
    from skillopt_sleep.mine.embed import make_embedder

    try:
        vectors = make_embedder(name).embed(["run the tests"])
    except Exception as exc:  # doctor reports every failure instead of stopping at one
        return f"error: {exc}"
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


def doctor_cmd(as_json: JsonOpt = False) -> None:
    """Sources found, backends configured, state location, embedding model, stale locks."""
    from skillopt_sleep.harvest.sources import SOURCE_NAMES, make_source

    settings = config.load(Path.cwd())
    checks: dict[str, Any] = {
        "state_dir": str(paths.state_dir()),
        "config": str(paths.config_file()),
        "sources": {n: len(make_source(n).discover()) for n in SOURCE_NAMES},
        "backends": {
            role: {"spec": spec, "status": _backend_check(spec, settings)}
            for role, spec in (("target", settings.target), ("optimizer", settings.optimizer))
        },
        "embedding_model": _embedder_check(settings.embedder),
        "lock": _lock_check(),
    }
    if as_json:
        emit(checks)
        return
    for key, value in checks.items():
        typer.echo(f"{key}: {value}")


def register(app: typer.Typer) -> None:
    """Add ``doctor`` to ``app``."""
    app.command("doctor")(doctor_cmd)
