"""The daemon as the user runs it: enroll, run (twice at once), status, SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.daemon.state import DaemonLock, DaemonState
from skillopt_sleep.errors import LockHeld
from skillopt_sleep.records import NightResult


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    user = tmp_path / "user"
    (user / ".claude" / "projects").mkdir(parents=True)
    return os.environ | {"SKILLOPT_SLEEP_HOME": str(isolated_home), "HOME": str(user),
                         "CLAUDE_CONFIG_DIR": str(user / ".claude"),
                         "CODEX_HOME": str(user / ".codex"),
                         "COPILOT_HOME": str(user / ".copilot"),
                         "XDG_CONFIG_HOME": str(user / ".config"),
                         # Models that run anywhere: enroll refuses ones that cannot run here.
                         "SKILLOPT_SLEEP_TARGET": "simulated",
                         "SKILLOPT_SLEEP_OPTIMIZER": "simulated",
                         "SKILLOPT_SLEEP_PERSONA": "researcher"}


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
    # The everyday status names the enrolment, its schedule and its next run too.
    rows = [json.loads(line) for line in _cli("status", "--json", env=env).stdout.splitlines()]
    (enrolled,) = [r for r in rows if r.get("kind") == "enrolled"]
    assert enrolled["project"] == str(project) and enrolled["at"] == "04:30"
    assert enrolled["next_run"] == report["projects"][0]["next_run"]
    assert rows[-1]["summary"]["enrolled"] == 1 and enrolled["daemon_running"] is False
    text = _cli("status", env=env).stdout
    assert f"enrolled {project}: nightly at 04:30" in text and "daemon install" in text
    bad = _cli("enroll", "--project", str(project), "--hour", "25", env=env)
    assert bad.returncode == 2 and "0-23" in bad.stderr
    spec = _cli("enroll", "--project", str(project), "--target", "nosuch:model", env=env)
    assert spec.returncode == 2 and "unknown model backend" in spec.stderr
    gone = _cli("unenroll", "--project", str(project), env=env)
    assert gone.returncode == 0, gone.stderr
    assert _config(isolated_home).get("projects", {}) == {}
    twice = _cli("unenroll", "--project", str(project), env=env)
    assert twice.returncode != 0 and "is not enrolled" in twice.stderr


def test_enroll_refuses_models_that_cannot_run_here_unless_forced(
        tmp_path: Path, env: dict[str, str], isolated_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    bare = {k: v for k, v in env.items() if not k.startswith("SKILLOPT_SLEEP_")
            or k in ("SKILLOPT_SLEEP_HOME", "SKILLOPT_SLEEP_PERSONA")}
    bare["PATH"] = str(Path(sys.executable).parent)  # python, no `claude`
    refused = _cli("enroll", "--project", str(project), env=bare)
    assert refused.returncode == 2
    assert "the daemon's nights could not run here" in refused.stderr
    assert "the `claude` CLI is not on PATH" in refused.stderr and "--force" in refused.stderr
    assert not (isolated_home / "config" / "config.toml").exists()
    keyless = _cli("enroll", "--project", str(project), "--target", "anthropic:claude-haiku-4-5",
                   "--optimizer", "simulated", env=bare)
    assert keyless.returncode == 2 and "ANTHROPIC_API_KEY" in keyless.stderr
    # A key the service reads from daemon.env counts: that is where the unit finds it.
    (isolated_home / "config").mkdir(parents=True, exist_ok=True)
    (isolated_home / "config" / "daemon.env").write_text("# keys\nANTHROPIC_API_KEY=k\n")
    keyed = _cli("enroll", "--project", str(project), "--target", "anthropic:claude-haiku-4-5",
                 "--optimizer", "simulated", env=bare)
    assert keyed.returncode == 0, keyed.stderr
    forced = _cli("enroll", "--project", str(project), "--target", "claude-code", "--force",
                  env=bare)
    assert forced.returncode == 0, forced.stderr
    assert _config(isolated_home)["projects"][str(project)]["target"] == "claude-code"  # type: ignore[index]


USER_CONFIG = """\
# my settings, written by hand
target = "simulated"  # cheap while I try it

# the nightly caps I chose
max_usd_per_night = 1.5

