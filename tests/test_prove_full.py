"""``prove --full``: the same proof wherever it runs, a sandbox the user can keep, and the
options it cannot honour refused by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _full(*args: str, tmpdir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", "prove", "--full", *args],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_full_proof_gives_the_same_numbers_in_any_temp_dir(tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b-elsewhere"):
        folder = tmp_path / name
        folder.mkdir()
        done = _full("--assert-improves", "--json", tmpdir=folder, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = ("baseline_test", "after_test", "accepted_per_night", "mining", "harmful_accepted",
            "families")
    first, second = ({k: r[k] for k in keys} for r in runs)
    assert first == second
    assert runs[0]["abstained_nights"] == len(runs[0]["abstained"])
    assert runs[0]["harmful_accepted"] == 0 and runs[0]["lift"] >= 0.10
    # Every split holds mined families, named alike in both folders.
    assert all(runs[0]["families"][s] for s in ("train", "validation", "test"))


def test_keep_leaves_a_documented_sandbox_with_the_report(tmp_path: Path) -> None:
    keep = tmp_path / "demo"
    done = _full("--keep", str(keep), tmpdir=tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = Path(done.stdout.strip().splitlines()[-1].split("report: ")[1].split(" (")[0])
    assert report.is_file() and report.is_relative_to(keep)
    # The report named is one whose night changed the skill, not an unchanged last night.
    nights = json.loads((report.parent / "report.json").read_text(encoding="utf-8"))
    assert any(n["skill_before"] != n["skill_after"] for n in nights)
    assert (keep / "LAYOUT.txt").is_file()
    assert (keep / "skillopt-sleep" / "state" / "archive.sqlite3").is_file()
    again = _full("--keep", str(keep), tmpdir=tmp_path, cwd=tmp_path)  # a proof's own folder
    assert again.returncode == 0, again.stderr[-2000:]
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = _full("--keep", str(foreign), tmpdir=tmp_path, cwd=tmp_path)
    assert refused.returncode != 0 and "not empty" in refused.stderr
    assert (foreign / "notes.txt").read_text() == "mine"


def test_options_the_full_proof_cannot_honour_are_refused(tmp_path: Path) -> None:
    done = _full("--target", "anthropic:claude-haiku-4-5", tmpdir=tmp_path, cwd=tmp_path)
    assert done.returncode == 2 and "--target cannot be used with --full" in done.stderr
    plain = subprocess.run([sys.executable, "-m", "skillopt_sleep", "prove", "--keep", "x"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert plain.returncode == 2 and "--keep needs --full" in plain.stderr
