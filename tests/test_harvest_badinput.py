"""A bad-input corpus generated here: no exception escapes, every skip is counted."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.paths import archive_path

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, vscode_tree

JUNK = [
    b"\x00\x01\x02\xff\xfe binary junk \x89PNG\r\n",
    b'{"type": "user", "message": {"content": 123}, "uuid": "bad1"}\n',
    b'{"type": "assistant", "message": "not an object", "uuid": "bad2"}\n',
    b"[1, 2, 3]\n",
    b'"just a string"\n',
    b'{"type": "some-future-record", "payload": {"x": [1]}}\n',
    b'{"type": "response_item", "payload": []}\n',
    b'{"type": "user.message", "data": {"content": ["x"]}}\n',
    b'{"type": "tool.execution_complete", "data": "oops"}\n',
    b'{"unterminated": "\n',
]
INVALID_UTF8 = '{"type":"note","text":"caf\xe9 \x80\x81"}\n'.encode("latin-1")
TRUNCATED = b'{"type": "user", "uuid": "tail", "message": {"role": "us'


def _damage(path: Path, *, head: bool = True) -> int:
    """Junk before and after the real lines; returns how many junk lines were added."""
    original = path.read_bytes()
    if not original.endswith(b"\n"):
        original += b"\n"
    before = b"".join(JUNK) + INVALID_UTF8 if head else b""
    path.write_bytes(before + original + b"".join(JUNK) + INVALID_UTF8 + TRUNCATED)
    return (len(JUNK) + 1) * (2 if head else 1) + 1


def _layouts(tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    claude = claude_tree(tmp_path / "claude", "rewind_compact.jsonl")
    codex = codex_tree(tmp_path / "codex", "compacted.jsonl",
                       "11111111-2222-3333-4444-555555555555")
    vscode = vscode_tree(tmp_path / "ws", "oplog_cancelled.jsonl", "file:///path/to/app")
    copilot = copilot_tree(tmp_path / "cp", "subagent_skill.jsonl", "demo")
    return {
        "claude-code": (claude, claude / "projects" / "-path-to-project" /
                        "rewind_compact.jsonl"),
        "codex": (tmp_path / "codex", codex),
        "copilot-vscode": (tmp_path / "ws", vscode),
        "copilot-cli": (tmp_path / "cp", copilot),
    }


EXPECTED_FIRST = {
    "claude-code": "add a health endpoint",
    "codex": "set up the stock service skeleton",
    "copilot-vscode": "migrate the API to FastAPI",
    "copilot-cli": "Read .copilot/skills/changelog-writer/SKILL.md",
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FIRST))
def test_junk_lines_are_skipped_and_counted(tmp_path: Path, name: str) -> None:
    root, path = _layouts(tmp_path)[name]
    added = _damage(path)
    stats = HarvestStats()
    sessions = list(harvest(Archive(archive_path()), [make_source(name, root, stats=stats)],
                            None))
    if name == "copilot-cli":  # the fixture is a headless copilot -p session
        sessions = list(load_sessions(Archive(archive_path()), include_headless=True))
    (session,) = sessions
    assert session.turns[0].request.startswith(EXPECTED_FIRST[name])
    # Claude Code has no common envelope: junk that is not JSON or not an object, and
    # user/assistant records of the wrong shape are skipped (6 a block). Codex and Copilot
    # CLI lines have one ({type, payload} / {type, data}): any line without it is skipped
    # (10 and 11 a block; the invalid-UTF-8 line decodes leniently and lacks it too).
    # An op-log replay skips each bad line and goes on (every junk line counted). The
    # truncated tail counts once.
    expected = {"claude-code": 13, "codex": 21, "copilot-cli": 23, "copilot-vscode": 23}
    assert stats.lines_skipped == expected[name]
    assert added == 23
    assert stats.files_failed == 0


@pytest.mark.parametrize("name", sorted(EXPECTED_FIRST))
def test_empty_and_binary_files(tmp_path: Path, name: str) -> None:
    root, path = _layouts(tmp_path)[name]
    path.write_bytes(b"")
    stats = HarvestStats()
    assert list(harvest(Archive(archive_path()), [make_source(name, root, stats=stats)])) == []
    path.write_bytes(bytes(range(256)) * 64)
    stats = HarvestStats()
    assert list(harvest(Archive(archive_path()), [make_source(name, root, stats=stats)])) == []
    assert stats.lines_skipped >= 1 and stats.files_failed == 0


def test_fifty_megabyte_line_is_skipped_without_holding_it(tmp_path: Path) -> None:
    root, path = _layouts(tmp_path)["claude-code"]
    good = path.read_bytes()
    huge = b'{"type":"user","message":{"content":"' + b"x" * (50 * 1024 * 1024) + b'"}}\n'
    path.write_bytes(huge + good)
    stats = HarvestStats()
    (session,) = list(harvest(Archive(archive_path()),
                              [make_source("claude-code", root, stats=stats)]))
    assert session.turns[0].request == EXPECTED_FIRST["claude-code"]
    assert stats.lines_too_long == 1 and stats.lines_skipped == 1


def test_wrong_types_inside_known_records(tmp_path: Path) -> None:
    root, path = _layouts(tmp_path)["copilot-vscode"]
    bad_ops = [{"kind": 1, "k": "not-a-list", "v": 1}, {"kind": 2, "k": ["requests", 99, "x"]},
               {"kind": 3, "k": []}]
    with path.open("a") as fh:
        fh.write("\n" + "\n".join(json.dumps(op) for op in bad_ops) + "\n")
    stats = HarvestStats()
    (session,) = list(harvest(Archive(archive_path()),
                              [make_source("copilot-vscode", root, stats=stats)]))
    assert session.turns[0].request == EXPECTED_FIRST["copilot-vscode"]
    assert stats.lines_skipped == 3


def test_file_growing_while_read(tmp_path: Path) -> None:
    root, path = _layouts(tmp_path)["codex"]
    stop = threading.Event()

    def writer() -> None:
        n = 0
        with path.open("a") as fh:
            while not stop.is_set() and n < 1500:
                line = {"timestamp": "2025-10-28T06:00:00Z", "type": "event_msg",
                        "payload": {"type": "user_message", "message": f"grow {n}"}}
                fh.write(json.dumps(line) + "\n")
                if n % 50 == 0:
                    fh.flush()
                    time.sleep(0.0005)
                n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    archive = Archive(archive_path())
    try:
        for _ in range(5):
            stats = HarvestStats()
            list(harvest(archive, [make_source("codex", root, stats=stats)]))
            assert stats.files_failed == 0
    finally:
        stop.set()
        thread.join()
    list(harvest(archive, [make_source("codex", root)]))
    (session,) = list(load_sessions(archive))
    written = sum(1 for line in path.read_text().splitlines() if "grow " in line)
    assert len(session.turns) == 4 + written  # nothing lost once the writer stopped
