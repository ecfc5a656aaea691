"""A project's replayable tasks: its archived sessions mined and routed to skills.

The step of a night between the harvest and the replays (``pipeline/run.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.config import Settings
from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
from skillopt_sleep.mine.embed import make_embedder
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.requests import requests_from_sessions
from skillopt_sleep.mine.skills import discover_skills
from skillopt_sleep.models.build import metered
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.records import Task

__all__ = ["collect_tasks"]


def collect_tasks(
    archive: Archive, state: Path, settings: Settings, project: str, roots: list[Path],
    ledger: Ledger | None = None,
) -> tuple[list[Task], dict[str, Any]]:
    """Replayable tasks of ``project``, mined from the archive and routed to skills."""
    sessions = load_sessions(archive, project=project, include_headless=settings.include_headless)
    requests = list(requests_from_sessions(sessions))
    if not requests:
        return [], {"requests": 0}
    family = FamilySettings(threshold=settings.family_threshold,
                            min_sessions=settings.min_family_sessions)
    # The LLM miner (rule checks or a rubric proposed from a family's evidence) runs only when
    # a model is configured; otherwise judges come from the users' corrections alone.
    miner = (metered(settings, "optimizer", settings.miner, ledger, meter_as="miner")
             if settings.miner else None)
    catalog = Catalog(
        archive,
        make_embedder(settings.embedder),
        skills=discover_skills(roots),
        llm=miner,
        settings=CatalogSettings(family=family),
        index_base=state / "index",
    )
    result = catalog.refresh(requests)
    tasks = [t for t in result.tasks if t.project == project and t.meta.get("replayable", True)]
    counts = dict(result.report.counts) | {
        "requests": len(requests),
        "tasks": len(tasks),
        "uncovered_families": len(result.uncovered),
    }
    return tasks, counts
