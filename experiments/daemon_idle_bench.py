"""Idle footprint of the daemon: RSS and CPU of ``daemon run`` with nothing to do.

Starts the real daemon (scheduler with one enrolled project, watchers on a Claude Code
tree holding the test fixtures, and on the SessionEnd queue) in a temporary home, lets
it settle, then samples its RSS and CPU time for ``--seconds``. Targets: RSS <= 150 MB,
CPU near zero, and no model library (torch, sentence-transformers, faiss) imported while
idle. Then a session ends: the real SessionEnd hook queues a transcript kept outside the
watched folders, and the bench times how long until the session is in the archive, and
which heavy modules the daemon holds after that harvest.

    .venv/bin/python experiments/daemon_idle_bench.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts" / "claude-code"
HOOK = ROOT / "plugins" / "claude-code" / "hooks" / "session_end.py"
ENDED = "init_refused_write.jsonl"
ENDED_ID = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"
MODEL_MODULES = ("torch", "sentence_transformers", "transformers", "faiss")


def _home(base: Path) -> dict[str, str]:
    user = base / "user"
    projects = user / ".claude" / "projects" / "-path-to-demo"
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


def _archived(home: Path, session_id: str) -> bool:
    path = home / "state" / "archive.sqlite3"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,))
            return row.fetchone() is not None
        finally:
            conn.close()
    except sqlite3.Error:  # not created yet
        return False


def _session_ends(base: Path, env: dict[str, str]) -> float | None:
    """Seconds from the real hook firing to the session being archived (None: not in 30 s)."""
    elsewhere = base / "elsewhere"  # not watched: only the queue can bring it in
    elsewhere.mkdir()
    transcript = elsewhere / f"{ENDED_ID}.jsonl"
    shutil.copy(FIXTURES / ENDED, transcript)
    payload = {"session_id": ENDED_ID, "transcript_path": str(transcript),
               "cwd": "/path/to/Demo", "hook_event_name": "SessionEnd", "reason": "other"}
    fired = time.monotonic()
    subprocess.run([sys.executable, str(HOOK)], input=json.dumps(payload).encode(), env=env,
                   check=True, capture_output=True)
    home = Path(env["SKILLOPT_SLEEP_HOME"])
    while time.monotonic() - fired < 30:
        if _archived(home, ENDED_ID):
            return time.monotonic() - fired
        time.sleep(0.05)
    return None


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
            latency = _session_ends(Path(tmp), env)
            time.sleep(0.5)  # the status file is rewritten just after the harvest
            after = json.loads(status_file.read_text())
            rss_after = proc.memory_info().rss
            log_file = Path(env["SKILLOPT_SLEEP_HOME"]) / "logs" / "daemon.log"
            log_tail = log_file.read_text().splitlines()[-8:] if latency is None else []
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
        "queued_session_archived_after_s": round(latency, 2) if latency is not None else None,
        "queue": after.get("queue"),
        "heavy_modules_after_queue_harvest": after.get("heavy_modules", []),
        "rss_after_queue_harvest_mb": round(rss_after / 2**20, 1),
        "log_tail_when_not_archived": log_tail,
        "ok": peak <= 150 * 2**20 and cpu / wall < 0.01 and not loaded
        and latency is not None and latency < 10,
    }
    print(json.dumps(result, indent=1))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
