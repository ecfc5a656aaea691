"""Codex rollouts and Copilot CLI event logs resume from their checkpoint like Claude Code.

Every split of a fixture: harvest the first part, append the rest, harvest again; the
archive must hold exactly what a from-scratch harvest of the whole file gives, and a
resumed read must have read only the appended bytes.
"""

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

ROLLOUT_ID = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
# (source, name, the index of its first request's line: a split before it leaves nothing
# archived to resume from, every split after it must resume)
FIXTURES = [
    ("codex", "ide_context.jsonl", 2),
    ("codex", "compacted.jsonl", 2),
    ("codex", "turn_aborted.jsonl", 0),
    ("codex", "cli-0.169.0_exec.jsonl", 6),
    ("copilot-cli", "subagent_skill.jsonl", 2),
    ("copilot-cli", "cli-1.0.102_print.jsonl", 1),
]


def session_file(source: str, root: Path) -> Path:
    """Where ``source`` keeps one session under ``root``, laid out as the agent does."""
    if source == "codex":
        folder = root / "sessions" / "2025" / "09" / "25"
        name = f"rollout-2025-09-25T02-12-23-{ROLLOUT_ID}.jsonl"
    else:
        folder, name = root / "session-state" / "s1", "events.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def harvested(source: str, root: Path, db: Path) -> tuple[list[dict[str, Any]], HarvestStats]:
    """Harvest ``root`` into the archive at ``db``; every archived session, as dicts."""
    archive = Archive(db)
    stats = HarvestStats()
    list(harvest(archive, [make_source(source, root, stats=stats)]))
    stored = [to_dict(s) for s in load_sessions(archive, include_headless=True)]
    archive.close()
    for session in stored:
        session.pop("path")  # the only field that names where the file was
    return stored, stats


def from_scratch(source: str, tmp_path: Path, data: bytes) -> list[dict[str, Any]]:
    root = tmp_path / "scratch"
    session_file(source, root).write_bytes(data)
    return harvested(source, root, tmp_path / "scratch.sqlite3")[0]


def grow(source: str, tmp_path: Path, parts: list[bytes]
         ) -> tuple[list[dict[str, Any]], HarvestStats]:
    """Write ``parts[0]``, harvest, then append each later part and harvest again."""
    root = tmp_path / "live"
    path = session_file(source, root)
    path.write_bytes(parts[0])
    got, stats = harvested(source, root, tmp_path / "live.sqlite3")
    for part in parts[1:]:
        with path.open("ab") as fh:
            fh.write(part)
        got, stats = harvested(source, root, tmp_path / "live.sqlite3")
    return got, stats


def check_every_split(source: str, tmp_path: Path, lines: list[bytes], step: int = 1) -> int:
    """Split ``lines`` after every ``step``-th line; returns how many splits resumed."""
    expected = from_scratch(source, tmp_path, b"".join(lines))
    resumed = 0
    for cut in range(1, len(lines), step):
        tail = b"".join(lines[cut:])
        got, stats = grow(source, tmp_path / str(cut), [b"".join(lines[:cut]), tail])
        assert got == expected, f"{source}: cut after line {cut}"
        if stats.files_resumed:
            resumed += 1
            assert stats.bytes_read == len(tail)  # only the new bytes were read
            assert stats.files_read == 1 and stats.resume_fallbacks == 0
    return resumed


def _lines(source: str, name: str) -> list[bytes]:
    data = fixture(f"{source}/{name}").read_bytes()
    return (data if data.endswith(b"\n") else data + b"\n").splitlines(keepends=True)


@pytest.mark.parametrize(("source", "name", "head"), FIXTURES)
def test_every_split_point_gives_the_from_scratch_session(tmp_path: Path, source: str,
                                                          name: str, head: int) -> None:
    lines = _lines(source, name)
    resumed = check_every_split(source, tmp_path, lines)
    assert resumed == max(0, len(lines) - 1 - head), (resumed, len(lines))


# --- Codex: records written by hand, to put the interesting cases at the checkpoint ------


def _codex(kind: str, payload: dict[str, Any], second: int = 0) -> bytes:
    line = {"timestamp": f"2025-10-28T04:00:{second:02d}.000Z", "type": kind,
            "payload": payload}
    return json.dumps(line).encode() + b"\n"


def _said(role: str, text: str, second: int = 0) -> bytes:
    kind = "input_text" if role == "user" else "output_text"
    return _codex("response_item", {"type": "message", "role": role,
                                    "content": [{"type": kind, "text": text}]}, second)