[projects."/elsewhere"]  # an older project
hour = 2
"""


def test_enroll_keeps_the_users_comments(tmp_path: Path, env: dict[str, str],
                                         isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG, encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()
    done = _cli("enroll", "--project", str(project), "--hour", "4", env=env)
    assert done.returncode == 0, done.stderr
    text = config.read_text(encoding="utf-8")
    assert text.startswith(USER_CONFIG.split("[projects")[0])  # comments and order kept
    assert "[projects.\"/elsewhere\"]  # an older project" in text
    assert _config(isolated_home)["projects"][str(project)]["hour"] == 4  # type: ignore[index]
    assert _cli("unenroll", "--project", str(project), env=env).returncode == 0
    text = config.read_text(encoding="utf-8")
    assert "# the nightly caps I chose" in text and str(project) not in text
    assert _config(isolated_home)["projects"] == {"/elsewhere": {"hour": 2}}


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


def test_status_reports_the_last_night_from_the_archive_else_the_daemons_record(
        tmp_path: Path, env: dict[str, str], isolated_home: Path) -> None:
    served, fresh = tmp_path / "served", tmp_path / "fresh"
    for project in (served, fresh):
        project.mkdir()
        assert _cli("enroll", "--project", str(project), env=env).returncode == 0
    archive = Archive(paths.archive_path())
    try:
        old = NightResult("20250101-031700-aaaaaaaa", "old-skill", str(served),
                          started_at=datetime(2025, 1, 1, 3, 17, tzinfo=UTC))
        archive.record_night(old, "unchanged")
        for skill, cost in (("deploy", 0.25), ("review", 0.5)):
            night = NightResult("20250102-031700-aaaaaaaa", skill, str(served),
                                started_at=datetime(2025, 1, 2, 3, 17, tzinfo=UTC),
                                ended_at=datetime(2025, 1, 2, 3, 40, tzinfo=UTC),
                                baseline_val=0.5, after_val=0.75, cost_usd=cost)
            archive.record_night(night, "staged" if skill == "deploy" else "unchanged")
    finally:
        archive.close()
    state = DaemonState()
    skipped = {"at": "2025-01-03T03:17:00+00:00", "reason": "scheduled", "status": "skipped",
               "why": "on battery (require_ac_power)"}
    state.update(str(served), last_result=skipped)
    state.update(str(fresh), last_result=skipped)
    report = json.loads(_cli("daemon", "status", "--json", env=env).stdout)
    by_key = {p["project"]: p for p in report["projects"]}
    last = by_key[str(served)]["last_night"]
    assert last["from"] == "archive" and last["night_id"] == "20250102-031700-aaaaaaaa"
    assert last["status"] == "staged+unchanged" and last["cost_usd"] == 0.75
    assert [(s["skill"], s["status"], s["after_val"]) for s in last["skills"]] == [
        ("deploy", "staged", 0.75), ("review", "unchanged", 0.75)]
    assert last["ended_at"] == "2025-01-02T03:40:00+00:00"
    assert by_key[str(served)]["daemon_last_result"]["status"] == "skipped"
    assert by_key[str(fresh)]["last_night"] == {"from": "daemon", **skipped}
    text = _cli("daemon", "status", env=env).stdout
    assert "last night 20250102-031700-aaaaaaaa staged+unchanged (2 skill(s)" in text
    assert "on battery" in text


def test_daemon_status_names_a_failed_night_and_its_reason(
        tmp_path: Path, env: dict[str, str], isolated_home: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    assert _cli("enroll", "--project", str(served), env=env).returncode == 0
    why = "the target model claude-code cannot answer: `claude` is not on PATH; install it"
    archive = Archive(paths.archive_path())
    try:
        archive.record_night(NightResult("20250102-031700-aaaaaaaa", "deploy", str(served),
                                         started_at=datetime(2025, 1, 2, 3, 17, tzinfo=UTC),
                                         failed=why), "failed")
    finally:
        archive.close()
    report = json.loads(_cli("daemon", "status", "--json", env=env).stdout)
    last = report["projects"][0]["last_night"]
    assert last["status"] == "failed" and last["why"] == why
    assert last["skills"][0]["failed"] == why
    text = _cli("daemon", "status", env=env).stdout
    assert f"last night 20250102-031700-aaaaaaaa failed (1 skill(s), 0 edit(s) accepted, " \
           f"$0.00): {why}" in " ".join(text.split())


def test_status_refuses_a_config_that_run_refuses(tmp_path: Path, env: dict[str, str],
                                                  isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("max_usd_per_night = -1\n", encoding="utf-8")
    done = _cli("status", env=env)
    assert done.returncode == 2 and "max_usd_per_night" in done.stderr
