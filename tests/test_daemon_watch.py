"""The session watcher: real watchdog observers, real harvests into a real archive."""

from __future__ import annotations

import json
import shutil
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import count_sessions, load_sessions
from skillopt_sleep.daemon.service import Service
from skillopt_sleep.daemon.state import DaemonState
from skillopt_sleep.daemon.watch import SessionWatcher, watch_dirs
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource

from ._harvest_layout import fixture
from ._wait import until

FIXTURE = "claude-code/init_refused_write.jsonl"  # /init and a refused write
SESSION = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"


@pytest.fixture
def claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    (root / "projects" / "-path-to-Demo").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    return root


def _archived() -> dict[str, int]:
    archive = Archive(paths.archive_path())
    try:
        return count_sessions(archive)
    finally:
        archive.close()


def test_transcript_written_in_appends_is_harvested_once_finished(claude_home: Path,
                                                                  tmp_path: Path) -> None:
    lines = fixture(FIXTURE).read_bytes().splitlines(keepends=True)
    target = claude_home / "projects" / "-path-to-Demo" / f"{SESSION}.jsonl"
    source = ClaudeCodeSource(include_headless=True)
    watcher = SessionWatcher([source], quiet=1.0)
    service = Service([], watcher=watcher, state=DaemonState(tmp_path / "state.json"))
    service.start()
    try:
        assert [(d, r) for _, d, r in watcher.watched] == [(claude_home / "projects", True)]
        step = len(lines) // 4 + 1
        for start in range(0, len(lines), step):  # an agent appending as the session goes
            with open(target, "ab") as handle:
                handle.write(b"".join(lines[start:start + step]))
            time.sleep(0.2)
        assert watcher.harvested_files == 0  # still changing: nothing read yet
        assert until(lambda: watcher.harvested_files >= 1)
        time.sleep(1.5)
        assert watcher.harvested_files == 1  # one harvest for the whole burst of appends
    finally:
        service.stop()
    archive = Archive(paths.archive_path())
    try:
        stored = list(load_sessions(archive, include_headless=True))
    finally:
        archive.close()
    expected = list(ClaudeCodeSource(include_headless=True).sessions_from(fixture(FIXTURE)))
    assert [s.session_id for s in stored] == [SESSION]
    assert [t.request for t in stored[0].turns] == [t.request for t in expected[0].turns]


def _tiny_session(path: Path, index: int) -> None:
    sid = f"00000000-0000-0000-0000-{index:012d}"
    base = {"isSidechain": False, "cwd": "/path/to/demo", "sessionId": sid}
    records = [
        {**base, "parentUuid": None, "type": "user", "uuid": f"u{index}",
         "timestamp": "2025-01-01T10:00:00Z",
         "message": {"role": "user", "content": f"task number {index}"}},
        {**base, "parentUuid": f"u{index}", "type": "assistant", "uuid": f"a{index}",
         "timestamp": "2025-01-01T10:00:05Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _burst(claude_home: Path, files: int) -> Path:
    folder = claude_home / "projects" / "-work-demo"
    folder.mkdir()
    for index in range(files):
        _tiny_session(folder / f"{index:04d}.jsonl", index)
    (folder / "notes.txt").write_text("not a transcript")
    return folder


@pytest.mark.parametrize("max_pending", [20_000, 100])
def test_a_burst_of_1000_files_is_coalesced_in_bounded_time_and_memory(
        claude_home: Path, max_pending: int) -> None:
    watcher = SessionWatcher([ClaudeCodeSource(include_headless=True)], quiet=0.5,
                             max_pending=max_pending)
    watcher.start()
    tracemalloc.start()
    try:
        started = time.monotonic()
        folder = _burst(claude_home, 1000)
        for path in sorted(folder.glob("*.jsonl"))[:200]:  # and a second wave of touches
            with open(path, "a") as handle:
                handle.write("\n")
        assert until(lambda: len(watcher.pending) >= min(1000, max_pending), 10)
        assert len(watcher.pending) <= max_pending
        until(lambda: watcher.flush() > 0 and not watcher.pending, 20)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        watcher.stop()
    assert _archived().get("claude-code") == 1000
    assert watcher.failures == 0
    assert elapsed < 30, elapsed
    assert peak < 64 * 2**20, peak


def test_watch_dirs_cover_discovered_files(claude_home: Path, tmp_path: Path) -> None:
    shutil.copy(fixture(FIXTURE), claude_home / "projects" / "-path-to-Demo" / "x.jsonl")
    assert watch_dirs(ClaudeCodeSource()) == [(claude_home / "projects", True)]
    assert watch_dirs(ClaudeCodeSource(tmp_path / "absent")) == []
    missing = SessionWatcher([ClaudeCodeSource(tmp_path / "absent")], quiet=0.1)
    missing.start()  # no folder to watch is not an error
    missing.stop()
    assert missing.watched == []


def test_a_failing_harvest_is_counted_and_the_watcher_goes_on(claude_home: Path) -> None:
    calls: list[int] = []

    def harvester(source: Any, files: list[Path] | None) -> int:
        calls.append(len(files or []))
        if len(calls) == 1:
            raise OSError("disk full")
        return len(files or [])

    path = claude_home / "projects" / "-path-to-Demo" / f"{SESSION}.jsonl"
    shutil.copy(fixture(FIXTURE), path)
    watcher = SessionWatcher([ClaudeCodeSource()], harvester, quiet=0.0)
    watcher.note(0, str(path))
    assert watcher.flush() == 0 and watcher.failures == 1
    watcher.note(0, str(path))
    assert watcher.flush() == 1 and calls == [1, 1]
    assert datetime.now(UTC)  # the watcher never touched the clock of the nights
