"""Idle footprint of the daemon: RSS and CPU of ``daemon run`` with nothing to do.

Starts the real daemon (scheduler with one enrolled project, watchers on a Claude Code
tree holding the shared fixtures) in a temporary home, lets it settle, then samples its
RSS and CPU time for ``--seconds``. Targets: RSS <= 150 MB, CPU near zero, and no model
library (torch, sentence-transformers, faiss) imported while idle.

    .venv/bin/python experiments/daemon_idle_bench.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

FIXTURES = Path("/work/shared/fixtures/transcripts/claude-code")
MODEL_MODULES = ("torch", "sentence_transformers", "transformers", "faiss")


def _home(base: Path) -> dict[str, str]:
    user = base / "user"
    projects = user / ".claude" / "projects" / "-work-demo"
    projects.mkdir(parents=True)
    for path in sorted(FIXTURES.glob("*.jsonl")):
        shutil.copy(path, projects / path.name)
    (base / "project").mkdir()
    env = os.environ | {"SKILLOPT_SLEEP_HOME": str(base / "home"), "HOME": str(user),
                        "CLAUDE_CONFIG_DIR": str(user / ".claude")}
    subprocess.run([sys.executable, "-m", "skillopt_sleep", "enroll", "--project",
                    str(base / "project"), "--target", "simulated", "--optimizer",
                    "simulated"], env=env, check=True, capture_output=True)
    return env


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _home(Path(tmp))
        daemon = subprocess.Popen([sys.executable, "-m", "skillopt_sleep", "daemon", "run",
                                   "--debounce", "5"], env=env, stderr=subprocess.DEVNULL)
        status_file = Path(env["SKILLOPT_SLEEP_HOME"]) / "state" / "daemon" / "status.json"
        try:
            deadline = time.monotonic() + 30
            while not status_file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2.0)  # settle: imports done, observers started
            proc = psutil.Process(daemon.pid)
            cpu0, wall0 = sum(proc.cpu_times()[:2]), time.monotonic()
            peak = 0
            while time.monotonic() - wall0 < args.seconds:
                peak = max(peak, proc.memory_info().rss)
                time.sleep(0.5)
            cpu = sum(proc.cpu_times()[:2]) - cpu0
            wall = time.monotonic() - wall0
            snapshot = json.loads(status_file.read_text())
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
    loaded = [m for m in snapshot.get("heavy_modules", []) if m in MODEL_MODULES]
    result = {
        "seconds": round(wall, 1), "rss_peak_mb": round(peak / 2**20, 1),
        "cpu_seconds": round(cpu, 3), "cpu_percent": round(100 * cpu / wall, 3),
        "watched": [w["path"] for w in snapshot.get("watched", [])],
        "heavy_modules_loaded": snapshot.get("heavy_modules", []),
        "model_modules_loaded": loaded,
        "ok": peak <= 150 * 2**20 and cpu / wall < 0.01 and not loaded,
    }
    print(json.dumps(result, indent=1))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