def _event(kind: str, message: str, second: int = 0) -> bytes:
    return _codex("event_msg", {"type": kind, "message": message}, second)


_META = _codex("session_meta", {"id": "c-1", "cwd": "/w", "cli_version": "0.169.0",
                                "originator": "codex_cli_rs"})
_SECRET_ASK = "deploy with password=sk-ant-abcdefghijklmnop0123456"


def test_codex_mirror_pair_across_the_checkpoint_is_one_turn(tmp_path: Path) -> None:
    first = _META + _said("user", "fix the build", 1)
    second = _event("user_message", "fix the build", 1) + _said("assistant", "Fixed it.", 2)
    third = (_event("agent_message", "Fixed it.", 2)
             + _said("user", "fix the build", 3) + _event("user_message", "fix the build", 3))
    got, stats = grow("codex", tmp_path, [first, second, third])
    assert stats.files_resumed == 1 and stats.bytes_read == len(third)
    assert got == from_scratch("codex", tmp_path, first + second + third)
    turns = got[0]["turns"]
    # The same words after an answer are a second turn (a repeat), not a mirror.
    assert [t["request"] for t in turns] == ["fix the build", "fix the build"]
    assert turns[0]["final_answer"] == "Fixed it." and turns[0]["reaction"] == "repeat"


def _call(call_id: str, second: int) -> bytes:
    return _codex("response_item", {"type": "function_call", "name": "shell",
                                    "arguments": '{"command": ["make", "test"]}',
                                    "call_id": call_id}, second)


def test_codex_exit_code_after_the_checkpoint_fails_the_archived_call(tmp_path: Path) -> None:
    # The secret sits in a shape a second redaction would change: the archived request
    # must not be redacted again.
    first = _META + _said("user", _SECRET_ASK, 1) + _event("user_message", _SECRET_ASK, 1) \
        + _call("call-1", 2)
    second = (_codex("event_msg", {"type": "exec_command_end", "call_id": "call-1",
                                   "exit_code": 2, "stderr": "make: *** [test] Error 2"}, 3)
              + _codex("response_item", {"type": "function_call_output", "call_id": "call-1",
                                         "output": '{"output": "", "metadata": '
                                                   '{"exit_code": 2}}'}, 3)
              + _said("assistant", "The tests failed.", 4)
              + _said("user", "no, run only the unit tests", 5))
    got, stats = grow("codex", tmp_path, [first, second])
    assert stats.files_resumed == 1 and stats.bytes_read == len(second)
    assert got == from_scratch("codex", tmp_path, first + second)
    turn = got[0]["turns"][0]
    assert turn["tool_calls"][0]["ok"] is False
    assert "nonzero_exit" in turn["signals"] and turn["reaction"] == "correction"
    assert "sk-ant-" not in json.dumps(got)


def test_codex_abort_after_the_checkpoint_interrupts_the_archived_turn(tmp_path: Path) -> None:
    first = _META + _said("user", "rename the module", 1)
    second = (_codex("event_msg", {"type": "turn_aborted", "reason": "interrupted"}, 2)
              + _event("user_message", "rename the module", 3))
    got, stats = grow("codex", tmp_path, [first, second])
    assert stats.files_resumed == 1
    assert got == from_scratch("codex", tmp_path, first + second)
    turns = got[0]["turns"]
    assert len(turns) == 2 and "interrupted" in turns[0]["signals"]


def test_codex_unterminated_last_line_is_not_resumed_past(tmp_path: Path) -> None:
    # The first read took a record from a line without its newline: resuming at the last
    # newline would apply it twice, so no state is kept and the file is read whole.
    first = _META + _said("user", "list the files", 1).rstrip(b"\n")
    second = b"\n" + _said("assistant", "Here.", 2)
    got, stats = grow("codex", tmp_path, [first, second])
    assert stats.files_resumed == 0 and stats.resume_fallbacks == 0
    assert got == from_scratch("codex", tmp_path, first + second)


# --- Copilot CLI ---------------------------------------------------------------------


def _copilot(kind: str, data: dict[str, Any], second: int = 0) -> bytes:
    line = {"type": kind, "data": data, "id": f"e{second}",
            "timestamp": f"2026-05-26T16:14:{second:02d}.000Z"}
    return json.dumps(line).encode() + b"\n"


def _start(session_id: str = "cp-1") -> bytes:
    return _copilot("session.start", {"sessionId": session_id, "copilotVersion": "1.0.102",
                                      "context": {"cwd": "/w"}})


