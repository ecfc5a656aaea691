"""Sessions harvested as they end: the real SessionEnd hook feeds the daemon's queue watcher."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.daemon.queue import QueueWatcher, archive_queue_harvester
from skillopt_sleep.daemon.service import Service
from skillopt_sleep.daemon.state import DaemonState
from skillopt_sleep.daemon.watch import SessionWatcher
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource

from ._harvest_layout import fixture
from ._wait import until

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "plugins" / "claude-code" / "hooks" / "session_end.py"
FIXTURE = "claude-code/init_refused_write.jsonl"  # /init and a refused write
SESSION = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"
# A SessionEnd payload as Claude Code sends it on stdin (transcript_path set per test).
PAYLOAD = {"session_id": SESSION, "cwd": "/path/to/Demo", "hook_event_name": "SessionEnd",
           "reason": "prompt_input_exit"}


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    folder = root / "projects" / "-path-to-Demo"
    folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    path = folder / f"{SESSION}.jsonl"
    shutil.copy(fixture(FIXTURE), path)
    return path


def _hook(transcript: Path) -> None:
    """The real hook script, as Claude Code runs it when the session ends."""
    payload = json.dumps({**PAYLOAD, "transcript_path": str(transcript)}).encode()
    done = subprocess.run([sys.executable, str(HOOK)], input=payload, capture_output=True,
                          timeout=30)
    assert done.returncode == 0 and not done.stderr, done.stderr


def _archived_ids() -> list[str]:
    """Read-only, without migrating: polled while the daemon's thread may be creating it."""
    path = paths.archive_path()
    if not path.exists():
        return []
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            return [row[0] for row in conn.execute("SELECT session_id FROM sessions")]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # tables not created yet
        return []


def _stored_requests() -> dict[str, list[str]]:
    archive = Archive(paths.archive_path())
    try:
        return {s.session_id: [t.request for t in s.turns]
                for s in load_sessions(archive, include_headless=True)}
    finally:
        archive.close()


def test_a_session_is_archived_seconds_after_its_hook_fires(transcript: Path,
                                                            tmp_path: Path) -> None:
    # The transcript watcher is there but far too slow to be what archives the session.
    watcher = SessionWatcher([ClaudeCodeSource(include_headless=True)], quiet=600)
    queue = QueueWatcher(watcher=watcher, quiet=0.3)
    service = Service([], watcher=watcher, queue=queue,
                      state=DaemonState(tmp_path / "state.json"))
    service.start()
    try:
        with open(transcript, "ab") as handle:  # the session's last write, seen by the watcher
            handle.write(b"\n")
        assert until(lambda: any(p == str(transcript) for _, p in watcher.pending))
        fired = time.monotonic()
        _hook(transcript)
        assert until(lambda: SESSION in _archived_ids(), 10), "queued session not archived"
        latency = time.monotonic() - fired
        assert latency < 5, latency
        assert not paths.queue_file().exists()
        assert (queue.drained_entries, queue.harvested_sessions, queue.failures) == (1, 1, 0)
        assert not watcher.pending  # archived already: the fallback will not read it again
        assert watcher.harvested_files == 0
    finally:
        service.stop()
    status = json.loads((paths.state_dir() / "daemon" / "status.json").read_text())
    assert status["queue"]["sessions"] == 1
    expected = next(ClaudeCodeSource(include_headless=True).sessions_from(fixture(FIXTURE)))
    assert _stored_requests() == {SESSION: [t.request for t in expected.turns]}


def test_sessions_queued_while_no_daemon_ran_are_harvested_on_start(transcript: Path,
                                                                    tmp_path: Path) -> None:
    _hook(transcript)
    _hook(transcript)  # queued twice (a resumed session): read once
    service = Service([], queue=QueueWatcher(quiet=0.3),
                      state=DaemonState(tmp_path / "state.json"))
    service.start()
    try:
        assert until(lambda: SESSION in _archived_ids(), 10)
        assert until(lambda: not paths.queue_file().exists())
    finally:
        service.stop()
    assert _archived_ids() == [SESSION]


def test_a_night_in_progress_keeps_the_queue_and_it_is_drained_after(transcript: Path) -> None:
    queue = QueueWatcher(quiet=0.1)
    armed: list[float] = []
    queue.arm = armed.append
    queue.busy = lambda: True
    _hook(transcript)
    assert queue.drain() == 0
    assert paths.queue_file().exists()  # left for the night, which drains it itself
    queue.busy = lambda: False
    queue.resume()
    assert armed == [0.1]
    assert queue.drain() == 1 and _archived_ids() == [SESSION]


def test_bad_entries_are_counted_and_a_failed_harvest_puts_entries_back(
        transcript: Path, tmp_path: Path) -> None:
    queue_file = paths.ensure(paths.queue_file().parent) / "sessions.jsonl"
    queue_file.write_text("not json\n"
                          + json.dumps({"transcript_path": str(tmp_path / "gone.jsonl"),
                                        "source": "claude-code"}) + "\n"
                          + json.dumps({"transcript_path": str(transcript),
                                        "source": "no-such-agent"}) + "\n")
    _hook(transcript)
    calls: list[list[tuple[str, Path]]] = []

    def failing(items: list[tuple[str, Path]]) -> int:
        calls.append(items)
        raise OSError("database is locked")

    queue = QueueWatcher(failing, quiet=0.1)
    assert queue.drain() == 0
    assert calls == [[("claude-code", transcript)]]
    assert (queue.failures, queue.skipped) == (1, 3)
    kept = [json.loads(line) for line in queue_file.read_text().splitlines()]
    assert [e["transcript_path"] for e in kept] == [str(transcript)]  # only the good one
    queue.harvester = archive_queue_harvester
    assert queue.drain() == 1 and _archived_ids() == [SESSION]
    assert not queue_file.exists()


def test_a_steady_trickle_of_hooks_cannot_put_the_harvest_off(transcript: Path) -> None:
    now = [100.0]
    queue = QueueWatcher(quiet=2.0, max_wait=5.0, clock=lambda: now[0])
    delays: list[float] = []
    queue.arm = delays.append
    for _ in range(6):
        queue.note()
        now[0] += 1.0
    assert delays == [2.0, 2.0, 2.0, 2.0, 1.0, 0.0]
