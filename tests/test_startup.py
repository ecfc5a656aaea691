"""Start-up: ``--help``, ``status`` and ``versions`` load only what they use.

Measured with ``python -X importtime``, which lists every module a run imports; the
timings themselves are in the README (benchmarks never run as timed tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numpy", "faiss", "torch", "scipy", "anthropic", "openai", "sentence_transformers")
STAGES = ("skillopt_sleep.harvest", "skillopt_sleep.mine", "skillopt_sleep.night",
          "skillopt_sleep.models", "skillopt_sleep.judges", "skillopt_sleep.sim")


def imported(args: list[str], home: Path, code: int = 0) -> set[str]:
    env = os.environ | {"SKILLOPT_SLEEP_HOME": str(home), "HOME": str(home / "user")}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "skillopt_sleep", *args],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == code, run.stderr[-2000:]
    lines = [line.split("|")[-1].strip() for line in run.stderr.splitlines()
             if line.startswith("import time:") and "|" in line]
    assert lines, "no -X importtime output"
    return set(lines)


CHEAP = [["--help"], ["status", "--json"],
         ["versions", "--skill", "skillopt-sleep-learned", "--json"]]


@pytest.mark.parametrize("args", CHEAP)
def test_cheap_commands_do_not_load_the_engine(args: list[str], isolated_home: Path) -> None:
    # A skill with no recorded versions is an error (exit 1), reached as cheaply.
    modules = imported(args, isolated_home, code=1 if args[0] == "versions" else 0)
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    stages = sorted(m for m in modules if m.startswith(STAGES))
    assert heavy == [] and stages == [], (heavy, stages)
    assert "skillopt_sleep.cli.entry" in modules  # the probe sees our own imports


def test_the_probe_sees_the_engine_when_a_command_needs_it(isolated_home: Path,
                                                          tmp_path: Path) -> None:
    empty = tmp_path / "requests.jsonl"
    empty.write_text('{"id": "1", "session_id": "a", "project": "/p", "text": "run the tests"}\n')
    modules = imported(["mine", "--requests", str(empty), "--embedder", "hashing"],
                       isolated_home)
    assert {"numpy", "faiss", "skillopt_sleep.mine.miner"} <= modules