def _tool_start(call_id: str, name: str, second: int, **extra: Any) -> bytes:
    return _copilot("tool.execution_start", {"toolCallId": call_id, "toolName": name,
                                             "arguments": {"command": "make"}, **extra},
                    second)


def test_copilot_failure_after_the_checkpoint_fails_the_archived_call(tmp_path: Path) -> None:
    first = (_start() + _copilot("user.message", {"content": _SECRET_ASK}, 1)
             + _copilot("assistant.message", {"content": "", "toolRequests": [
                 {"toolCallId": "t1", "name": "bash", "arguments": {"command": "make"}}]}, 2)
             + _tool_start("t1", "bash", 2))
    second = (_copilot("tool.execution_complete", {"toolCallId": "t1", "success": False,
                                                   "error": {"message": "make: no rule"}}, 3)
              + _copilot("assistant.message", {"content": "It failed."}, 4)
              + _copilot("user.message", {"content": "no, use the Makefile in src"}, 5))
    got, stats = grow("copilot-cli", tmp_path, [first, second])
    assert stats.files_resumed == 1 and stats.bytes_read == len(second)
    assert got == from_scratch("copilot-cli", tmp_path, first + second)
    turn = got[0]["turns"][0]
    assert [c["ok"] for c in turn["tool_calls"]] == [False]  # the repeated id counted once
    assert "tool_error" in turn["signals"] and turn["reaction"] == "correction"
    assert "sk-ant-" not in json.dumps(got)


def test_copilot_failed_call_seen_again_after_the_checkpoint_is_one_call(tmp_path: Path
                                                                      ) -> None:
    # A refused call is reported failed before (or without) its start event; the start that
    # may follow names the same call, so the state keeps failed calls' ids too.
    first = (_start() + _copilot("user.message", {"content": "clean the tree"}, 1)
             + _copilot("assistant.message", {"content": "", "toolRequests": [
                 {"toolCallId": "t1", "name": "bash", "arguments": {"command": "rm -rf x"}}]}, 2)
             + _copilot("tool.execution_complete", {"toolCallId": "t1", "success": False,
                                                    "error": "denied"}, 3))
    second = _tool_start("t1", "bash", 4)
    got, stats = grow("copilot-cli", tmp_path, [first, second])
    assert stats.files_resumed == 1
    assert got == from_scratch("copilot-cli", tmp_path, first + second)
    assert [c["ok"] for c in got[0]["turns"][0]["tool_calls"]] == [False]


def test_copilot_subagent_work_after_the_checkpoint_counts_on_its_call(tmp_path: Path) -> None:
    first = (_start() + _copilot("user.message", {"content": "inspect the repo"}, 1)
             + _tool_start("task-1", "task", 2))
    second = (_tool_start("sub-1", "view", 3, parentToolCallId="task-1")
              + _copilot("tool.execution_complete", {"toolCallId": "sub-1", "success": False,
                                                     "parentToolCallId": "task-1"}, 4)
              + _copilot("tool.execution_complete", {"toolCallId": "task-1",
                                                     "success": True}, 5))
    got, stats = grow("copilot-cli", tmp_path, [first, second])
    assert stats.files_resumed == 1
    assert got == from_scratch("copilot-cli", tmp_path, first + second)
    (call,) = got[0]["turns"][0]["tool_calls"]
    assert call["ok"] and call["args"]["subagent_tool_calls"] == 1
    assert call["args"]["subagent_tool_errors"] == 1


def test_copilot_new_session_id_after_the_checkpoint_reads_whole(tmp_path: Path) -> None:
    first = _start("cp-1") + _copilot("user.message", {"content": "first ask"}, 1)
    second = _start("cp-2") + _copilot("user.message", {"content": "second ask"}, 2)
    got, stats = grow("copilot-cli", tmp_path, [first, second])
    assert stats.resume_fallbacks == 1 and stats.files_resumed == 0
    (expected,) = from_scratch("copilot-cli", tmp_path, first + second)
    assert expected in got and expected["session_id"] == "cp-2"


def test_several_nights_of_growth(tmp_path: Path) -> None:
    source, name, _ = FIXTURES[0]
    lines = _lines(source, name)
    parts = [b"".join(lines[i : i + 9]) for i in range(0, len(lines), 9)]
    got, stats = grow(source, tmp_path, parts)
    assert got == from_scratch(source, tmp_path, b"".join(lines))
    assert stats.files_resumed == 1 and stats.bytes_read == len(parts[-1])
    ids = [t["id"] for t in got[0]["turns"]]
    assert ids == [f"codex:{ROLLOUT_ID}:{i}" for i in range(len(ids))]
