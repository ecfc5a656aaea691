"""The harvest sources by name, and which harvested sessions a caller wants back.

Harvest-only: building a source and filtering its sessions never touches the archive
(``archive/ingest.py`` runs sources into it). Worker processes rebuild sources from here.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.harvest.base import HarvestStats, Source, project_of
from skillopt_sleep.records import Session
from skillopt_sleep.tables import SOURCES

__all__ = ["SOURCE_NAMES", "Filter", "make_source"]

SOURCE_NAMES = SOURCES.names(plugins=False)
"""The built-in sources (``skillopt_sleep.tables.SOURCES`` is where names live)."""


def make_source(name: str, path: Path | list[Path] | None = None, *,
                stats: HarvestStats | None = None, include_headless: bool = True) -> Source:
    """The source ``SOURCES`` calls ``name``, rooted at ``path`` (default: the agent's own
    location); only a source whose class sets ``many_roots`` takes a list of folders."""
    kind = SOURCES.get(name)
    if isinstance(path, list) and not getattr(kind, "many_roots", False):
        raise ConfigError(f"source {name} takes one root folder")
    source: Source = kind(path, include_headless=include_headless, stats=stats or HarvestStats())
    return source


class Filter:
    """Which harvested sessions a caller wants back (all of them are archived regardless)."""

    def __init__(self, since: datetime | None = None, project: str | None = None,
                 include_headless: bool = False):
        self.since = since
        self.project = project_of(project) if project else None
        self.include_headless = include_headless

    def keep(self, session: Session, stats: HarvestStats) -> bool:
        if session.headless and not self.include_headless:
            stats.dropped["headless"] += 1
            return False
        if self.since is not None and (session.ended_at is None or session.ended_at < self.since):
            return False
        return self.project is None or session.project == self.project
