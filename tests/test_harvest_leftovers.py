"""Harvest leftovers found on held-out transcripts, each built from a real transcript shape
(the pinned CLIs' own captures and the VS Code fixtures, ``tests/fixtures/README.md``),
changed only where the case needs it:

- a Codex call cut off by the user (its output opens with the wall time, then "aborted by
  user"; ``item_completed`` says ``failed`` with no exit code) is unfinished, never ok;
- a Claude "doesn't want to proceed" result followed by the user's interrupt is an
  interrupt, not a refused tool (a real refusal still is one);
- terminal colour codes are stripped from error text;
- a VS Code op-log with one damaged line before its ``result`` keeps the session, and a
  damaged ``.json`` export keeps the requests that still read and counts the rest;
- a harvest summary that counts a failed file names it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from skillopt_sleep.cli.app import app
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.harvest.terminal import plain

from ._harvest_layout import claude_tree, codex_tree, fixture, vscode_tree

CODEX_0169 = fixture("codex/cli-0.169.0_exec.jsonl")
CLAUDE_2_1 = fixture("claude-code/cli-2.1.330_print.jsonl")
CODEX_ID = "01a20f9d-3eaa-7923-bd19-c9dd4b868318"
FAILING = "call_8106da308a46446e9cb79d79"  # the capture's `exit 3` command
REJECT = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
          "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
          "you are doing and wait for the user to tell you how to proceed.")
RED = "\x1b[31m\x1b[1mrelease check failed\x1b[0m \x1b]8;;https://ci.example/run\x07log\x1b]8;;\x07"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


# --- Codex ---------------------------------------------------------------------------------


def _codex_aborted(tmp_path: Path, *, completed_after: bool) -> list[Any]:
    records = _records(CODEX_0169)
    out = next(i for i, r in enumerate(records) if r["payload"].get("type") ==
               "function_call_output" and r["payload"]["call_id"] == FAILING)
    done = next(i for i, r in enumerate(records) if r["payload"].get("type") ==
                "item_completed" and r["payload"]["item"].get("id") == FAILING)
    records[out]["payload"]["output"] = ("Chunk ID: 82ffde\nWall time: 12.0311 seconds\n"
                                         "aborted by user")
    item = records[done]["payload"]["item"]
    item.update(status="failed", exit_code=None)
    if completed_after and done < out:  # the item_completed line written after the output
        records.insert(out, records.pop(done))
    src = _write(tmp_path / "aborted.jsonl", records)
    codex_tree(tmp_path / "codex", src, CODEX_ID)
    (session,) = list(CodexSource(tmp_path / "codex", include_headless=True).sessions())
    return [c for t in session.turns for c in t.tool_calls]


def test_a_codex_call_aborted_by_the_user_is_unfinished(tmp_path: Path) -> None:
    calls = _codex_aborted(tmp_path, completed_after=True)
    assert [c.ok for c in calls] == [True, None]  # `ls` ran; the check was cut off
    assert calls[1].error_head == "" and calls[1].exit_code is None


def test_an_item_completed_failed_before_the_output_still_leaves_it_unfinished(
        tmp_path: Path) -> None:
    calls = _codex_aborted(tmp_path / "before", completed_after=False)
    assert [c.ok for c in calls] == [True, None]


def test_codex_error_text_loses_its_colour_codes(tmp_path: Path) -> None:
    records = _records(CODEX_0169)
    for r in records:
        p = r["payload"]
        if p.get("type") == "function_call_output" and p["call_id"] == FAILING:
            p["output"] = p["output"].replace("Output:\n", f"Output:\n{RED}\n")
    codex_tree(tmp_path / "codex", _write(tmp_path / "red.jsonl", records), CODEX_ID)
    (session,) = list(CodexSource(tmp_path / "codex", include_headless=True).sessions())
    failed = [c for t in session.turns for c in t.tool_calls if c.ok is False]
    assert [c.exit_code for c in failed] == [3]
    assert "\x1b" not in failed[0].error_head and "release check failed log" in \
        failed[0].error_head


# --- Claude Code ----------------------------------------------------------------------------


def _claude(tmp_path: Path, *, interrupt: bool, content: str = REJECT) -> list[str]:
    """The capture's failing Bash result replaced by ``content``, with the user's interrupt
    record chained after it when ``interrupt``."""
    records = _records(CLAUDE_2_1)
    at = next(i for i, r in enumerate(records) if r.get("type") == "user" and isinstance(
        r["message"]["content"], list) and r["message"]["content"][0].get("is_error"))
    result = records[at]
    result["message"]["content"][0]["content"] = content
    result["toolUseResult"] = f"Error: {content}"
    if interrupt:
        stop = {**result, "uuid": "0b5e7c1a-int0-4e2d-9f00-000000000001",
                "parentUuid": result["uuid"], "toolUseResult": None,
                "message": {"role": "user", "content": [
                    {"type": "text", "text": "[Request interrupted by user for tool use]"}]}}
        records[at + 1]["parentUuid"] = stop["uuid"]
        records.insert(at + 1, stop)
    root = claude_tree(tmp_path / "claude", _write(tmp_path / "s.jsonl", records))
    (session,) = list(ClaudeCodeSource(root, include_headless=True).sessions())
    turn = next(t for t in session.turns if t.request == "run the release check")
    return turn.signals


def test_a_claude_interrupt_is_not_a_refused_tool(tmp_path: Path) -> None:
    signals = _claude(tmp_path, interrupt=True)
    assert "interrupted" in signals and "refused_tool" not in signals


def test_a_claude_rejection_without_an_interrupt_is_still_a_refusal(tmp_path: Path) -> None:
    assert "refused_tool" in _claude(tmp_path, interrupt=False)


def test_claude_error_text_loses_its_colour_codes(tmp_path: Path) -> None:
    records = _records(CLAUDE_2_1)
    for r in records:
        content = r.get("message", {}).get("content") if r.get("type") == "user" else None
        if isinstance(content, list) and content[0].get("is_error"):
            content[0]["content"] = f"Exit code 3\n{RED}"
    root = claude_tree(tmp_path / "claude", _write(tmp_path / "s.jsonl", records))
    (session,) = list(ClaudeCodeSource(root, include_headless=True).sessions())
    (failed,) = [c for t in session.turns for c in t.tool_calls if c.ok is False]
    assert failed.exit_code == 3 and "\x1b" not in failed.error_head
    assert failed.error_head.startswith("exit 3: release check failed")


def test_plain_strips_raw_and_json_escaped_sequences() -> None:
    assert plain(RED) == "release check failed log"
    assert plain(json.dumps({"o": RED})) == '{"o": "release check failed log"}'
    assert plain("tab\tnew\nline\r") == "tab\tnew\nline\r"


# --- VS Code --------------------------------------------------------------------------------


def test_a_vscode_oplog_with_a_damaged_line_before_its_result_keeps_the_session(
        tmp_path: Path) -> None:
    lines = fixture("copilot-vscode/oplog_cancelled.jsonl").read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"result"' in line[:60])
    lines.insert(at, '{"kind": 2, "k": ["requests", 0, "response"], "v": [{"kind": "mark')
    src = tmp_path / "oplog_cancelled.jsonl"
    src.write_text("\n".join(lines) + "\n", "utf-8")
    vscode_tree(tmp_path / "ws", src, "file:///path/to/app")
    stats = HarvestStats()
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws", stats=stats).sessions())
    assert [t.request for t in s.turns] == ["migrate the API to FastAPI"]
    assert s.turns[0].signals == ["cancelled"] and stats.lines_skipped == 1


def _export(tmp_path: Path, damage: int) -> tuple[list[str], HarvestStats]:
    """The real export with a second request, request ``damage`` cut short mid-value."""
    doc = json.loads(fixture("copilot-vscode/export_mcp_error.json").read_text("utf-8"))
    second = json.loads(json.dumps(doc["requests"][0]))
    second["requestId"], second["message"]["text"] = "request_41d3", "and now the tests"
    doc["requests"].append(second)
    text = json.dumps(doc, ensure_ascii=False, indent=2)
    marker = doc["requests"][damage]["message"]["text"]
    cut = text.index(json.dumps(marker, ensure_ascii=False)) + 5
    text = text[:cut] + text[cut + 200:]  # a damaged stretch inside that request
    src = tmp_path / "export.json"
    tmp_path.mkdir(parents=True, exist_ok=True)
    src.write_text(text, "utf-8")
    vscode_tree(tmp_path / "ws", src, "file:///path/to/app")
    stats = HarvestStats()
    sessions = list(CopilotVSCodeSource(tmp_path / "ws", stats=stats).sessions())
    return [t.request for s in sessions for t in s.turns], stats


def test_a_damaged_json_export_keeps_what_reads_and_counts_the_rest(tmp_path: Path) -> None:
    requests, stats = _export(tmp_path / "second", damage=1)
    assert len(requests) == 1 and requests[0].startswith("обнови поля записи 42")
    assert stats.lines_skipped == 1 and stats.files_failed == 0
    requests, stats = _export(tmp_path / "first", damage=0)
    assert requests == ["and now the tests"] and stats.lines_skipped == 1


# --- the summary -----------------------------------------------------------------------------


def test_a_summary_that_counts_a_failed_file_names_it(tmp_path: Path) -> None:
    vscode_tree(tmp_path / "ws", "oplog_cancelled.jsonl", "file:///path/to/app")
    broken = tmp_path / "ws" / "abc123" / "chatSessions" / "broken-session.json"
    broken.mkdir()  # listed as a session file, unreadable as one
    done = CliRunner().invoke(app, ["harvest", "--source", "copilot-vscode", "--path",
                                    str(tmp_path / "ws")])
    assert done.exit_code == 0, done.output
    assert "failed 1" in done.stderr
    assert f"failed: {broken}: IsADirectoryError" in done.stderr
