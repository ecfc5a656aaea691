"""The pipeline's steps before the night: drain the queue, harvest, mine; and the models.

Kept apart from ``pipeline.py`` so the orchestration reads top to bottom in one screen.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.judges.base import Judge
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.night.replay import JudgeFor, default_judge_for
from skillopt_sleep.records import Task

QUEUE_SOURCES = {"claude-code", "codex", "copilot-cli", "copilot-vscode"}


def drain_queue(state: Path) -> list[dict[str, Any]]:
    """Take every queued SessionEnd entry; a bad line is returned as ``{"bad": …}``.

    The queue file is renamed before reading, so an entry the hook appends meanwhile lands
    in a fresh file and is read next time, never lost. A renamed copy left by a process that
    died before deleting it is taken too.
    """
    queue = paths.queue_file(state)
    taken = _orphaned_takes(queue)
    if queue.exists():
        mine = queue.with_suffix(f".{os.getpid()}.taking")
        os.replace(queue, mine)
        taken.append(mine)
    entries: list[dict[str, Any]] = []
    for path in taken:
        entries += _read_queue_file(path)
        path.unlink()
    return entries


def _orphaned_takes(queue: Path) -> list[Path]:
    import psutil

    found = []
    for path in (
        sorted(queue.parent.glob(f"{queue.stem}.*.taking")) if queue.parent.is_dir() else []
    ):
        pid = path.suffixes[-2].lstrip(".") if len(path.suffixes) >= 2 else ""
        if not pid.isdigit() or not psutil.pid_exists(int(pid)):
            found.append(path)
    return found


def _read_queue_file(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            entries.append({"bad": line[:200]})
            continue
        entries.append(entry if isinstance(entry, dict) else {"bad": line[:200]})
    return entries


def harvest_new(archive: Archive, state: Path, settings: Settings) -> dict[str, int]:
    """The queued transcripts first, then every configured source's new bytes."""
    from skillopt_sleep.archive.ingest import harvest, harvest_files
    from skillopt_sleep.harvest.base import HarvestStats
    from skillopt_sleep.harvest.sources import Filter, make_source

    stats = HarvestStats()
    counts = {"queued": 0, "queue_skipped": 0, "sessions": 0}
    items = []
    for entry in drain_queue(state):
        path, source = entry.get("transcript_path"), entry.get("source", "claude-code")
        if not path or source not in QUEUE_SOURCES or not Path(path).is_file():
            counts["queue_skipped"] += 1
            continue
        items.append((make_source(source, stats=stats), Path(path)))
    wanted = Filter(include_headless=settings.include_headless)
    counts["queued"] = sum(1 for _ in harvest_files(archive, items, wanted))
    sources = [make_source(name, stats=stats) for name in settings.sources]
    counts["sessions"] = sum(1 for _ in harvest(archive, sources, wanted))
    return counts


def collect_tasks(
    archive: Archive, state: Path, settings: Settings, project: str, roots: list[Path],
    ledger: Ledger | None = None,
) -> tuple[list[Task], dict[str, Any]]:
    """Replayable tasks of ``project``, mined from the archive and routed to skills."""
    from skillopt_sleep.archive.sessions import load_sessions
    from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.families import FamilySettings
    from skillopt_sleep.mine.requests import requests_from_sessions
    from skillopt_sleep.mine.skills import discover_skills

    sessions = load_sessions(archive, project=project, include_headless=settings.include_headless)
    requests = list(requests_from_sessions(sessions))
    if not requests:
        return [], {"requests": 0}
    family = FamilySettings(min_sessions=settings.min_family_sessions)
    # The LLM miner (rule checks or a rubric proposed from a family's evidence) runs only when
    # a model is configured; otherwise judges come from the users' corrections alone.
    miner = (_metered(settings, "optimizer", settings.miner, ledger, meter_as="miner")
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


def build_models(settings: Settings, ledger: Ledger | None = None) -> tuple[LLM, LLM]:
    """Target and optimizer from the settings, metered against the dollar caps."""
    return _metered(settings, "target", settings.target, ledger), _metered(
        settings, "optimizer", settings.optimizer, ledger
    )


def build_judge_for(settings: Settings, ledger: Ledger | None = None) -> JudgeFor:
    """Judges per task; rubric tasks are graded by ``judge`` (default: the optimizer's model),
    metered under the role "judge"; the grader is built only if a rubric task needs one."""
    from skillopt_sleep.judges import build_judge

    graders: list[LLM] = []

    def judge_for(task: Task) -> Judge:
        if task.judge.kind != "rubric":
            return default_judge_for(task)
        if not graders:
            graders.append(
                _metered(settings, "judge", settings.judge or settings.optimizer, ledger)
            )
        return build_judge(task.judge, graders[0])

    return judge_for


def _metered(settings: Settings, role: str, spec: str, ledger: Ledger | None,
             meter_as: str | None = None) -> LLM:
    from skillopt_sleep.models.cache import Cache
    from skillopt_sleep.models.registry import build_llm

    cache = Cache(mode=settings.cache) if settings.cache else None
    llm = build_llm(
        spec,
        base_url=settings.base_url,
        pricing=settings.pricing,
        persona=settings.persona or None,
        cache=cache,
        role=role,
    )
    return MeteredLLM(
        llm,
        meter_as or role,
        ledger or Ledger(),
        max_usd_per_night=settings.max_usd_per_night,
        max_usd_per_skill=settings.max_usd_per_skill,
    )


def preflight(
    settings: Settings, target: LLM, optimizer: LLM, by_skill: dict[str, list[Task]]
) -> float | None:
    """Worst-case dollars for tonight, or None when a model has no price (the simulator)."""
    from skillopt_sleep.models.meter import NightShape, estimate_night

    target_price = getattr(target, "price", None)
    optimizer_price = getattr(optimizer, "price", None)
    if target_price is None or optimizer_price is None:
        return None
    total = 0.0
    for tasks in by_skill.values():
        shape = NightShape(
            train_tasks=sum(t.split == "train" for t in tasks),
            val_tasks=sum(t.split == "validation" for t in tasks),
            test_tasks=sum(t.split == "test" for t in tasks),
            val_repeats=settings.val_repeats,
            steps=settings.steps,
        )
        total += estimate_night(shape, target=target_price, optimizer=optimizer_price).total_usd
    return total
