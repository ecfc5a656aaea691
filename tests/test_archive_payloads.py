"""Turns keep their answer and tool calls clipped and compressed; rows written before the
compression are still read."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.sessions import load_session, save_sessions
from skillopt_sleep.records import Session, ToolCall, Turn


def _session(answer: str) -> Session:
    calls = [ToolCall("Bash", ok=i % 3 != 0, args={"command": f"pytest -q tests/test_{i}.py"},
                      error_head="" if i % 3 else f"E   assert {i} == 0\nFAILED tests/t{i}")
             for i in range(20)]
    return Session("claude-code", "s1", "/p", turns=[
        Turn("claude-code:s1:0", 0, "run the tests", final_answer=answer, tool_calls=calls,
             signals=["tool_error"])])


def test_a_turn_is_stored_compressed_and_read_back_exactly(tmp_path: Path):
    archive = Archive(tmp_path / "a.sqlite3")
    answer = "All 20 test files ran; 7 failed because the fixture path moved. " * 40
    save_sessions(archive, [_session(answer)])
    row = archive.conn.execute(
        "SELECT final_answer, tool_calls_json, payload_z FROM turns").fetchone()
    plain = json.dumps({"answer": answer, "tool_calls": [
        {"name": c.name, "ok": c.ok, "args": c.args, "error_head": c.error_head}
        for c in _session(answer).turns[0].tool_calls]})
    assert row[0] == "" and row[1] == "[]"
    assert json.loads(zlib.decompress(row[2]))["answer"] == answer
    assert len(row[2]) < len(plain) / 3
    loaded = load_session(archive, "claude-code", "s1")
    assert loaded is not None and loaded.turns == _session(answer).turns


def test_rows_from_before_the_compression_are_read_from_their_text_columns(tmp_path: Path):
    archive = Archive(tmp_path / "a.sqlite3")
    save_sessions(archive, [_session("x")])
    calls = [{"name": "Read", "ok": True, "args": {"file_path": "a.py"}, "error_head": ""}]
    archive.conn.execute("UPDATE turns SET final_answer = 'old answer', tool_calls_json = ?,"
                         " payload_z = NULL", (json.dumps(calls),))
    loaded = load_session(archive, "claude-code", "s1")
    assert loaded is not None
    (turn,) = loaded.turns
    assert turn.final_answer == "old answer" and turn.tool_calls == [ToolCall(
        "Read", True, {"file_path": "a.py"}, "")]
