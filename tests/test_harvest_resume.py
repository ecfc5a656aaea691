"""A grown file is read from its checkpoint offset, and the result is the from-scratch one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.records import to_dict

from ._harvest_layout import fixture

FIXTURES = ["bugfix_snapshots.jsonl", "init_refused_write.jsonl", "rewind_compact.jsonl",
            "unfinished_calls.jsonl",
            "slash_sidechain.jsonl", "cli-2.1.330_print.jsonl"]


def _lines(name: str) -> list[bytes]:
    data = fixture(f"claude-code/{name}").read_bytes()
    return (data if data.endswith(b"\n") else data + b"\n").splitlines(keepends=True)


def _harvest(root: Path, db: Path) -> tuple[list[dict[str, Any]], HarvestStats]:
    archive = Archive(db)
    stats = HarvestStats()
    list(harvest(archive, [make_source("claude-code", root, stats=stats)]))
    stored = [to_dict(s) for s in load_sessions(archive, include_headless=True)]
    archive.close()
    for session in stored:
        session.pop("path")  # the only field that names where the file was
    return stored, stats


def _from_scratch(tmp_path: Path, data: bytes) -> list[dict[str, Any]]:
    root = tmp_path / "scratch"
    folder = root / "projects" / "-p"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "s.jsonl").write_bytes(data)
    got, _ = _harvest(root, tmp_path / "scratch.sqlite3")
    return got


def _grow(tmp_path: Path, parts: list[bytes]) -> tuple[list[dict[str, Any]], HarvestStats]:
    """Write ``parts[0]``, harvest, then append each later part and harvest again."""
    root = tmp_path / "live"
    folder = root / "projects" / "-p"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s.jsonl"
    path.write_bytes(parts[0])
    got, stats = _harvest(root, tmp_path / "live.sqlite3")
    for part in parts[1:]:
        with path.open("ab") as fh:
            fh.write(part)
        got, stats = _harvest(root, tmp_path / "live.sqlite3")
    return got, stats


def check_every_claude_split(tmp_path: Path, lines: list[bytes]) -> None:
    """Split after every line: harvest, append the rest, harvest again; the archive must
    hold the from-scratch session, and a resumed read must read only the new bytes."""
    expected = _from_scratch(tmp_path, b"".join(lines))
    resumed = 0
    for cut in range(1, len(lines)):
        case = tmp_path / str(cut)
        tail = b"".join(lines[cut:])
        got, stats = _grow(case, [b"".join(lines[:cut]), tail])
        assert got == expected, f"cut after line {cut}"
        if stats.files_resumed:
            resumed += 1
            assert stats.bytes_read == len(tail)  # only the new bytes were read
            assert stats.files_read == 1 and stats.resume_fallbacks == 0
    assert resumed >= len(lines) // 2


@pytest.mark.parametrize("name", FIXTURES)
def test_every_split_point_gives_the_from_scratch_session(tmp_path: Path, name: str) -> None:
    check_every_claude_split(tmp_path, _lines(name))


def _record(uuid: str, parent: str | None, kind: str, content: Any,
            when: str = "2026-01-01T10:00:00.000Z", **extra: Any) -> bytes:
    record = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s9",
              "cwd": "/w", "version": "2.1.0", "isSidechain": False, "timestamp": when,
              "message": {"role": kind, "content": content}, **extra}
    return json.dumps(record).encode() + b"\n"


def _tool_use(uuid: str, parent: str, call: str) -> bytes:
    return _record(uuid, parent, "assistant", [
        {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "make test"}}])


def _tool_error(uuid: str, parent: str, call: str) -> bytes:
    return _record(uuid, parent, "user", [
        {"type": "tool_result", "tool_use_id": call, "is_error": True,
         "content": "exit 2: password=sk-ant-abcdefghijklmnopqrstuvwxyz0123"}])


def test_a_result_after_the_checkpoint_fails_the_archived_call(tmp_path: Path) -> None:
    # The secret sits in a shape redaction would change a second time: the archived
    # text must not be redacted again, and the new error head must be, once.
    first = (_record("u1", None, "user", "deploy with password=sk-ant-abcdefghijklmnop0123456")
             + _tool_use("a1", "u1", "t1"))
    second = (_tool_error("r1", "a1", "t1")
              + _record("a2", "r1", "assistant", [{"type": "text", "text": "It failed."}])
              + _record("u2", "a2", "user", "no, run it again"))
    got, stats = _grow(tmp_path, [first, second])
    assert stats.files_resumed == 1 and stats.bytes_read == len(second)
    assert got == _from_scratch(tmp_path, first + second)
    turns = got[0]["turns"]
    assert turns[0]["tool_calls"][0]["ok"] is False
    assert "tool_error" in turns[0]["signals"] and turns[0]["reaction"] == "correction"
    assert "sk-ant-" not in json.dumps(got)


def test_a_rewind_to_an_archived_record_reads_the_file_whole(tmp_path: Path) -> None:
    first = (_record("u1", None, "user", "first ask")
             + _record("a1", "u1", "assistant", [{"type": "text", "text": "one"}])
             + _record("u2", "a1", "user", "second ask")
             + _record("a2", "u2", "assistant", [{"type": "text", "text": "two"}]))
    rewind = (_record("u3", "a1", "user", "second ask, said better")
              + _record("a3", "u3", "assistant", [{"type": "text", "text": "three"}]))
    got, stats = _grow(tmp_path, [first, rewind])
    assert stats.resume_fallbacks == 1 and stats.files_resumed == 0
    assert got == _from_scratch(tmp_path, first + rewind)
    assert [t["request"] for t in got[0]["turns"]] == ["first ask", "second ask, said better"]


def test_a_line_cut_at_the_checkpoint_is_read_again_whole(tmp_path: Path) -> None:
    lines = _lines(FIXTURES[0])
    whole = b"".join(lines)
    cut = len(b"".join(lines[:10])) + 25  # inside the eleventh line
    junk = b"\x00\xff not json\n"
    got, stats = _grow(tmp_path, [whole[:cut], whole[cut:] + junk])
    assert got == _from_scratch(tmp_path, whole + junk)
    assert stats.files_resumed == 1
    assert stats.bytes_read == len(whole) - len(b"".join(lines[:10])) + len(junk)
    assert stats.lines_skipped == 1


def test_several_nights_of_growth(tmp_path: Path) -> None:
    lines = _lines(FIXTURES[1])
    parts = [b"".join(lines[i : i + 7]) for i in range(0, len(lines), 7)]
    got, stats = _grow(tmp_path, parts)
    assert got == _from_scratch(tmp_path, b"".join(lines))
    assert stats.files_resumed == 1 and stats.bytes_read == len(parts[-1])
    ids = [t["id"] for t in got[0]["turns"]]
    assert ids == [f"claude-code:{got[0]['session_id']}:{i}" for i in range(len(ids))]
