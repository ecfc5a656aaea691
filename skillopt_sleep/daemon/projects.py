"""What the daemon serves: the enrolled projects with their resolved settings, and the
night job it runs for each (the pipeline's ``run_once``).

The user config's ``projects`` table is the enrolment; each entry keeps the flags given
to ``enroll`` and is resolved through the same layered config as ``run``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillopt_sleep import config
from skillopt_sleep.config import Settings
from skillopt_sleep.errors import SkillOptError

__all__ = ["ENTRY_SETTINGS", "Enrolled", "NightJob", "NightReport", "enrolled_projects",
           "pipeline_job"]


def _log() -> Any:
    """The daemon's logger (logging loads here: ``status`` reads the enrolment too)."""
    import logging

    return logging.getLogger("skillopt_sleep.daemon")


ENTRY_SETTINGS = ("hour", "minute", "target", "optimizer")
"""Enrolment keys that are ``Settings`` fields (``adopt`` is handled on its own)."""


@dataclass
class NightReport:
    ok: bool
    result: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    """Why a night that is not ok is not: the failed night's reason, or the skills stopped."""


NightJob = Callable[[Path, Settings, str], NightReport]
"""``(project, settings, adopt) -> NightReport``; may raise (the service records it)."""


def pipeline_job(project: Path, settings: Settings, adopt: str) -> NightReport:
    """The real night: the pipeline's ``run_once`` (imported only when a night starts)."""
    from skillopt_sleep.pipeline.run import run_once

    log = _log()
    outcome = run_once(project, settings=settings, adopt=adopt,
                       progress=lambda line: log.info("%s: %s", project, line))
    for night in outcome.nights:
        if night.failed:
            log.error("%s: skill %s FAILED: %s", project, night.skill or "-", night.failed)
        elif night.abstained:
            log.info("%s: skill %s abstained: %s", project, night.skill, night.abstained)
    if outcome.skipped:
        log.info("%s: %s", project, outcome.skipped)
    for warning in outcome.warnings:
        log.warning("%s: %s", project, warning)
    stopped = "; ".join(f"{n.skill}: {n.stopped}" for n in outcome.nights if n.stopped)
    # A failed night adopted nothing (the pipeline stages no proposal for it).
    waiting = outcome.message if outcome.waiting is not None else ""
    return NightReport(bool(outcome.ok), outcome.to_dict(), outcome.failed or stopped or waiting)


@dataclass
class Enrolled:
    key: str
    path: Path
    settings: Settings
    adopt: str


def _adopt_for(entry: dict[str, Any], overrides: dict[str, Any], path: Path) -> str:
    """The enrolment's policy, else the daemon's flag, else the project file's, else auto."""
    for value in (entry.get("adopt"), overrides.get("adopt"),
                  config.read_toml(path / config.PROJECT_FILE).get("adopt")):
        if value is not None:
            if value not in config.ADOPT_POLICIES:
                raise SkillOptError(f"adopt = {value!r}: choose review or auto")
            return str(value)
    return "auto"


def enrolled_projects(overrides: dict[str, Any] | None = None) -> list[Enrolled]:
    """Every project in the user config's ``projects`` table, with its settings resolved.

    A project whose configuration is invalid is logged and left out (the others still run).
    """
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    base = config.load(Path.cwd(), flags={k: v for k, v in overrides.items() if k != "adopt"})
    found: list[Enrolled] = []
    for key, entry in sorted(base.projects.items()):
        path = Path(key)
        flags = {**overrides, **{k: entry[k] for k in ENTRY_SETTINGS if k in entry}}
        flags.pop("adopt", None)
        try:
            settings = config.load(path, flags=flags)
            found.append(Enrolled(key, path, settings, _adopt_for(entry, overrides, path)))
        except SkillOptError as exc:
            _log().error("project %s is enrolled with a bad configuration: %s", key, exc)
    return found
