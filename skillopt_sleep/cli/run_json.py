"""``run --json``: one night, printed as one JSON object, without typer.

The entry point runs a bare ``run --json`` here without building the typer app (``run``'s
twenty options cost typer's import and its command's construction, more than a night with
nothing new costs itself); ``run_cmd`` calls ``night`` too, for ``--json`` with options.
Both end the same way: exit 3 while a night waits for hand-off answers, 4 when it failed
(with one line on standard error naming why), else 0.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from skillopt_sleep import config
from skillopt_sleep.errors import HandoffPending, RoleUnavailable

__all__ = ["exit_code", "main", "night", "project_dir"]


def project_dir(project: str | None) -> Path:
    """The project a command acts on: ``project``'s, or the working directory's."""
    from skillopt_sleep.harvest.base import project_of

    return Path(project_of(project or str(Path.cwd())))


def exit_code(outcome: Any) -> int:
    """A run's exit code; a failed night says why on standard error first."""
    if outcome.waiting is not None:  # a state, not an error: the exit code says "run again"
        return HandoffPending.exit_code
    if outcome.failed:
        # One line on stderr that names the backend and the fix; the exit code says "failed".
        print(f"skillopt-sleep: night failed: {outcome.failed}", file=sys.stderr)
        return RoleUnavailable.exit_code
    return 0


def night(where: Path, settings: config.Settings, dry_run: bool, adopt: str | None) -> int:
    """One night of ``where``, its outcome printed as one JSON object; the exit code."""
    from skillopt_sleep.cli._json import emit
    from skillopt_sleep.pipeline.run import run_once

    outcome = run_once(where, settings=settings, dry_run=dry_run, adopt=adopt)
    emit(outcome.to_dict())
    return exit_code(outcome)


def main() -> int:
    """``run --json`` with no other option: the working directory's project, its settings."""
    where = project_dir(None)
    return night(where, config.load(where), dry_run=False, adopt=None)
