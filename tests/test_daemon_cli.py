"""The daemon as the user runs it: enroll, run (twice at once), status, SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from skillopt_sleep.daemon.state import DaemonLock
from skillopt_sleep.errors import LockHeld


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    user = tmp_path / "user"
    (user / ".claude" / "projects").mkdir(parents=True)
    return os.environ | {"SKILLOPT_SLEEP_HOME": str(isolated_home), "HOME": str(user),
                         "CLAUDE_CONFIG_DIR": str(user / ".claude"),
                         "CODEX_HOME": str(user / ".codex"),
                         "COPILOT_HOME": str(user / ".copilot"),
                         "XDG_CONFIG_HOME": str(user / ".config")}


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def _config(home: Path) -> dict[str, object]:
    return tomllib.loads((home / "config" / "config.toml").read_text())


def test_enroll_and_unenroll_record_the_project(tmp_path: Path, env: dict[str, str],
                                                isolated_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    first = _cli("enroll", "--project", str(project), "--hour", "4", "--minute", "30",
                 "--target", "simulated", "--adopt", "review", env=env)
    assert first.returncode == 0, first.stderr
    entry = _config(isolated_home)["projects"][str(project)]  # type: ignore[index]
    assert entry["hour"] == 4 and entry["minute"] == 30 and entry["adopt"] == "review"
    assert entry["target"] == "simulated" and "enrolled_at" in entry
    again = _cli("enroll", "--project", str(project), "--optimizer", "simulated", env=env)
    assert again.returncode == 0, again.stderr
    updated = _config(isolated_home)["projects"][str(project)]  # type: ignore[index]
    assert updated["hour"] == 4 and updated["optimizer"] == "simulated"
    assert updated["enrolled_at"] == entry["enrolled_at"]
    status = _cli("daemon", "status", "--json", env=env)
    report = json.loads(status.stdout)
    assert report["running"] is False
    assert report["projects"][0]["next_run"].startswith(
        tuple(f"20{y}" for y in range(20, 100)))
    assert report["projects"][0]["adopt"] == "review"
    bad = _cli("enroll", "--project", str(project), "--hour", "25", env=env)
    assert bad.returncode == 2 and "0-23" in bad.stderr
    spec = _cli("enroll", "--project", str(project), "--target", "nosuch:model", env=env)
    assert spec.returncode == 2 and "unknown model backend" in spec.stderr
    gone = _cli("unenroll", "--project", str(project), env=env)
    assert gone.returncode == 0, gone.stderr
    assert _config(isolated_home)["projects"] == {}
    twice = _cli("unenroll", "--project", str(project), env=env)
    assert twice.returncode != 0 and "is not enrolled" in twice.stderr


def _wait_for(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def test_two_daemons_at_once_the_second_exits_with_a_clear_message(
        env: dict[str, str], isolated_home: Path) -> None:
    argv = [sys.executable, "-m", "skillopt_sleep", "daemon", "run", "--debounce", "1"]
    first = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    second = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        status_file = isolated_home / "state" / "daemon" / "status.json"
        assert _wait_for(status_file.exists), "no daemon came up"
        losers = [p for p in (first, second) if p.poll() is not None]
        if not losers:
            assert _wait_for(lambda: first.poll() is not None or second.poll() is not None, 20)
            losers = [p for p in (first, second) if p.poll() is not None]
        assert len(losers) == 1
        loser = losers[0]
        winner = second if loser is first else first
        _, err = loser.communicate(timeout=10)
        assert loser.returncode == 1
        assert "already running" in err and f"pid {winner.pid}" in err
        report = json.loads(_cli("daemon", "status", "--json", env=env).stdout)
        assert report["running"] and report["pid"] == winner.pid
        assert report["rss_bytes"] and report["rss_bytes"] < 300 * 2**20
        assert [w["source"] for w in report["watched"]] == ["claude-code"]
        winner.send_signal(signal.SIGTERM)
        assert winner.wait(timeout=20) == 0
        log = (isolated_home / "logs" / "daemon.log").read_text()
        assert "received SIGTERM" in log and "daemon stopped" in log
    finally:
        for proc in (first, second):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_lock_left_by_a_dead_daemon_is_taken_over(isolated_home: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    folder = isolated_home / "state" / "daemon"
    folder.mkdir(parents=True)
    (folder / "daemon.pid").write_text(dead.stdout.strip())
    lock = DaemonLock()
    lock.acquire()
    try:
        assert lock.stale_pid == int(dead.stdout)
        assert (folder / "daemon.pid").read_text() == str(os.getpid())
        with pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
            DaemonLock().acquire()
    finally:
        lock.release()
    assert not (folder / "daemon.pid").exists()
