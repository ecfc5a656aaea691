"""The harvest sources by name, and which harvested sessions a caller wants back.

Harvest-only: building a source and filtering its sessions never touches the archive
(``archive/ingest.py`` runs sources into it). Worker processes rebuild sources from here.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.harvest.base import HarvestStats, Source, project_of
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.records import Session

__all__ = ["SOURCE_NAMES", "Filter", "make_source"]

SOURCE_NAMES = ("claude-code", "codex", "copilot-vscode", "copilot-cli")


def make_source(name: str, path: Path | list[Path] | None = None, *,
                stats: HarvestStats | None = None, include_headless: bool = True) -> Source:
    """The source called ``name``, rooted at ``path`` (default: the agent's own location)."""
    stats = stats or HarvestStats()
    if name == "copilot-vscode":
        return CopilotVSCodeSource(path, include_headless=include_headless, stats=stats)
    if isinstance(path, list):
        raise ConfigError(f"source {name} takes one root folder")
    if name == "claude-code":
        return ClaudeCodeSource(path, include_headless=include_headless, stats=stats)
    if name == "codex":
        return CodexSource(path, include_headless=include_headless, stats=stats)
    if name == "copilot-cli":
        return CopilotCliSource(path, include_headless=include_headless, stats=stats)
    raise ConfigError(f"unknown source {name!r}; choose one of {', '.join(SOURCE_NAMES)}, all")


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
