"""A project's replayable tasks: its archived sessions mined and routed to skills.

The step of a night between the harvest and the replays (``pipeline/run.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.config import Settings
from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
from skillopt_sleep.mine.embed import make_embedder
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.requests import requests_from_sessions
from skillopt_sleep.mine.route import LEARNED_SKILL
from skillopt_sleep.mine.skills import discover_skills
from skillopt_sleep.models.build import metered
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.records import Task
from skillopt_sleep.skill_names import (
    PLUGIN_REASON,
    Skipped,
    folder_for,
    is_plugin,
    is_route,
)

__all__ = ["collect_tasks", "skipped_skills"]


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
    for task in tasks:
        # A task stored before names were mapped may still name a plugin skill: never train it.
        if is_route(task.skill or "", catalog.skills):
            continue
        folder = folder_for(task.skill, catalog.skills) if task.skill else None
        if folder is None and task.skill and is_plugin(task.skill):
            task.meta["skipped_skills"] = [Skipped(task.skill, PLUGIN_REASON).to_dict()]
        task.skill = folder or LEARNED_SKILL
    counts = dict(result.report.counts) | {
        "requests": len(requests),
        "tasks": len(tasks),
        "uncovered_families": len(result.uncovered),
        "skipped_skills": skipped_skills(tasks),
    }
    return tasks, counts


def skipped_skills(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """The loaded skills no night trains, once each: the reason, how many of the tasks'
    families loaded it, and which skills those families train instead."""
    found: dict[tuple[str, str], dict[str, set[str]]] = {}
    for task in tasks:
        for skip in task.meta.get("skipped_skills", []):
            entry = found.setdefault((skip["skill"], skip["reason"]),
                                     {"families": set(), "routed_to": set()})
            entry["families"].add(task.family_id)
            entry["routed_to"].add(task.skill or "")
    return [{"skill": skill, "reason": reason, "families": len(entry["families"]),
             "routed_to": sorted(entry["routed_to"])}
            for (skill, reason), entry in sorted(found.items())]
