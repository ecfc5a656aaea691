"""Every test runs with its own state dir: nothing touches the developer's real homes."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "skillopt-home"
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(home))
    return home
