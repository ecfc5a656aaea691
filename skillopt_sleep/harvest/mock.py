"""A ``Source`` that serves given sessions: for tests and simulated runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from skillopt_sleep.harvest.base import HarvestStats, SourceBase
from skillopt_sleep.records import Session

__all__ = ["MockSource"]


class MockSource(SourceBase):
    """Serves ``sessions`` as if each came from its own file (``<name>/<session_id>``)."""

    def __init__(self, sessions: list[Session], name: str = "mock"):
        self.name = name
        self.stats = HarvestStats()
        self._by_path = {Path(name) / s.session_id: s for s in sessions}

    def discover(self) -> list[Path]:
        return list(self._by_path)

    def sessions_from(self, path: Path) -> Iterator[Session]:
        session = self._by_path.get(path)
        if session is not None:
            self.stats.sessions[self.name] += 1
            yield session
