"""A small run of the write-back kill trials (``experiments/writeback_trials.py``): one
strace kill inside a rollback's write, one inside a recovery, one the moment an adopt's
journal appears; each followed by the user's next command and every failure class."""

from __future__ import annotations

import shutil
from pathlib import Path

from experiments import writeback_trials as trials
from tests._require import require


def _needs_strace() -> None:
    require(shutil.which("strace") is not None,
            "strace is not installed (Debian package: strace)")


def _clean(found: dict[str, int]) -> None:
    assert found.pop("killed") == 1  # the trial did kill the command
    assert {c: n for c, n in found.items() if n} == {}


def test_a_rollback_killed_at_its_first_rename_then_retried(tmp_path: Path):
    _needs_strace()
    _clean(trials.strace_trial(tmp_path, "rollback", "rename", 1))


def test_a_recovery_killed_at_its_first_rename_then_run_again(tmp_path: Path):
    _needs_strace()
    _clean(trials.recovery_trial(tmp_path, "adopt", 8, "rename", 1))


def test_an_adopt_killed_when_its_journal_appears(tmp_path: Path):
    _clean(trials.journal_trial(tmp_path, "adopt"))
