"""Harvest records only what happened: a call with no completion is unknown (``ok: None``),
a VS Code request still running is left for the next pass, and every agent's failed command
carries its exit code (``tests/fixtures/README.md`` lists the fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.archive.sessions import load_sessions
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.judges.rubric import grading_prompt
from skillopt_sleep.records import JudgeSpec, Session, Task

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, vscode_tree

CODEX_ID = "0199bbbb-cccc-7ddd-8eee-ffff00000002"


def _archived(root: Path, source: str, db: Path) -> tuple[list[Session], HarvestStats]:
    archive = Archive(db)
    stats = HarvestStats()
    list(harvest(archive, [make_source(source, root, stats=stats)]))
    stored = list(load_sessions(archive, include_headless=True))
    archive.close()
    return stored, stats


def _append(path: Path, *records: dict[str, object]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record) + "\n")


# --- Claude Code --------------------------------------------------------------------------


def test_claude_call_without_a_result_is_unknown_and_a_failed_bash_keeps_its_code(
        tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", "unfinished_calls.jsonl")
    (s,) = list(ClaudeCodeSource(root).sessions())
    tests, dev = s.turns
    (bash,) = tests.tool_calls
    assert (bash.ok, bash.exit_code) == (False, 1)
    assert bash.error_head.startswith("exit 1: ") and "FAIL src/cart.test.ts" in bash.error_head
    assert tests.signals == ["nonzero_exit"]
    assert [(c.name, c.ok) for c in dev.tool_calls] == [("Bash", None), ("Glob", True)]
    assert dev.signals == []  # nothing failed: it is simply not known how npm run dev ended


def test_claude_call_completed_after_the_checkpoint_is_resolved_on_resume(
        tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", "unfinished_calls.jsonl")
    db = tmp_path / "a.sqlite3"
    (first,), _ = _archived(root, "claude-code", db)
    assert first.turns[1].tool_calls[0].ok is None  # archived as unknown, not as a success
    path = next(root.rglob("*.jsonl"))
    last = json.loads(path.read_text().splitlines()[-1])
    _append(path, {**last, "uuid": "d1e2a3d0-0000-4000-8000-000000000099",
                   "parentUuid": last["uuid"], "timestamp": "2025-11-03T09:04:00.000Z",
                   "message": {"role": "user", "content": [{
                       "type": "tool_result", "tool_use_id": "toolu_dev1", "is_error": True,
                       "content": "Exit code 130\nnpm ERR! signal SIGINT"}]}})
    (second,), stats = _archived(root, "claude-code", db)
    assert stats.files_resumed == 1 and stats.resume_fallbacks == 0
    dev = second.turns[1].tool_calls[0]
    assert (dev.ok, dev.exit_code) == (False, 130)
    assert second.turns[1].signals == ["nonzero_exit"]


# --- Codex --------------------------------------------------------------------------------


def test_codex_aborted_call_is_unknown_and_exec_command_end_decides_the_rest(
        tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", "aborted_call.jsonl", CODEX_ID)
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    watch, once = s.turns
    assert [c.ok for c in watch.tool_calls] == [None]  # "aborted by user": never finished
    assert watch.signals == ["interrupted"]
    # Known only from exec_command_end: exit 0 is a success, exit 1 a failure with its code.
    assert [(c.ok, c.exit_code) for c in once.tool_calls] == [(True, None), (False, 1)]
    assert once.tool_calls[1].error_head.startswith("exit 1: src/cart.ts:12:5")
    assert once.signals == ["nonzero_exit"]


# --- Copilot CLI --------------------------------------------------------------------------


def test_copilot_cli_call_without_completion_is_unknown(tmp_path: Path) -> None:
    copilot_tree(tmp_path / "cp", "unfinished_call.jsonl", "c0b1107c")
    (s,) = list(CopilotCliSource(tmp_path / "cp").sessions())
    (turn,) = s.turns
    assert [(c.ok, c.exit_code) for c in turn.tool_calls] == [(False, 2), (None, None)]
    assert turn.signals == ["nonzero_exit", "interrupted"]


# --- VS Code ------------------------------------------------------------------------------


def _vscode(tmp_path: Path) -> Path:
    return vscode_tree(tmp_path / "ws", "oplog_running.jsonl", "file:///path/to/shop")


def test_vscode_request_still_running_is_not_a_turn(tmp_path: Path) -> None:
    _vscode(tmp_path)
    source = CopilotVSCodeSource(tmp_path / "ws")
    (s,) = list(source.sessions())
    assert [t.request for t in s.turns] == ["which node version does CI use?"]
    assert s.turns[0].final_answer == "CI uses Node 20 (from .nvmrc)."
    assert [c.ok for c in s.turns[0].tool_calls] == [True]
    assert source.stats.dropped["unfinished"] == 1


def test_vscode_running_request_is_taken_when_it_completes(tmp_path: Path) -> None:
    path = _vscode(tmp_path)
    db = tmp_path / "a.sqlite3"
    (first,), _ = _archived(tmp_path / "ws", "copilot-vscode", db)
    assert len(first.turns) == 1
    (again,), stats = _archived(tmp_path / "ws", "copilot-vscode", db)
    assert stats.files_unchanged == 1 and again.turns == first.turns  # not read again
    done = {"kind": "toolInvocationSerialized", "invocationMessage": {"value": "nvm"},
            "isComplete": True, "toolCallId": "call_up1", "toolId": "run_in_terminal"}
    _append(path,
            {"kind": 1, "k": ["requests", 1, "response"],
             "v": [done, {"value": "I'll bump .nvmrc and the engines field to 22. Done."}]},
            {"kind": 1, "k": ["requests", 1, "result"], "v": {"timings": {}}},
            {"kind": 1, "k": ["requests", 1, "modelState"], "v": {"value": 1}})
    (final,), _ = _archived(tmp_path / "ws", "copilot-vscode", db)
    assert [t.request for t in final.turns] == ["which node version does CI use?",
                                                "upgrade the project to Node 22"]
    assert final.turns[1].final_answer.endswith("engines field to 22. Done.")
    assert [c.ok for c in final.turns[1].tool_calls] == [True]


def test_vscode_request_abandoned_for_a_later_one_is_interrupted(tmp_path: Path) -> None:
    path = _vscode(tmp_path)
    ask = {"requestId": "request_a3", "timestamp": 1779700120000,
           "message": {"text": "never mind, just show the engines field"}, "response": [
               {"value": "It says node >=20."}], "result": {}, "modelState": {"value": 1}}
    _append(path, {"kind": 2, "k": ["requests"], "v": [ask]})
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    cut = s.turns[1]
    assert cut.request == "upgrade the project to Node 22"
    assert cut.final_answer == ""  # the half-written answer is not an answer
    assert [c.ok for c in cut.tool_calls] == [None]
    assert "interrupted" in cut.signals and cut.reaction == "correction"
    assert s.turns[2].final_answer == "It says node >=20."


# --- what is kept and shown -----------------------------------------------------------------


def test_unknown_outcome_and_exit_code_survive_the_archive(tmp_path: Path) -> None:
    copilot_tree(tmp_path / "cp", "unfinished_call.jsonl", "c0b1107c")
    (s,), _ = _archived(tmp_path / "cp", "copilot-cli", tmp_path / "a.sqlite3")
    assert [(c.ok, c.exit_code) for c in s.turns[0].tool_calls] == [(False, 2), (None, None)]


def test_a_grader_is_told_an_unknown_outcome_as_unknown(tmp_path: Path) -> None:
    copilot_tree(tmp_path / "cp", "unfinished_call.jsonl", "c0b1107c")
    (s,) = list(CopilotCliSource(tmp_path / "cp").sessions())
    task = Task(id="t", family_id="f", intent="deploy", judge=JudgeSpec(kind="rubric",
                                                                         rubric="deployed"))
    prompt = grading_prompt(task, "done", s.turns[0].tool_calls)[1]["content"]
    assert "bash(failed), bash(unknown)" in prompt
