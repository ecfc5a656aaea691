"""The project's own transcripts, one per feature, harvested (``tests/fixtures/README.md``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.records import Session

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, fixture, vscode_tree

IDE_ID = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"


def _claude(tmp_path: Path, name: str, include_headless: bool = False) -> Session:
    root = claude_tree(tmp_path / "claude", name)
    source = ClaudeCodeSource(root, include_headless=include_headless)
    (path,) = source.discover()
    (session,) = list(source.sessions_from(path))
    return session


def test_rewind_branch_and_compaction_summary_are_not_prompts(tmp_path: Path) -> None:
    s = _claude(tmp_path, "rewind_compact.jsonl")
    # "make it return the version too" lies on the branch the rewind abandoned.
    assert [t.request for t in s.turns] == ["add a health endpoint",
                                            "make it return the git sha too",
                                            "also add a test for it",
                                            "now document it in the README"]
    assert [t.final_answer for t in s.turns] == ["Added GET /health.",
                                                 "It returns the git sha now.",
                                                 "Added tests/test_health.py.",
                                                 "Documented /health in README.md."]
    sid = "5e55a001-7c1d-4b0e-9a6f-2f0c1d3e4a51"
    assert s.session_id == sid
    assert [t.id for t in s.turns] == [f"claude-code:{sid}:{i}" for i in range(4)]
    assert s.format_version == "2.1.0" and not s.headless
    assert s.started_at is not None and s.started_at.utcoffset() is not None
    assert s.started_at.isoformat() == "2025-07-01T10:00:00+00:00"
    assert s.ended_at is not None and s.ended_at.isoformat() == "2025-07-01T10:41:00+00:00"


def test_slash_command_is_the_request_and_sidechain_is_excluded(tmp_path: Path) -> None:
    s = _claude(tmp_path, "slash_sidechain.jsonl")
    (turn,) = s.turns
    assert turn.request == "/orchestrator README.md を最新の状態に更新してください"
    assert "Split complex tasks" not in turn.request  # the isMeta expansion is not the ask
    # The subagent's own prompt and its failed Bash belong to the subagent, not this turn.
    failed = [c for c in turn.tool_calls if c.ok is False]
    assert {c.name for c in failed} == {"Task", "Edit"}
    assert "Bash" not in {c.name for c in turn.tool_calls}
    assert any("File has not been read yet" in c.error_head for c in failed)
    assert "tool_error" in turn.signals
    assert turn.final_answer.startswith("README.md を最新の状態に更新しました")
    assert s.project == "/path/to/docs-site" and s.files_touched == ["README.md"]


def test_files_touched_skills_and_a_correction(tmp_path: Path) -> None:
    s = _claude(tmp_path, "bugfix_snapshots.jsonl")
    assert s.files_touched == ["src/components/UserMenu.tsx", "src/hooks/useUser.ts"]
    assert not {"messageId", "trackedFileBackups", "timestamp"} & set(s.files_touched)
    # /clear with its local-command output and the caveat are not requests.
    assert [t.request[:30] for t in s.turns] == [
        "the avatar in the sidebar show", "does it use the signed-in user",
        "no, it still shows JD for me, "]
    assert s.skills_used == ["frontend-review"]
    assert [t.reaction for t in s.turns] == ["none", "correction", "none"]
    bash = [c for t in s.turns for c in t.tool_calls if c.name == "Bash"]
    assert [c.ok for c in bash] == [False, True]
    assert bash[0].error_head.startswith("FAIL src/components/UserMenu.test.tsx")
    assert s.turns[2].signals == ["tool_error"]
    assert s.session_id == "b0b5f1c2-9e8d-4c7b-a6f5-e4d3c2b1a098" and s.format_version == "2.0.27"


def test_slash_command_wrapper_is_recognised(tmp_path: Path) -> None:
    s = _claude(tmp_path, "slash_args.jsonl")
    assert [t.request for t in s.turns] == ['/new-endpoint "orders" "GET"']


def test_init_command_with_a_refused_write(tmp_path: Path) -> None:
    s = _claude(tmp_path, "init_refused_write.jsonl")
    (turn,) = s.turns
    assert turn.request == "/init"
    assert "refused_tool" in turn.signals
    (write,) = [c for c in turn.tool_calls if c.name == "Write"]
    assert not write.ok and "requested permissions" in write.error_head
    assert [c.name for c in turn.tool_calls].count("Glob") == 4  # parallel calls, each kept


def test_image_tool_result_without_a_prompt_yields_nothing(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", "image_result.jsonl")
    source = ClaudeCodeSource(root)
    assert list(source.sessions()) == []
    assert source.stats.dropped["empty"] == 1
    assert source.stats.lines_skipped == 0


def test_subagent_files_are_not_sessions(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", "rewind_compact.jsonl")
    folder = root / "projects" / "-path-to-project"
    src = fixture("claude-code/slash_sidechain.jsonl")
    shutil.copy(src, folder / "agent-1234.jsonl")  # 2.0.x layout
    (folder / "s1" / "subagents" / "workflows" / "w").mkdir(parents=True)
    shutil.copy(src, folder / "s1" / "subagents" / "agent-9.jsonl")  # 2.1.x layout
    shutil.copy(src, folder / "s1" / "subagents" / "workflows" / "w" / "agent-8.jsonl")
    (folder / "s1" / "subagents" / "journal.jsonl").write_text("{}\n")
    source = ClaudeCodeSource(root)
    assert [p.name for p in source.discover()] == ["rewind_compact.jsonl"]


def test_claude_config_dir_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = claude_tree(tmp_path / "cfg", "rewind_compact.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert len(list(ClaudeCodeSource().sessions())) == 1


# --- Codex --------------------------------------------------------------------------------


def test_codex_ide_preamble_mirrors_and_exit_codes(tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", "ide_context.jsonl", IDE_ID)
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    # Each request is the text after "## My request for Codex:", mirrored pairs count once.
    assert [t.request for t in s.turns] == [
        "When I open the orders page I see 4 identical queries. Why, and can we make it one?",
        "so the prefetch won't slow down the first page load?"]
    assert all("environment_context" not in t.request for t in s.turns)
    failed = [c for c in s.turns[0].tool_calls if c.ok is False]
    assert len(failed) == 3 and all(c.error_head.startswith("exit ") for c in failed)
    assert {c.error_head.split(":")[0] for c in failed} == {"exit 1", "exit 2"}
    assert len(s.turns[0].tool_calls) == 5
    assert "nonzero_exit" in s.turns[0].signals
    assert s.turns[0].final_answer.startswith("Each card calls useOrders()")
    assert s.session_id == IDE_ID and s.format_version == "0.40.0"
    assert s.project == "/path/to/orders"
    assert not s.headless  # originator codex_vscode


def test_codex_compacted_record_is_not_a_request(tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", "compacted.jsonl", "11111111-2222-3333-4444-555555555555")
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    requests = [t.request for t in s.turns]
    assert requests == ["set up the stock service skeleton",
                        "add endpoints to reserve and release stock",
                        "now add a low-stock report", "protect the endpoints with an API key"]
    assert s.session_id == "codex-compact-0001"


@pytest.mark.parametrize("where", ["request", "instructions"])
def test_codex_replay_sessions_are_dropped(tmp_path: Path, where: str) -> None:
    target = codex_tree(tmp_path / "codex", "compacted.jsonl",
                        "11111111-2222-3333-4444-555555555555")
    text = target.read_text()
    if where == "request":  # a prompt the engine sent through `codex exec`
        text = text.replace("set up the stock service skeleton",
                            "[skillopt-sleep replay]\\nset up the stock service skeleton")
    else:
        text = text.replace('"source":"cli"',
                            '"source":"cli","instructions":"[skillopt-sleep replay]"')
    target.write_text(text)
    source = CodexSource(tmp_path / "codex", include_headless=True)
    assert list(source.sessions()) == [] and source.stats.dropped["sentinel"] == 1


def test_codex_turn_aborted_is_an_interrupt(tmp_path: Path) -> None:
    target = codex_tree(tmp_path / "codex", "turn_aborted.jsonl",
                        "21111111-2222-3333-4444-555555555555")
    aborted = target.read_text()
    meta = ('{"timestamp":"2025-09-25T01:28:00Z","type":"session_meta","payload":{"id":"x",'
            '"cwd":"/w","originator":"codex_cli_rs","cli_version":"0.40.0"}}\n'
            '{"timestamp":"2025-09-25T01:28:01Z","type":"event_msg","payload":'
            '{"type":"user_message","message":"refactor the parser"}}\n')
    target.write_text(meta + aborted)
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    assert s.turns[0].signals == ["interrupted"]


def test_codex_archived_duplicate_keeps_newest(tmp_path: Path) -> None:
    live = codex_tree(tmp_path / "codex", "ide_context.jsonl", IDE_ID)
    old = codex_tree(tmp_path / "codex", "ide_context.jsonl", IDE_ID, archived=True)
    os.utime(old, (1, 1))
    assert CodexSource(tmp_path / "codex").discover() == [live]


# --- VS Code ------------------------------------------------------------------------------


def test_vscode_oplog_cancelled_request(tmp_path: Path) -> None:
    vscode_tree(tmp_path / "ws", "oplog_cancelled.jsonl", "file:///path/to/flask%20app")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    assert [t.request for t in s.turns] == ["migrate the API to FastAPI"]
    assert s.turns[0].signals == ["cancelled"]
    assert s.project == "/path/to/flask app"
    assert s.session_id == "5a1e0c2d-3b4f-4a6e-9d8c-7b6a5f4e3d2c"
    assert s.format_version == "3/0.49.0"
    assert [c.name for c in s.turns[0].tool_calls] == ["manage_todo_list", "runSubagent"]
    assert s.turns[0].tool_calls[1].args == {"agent": "migration-runner"}


def test_vscode_export_json_failed_mcp_tool(tmp_path: Path) -> None:
    vscode_tree(tmp_path / "ws", "export_mcp_error.json", "file:///path/to/cms")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    (turn,) = s.turns
    assert turn.request.startswith("обнови поля записи 42 через update_entry_fields")
    (call,) = turn.tool_calls
    assert not call.ok and "update_entry_fields" in call.name
    assert "field 'title' is required" in call.error_head
    assert turn.signals == ["tool_error"]


def test_vscode_unfinished_request_is_not_a_turn(tmp_path: Path) -> None:
    import json
    target = vscode_tree(tmp_path / "ws", "oplog_cancelled.jsonl", "file:///path/to/app")
    pending = {"requestId": "r2", "timestamp": 1779626600000, "message": {"text": "and tests?"},
               "response": [], "modelState": {"value": 0}}
    with target.open("a") as fh:
        fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [pending]}) + "\n")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    assert [t.request for t in s.turns] == ["migrate the API to FastAPI"]


# --- Copilot CLI --------------------------------------------------------------------------


def test_copilot_cli_subagent_belongs_to_its_tool_call(tmp_path: Path) -> None:
    copilot_tree(tmp_path / "cp", "subagent_skill.jsonl", "demo")
    source = CopilotCliSource(tmp_path / "cp", include_headless=True)
    (s,) = list(source.sessions())
    (turn,) = s.turns
    assert turn.request.startswith("Read .copilot/skills/changelog-writer/SKILL.md")
    assert turn.final_answer.startswith("Subagent findings:")
    names = [c.name for c in turn.tool_calls]
    assert names == ["view", "task"]  # the subagent's two views are not the main thread's
    (task,) = [c for c in turn.tool_calls if c.name == "task"]
    assert task.args["subagent_tool_calls"] == 2
    assert s.skills_used == ["changelog-writer"]
    assert s.files_touched == ["CHANGELOG.md"]
    assert s.project == "/path/to/release-tools"
    assert s.format_version == "1.0.55-1"
    assert s.headless  # "running in non-interactive mode": a copilot -p session
    assert list(CopilotCliSource(tmp_path / "cp").sessions()) == []


# --- what the real CLIs write (tests/test_harvest_real_clis.py), trimmed --------------------

CLI_PROMPTS = ["list the files here", "run the release check", "no, use the dry-run flag instead"]


def _cli_session(tmp_path: Path, source: str) -> Session:
    if source == "claude-code":
        root = claude_tree(tmp_path / "claude", "cli-2.1.330_print.jsonl")
        return next(ClaudeCodeSource(root, include_headless=True).sessions())
    if source == "codex":
        codex_tree(tmp_path / "codex", "cli-0.169.0_exec.jsonl",
                   "01a20f9d-3eaa-7923-bd19-c9dd4b868318")
        return next(CodexSource(tmp_path / "codex", include_headless=True).sessions())
    copilot_tree(tmp_path / "cp", "cli-1.0.102_print.jsonl", "2f911c57")
    return next(CopilotCliSource(tmp_path / "cp", include_headless=True).sessions())


@pytest.mark.parametrize("source", ["claude-code", "codex", "copilot-cli"])
def test_what_the_pinned_cli_wrote(tmp_path: Path, source: str) -> None:
    s = _cli_session(tmp_path, source)
    assert [t.request for t in s.turns] == CLI_PROMPTS  # injected context is not a request
    assert s.project == "/path/to/repo"
    first, second, third = s.turns
    assert first.tool_calls and all(c.ok is True for c in first.tool_calls)
    assert [c.ok for c in second.tool_calls] == [False]
    # Every agent's failed command carries its exit code, Claude Code's included.
    assert second.signals == ["nonzero_exit"]
    assert [c.exit_code for c in second.tool_calls] == [3]
    assert second.tool_calls[0].error_head.startswith("exit 3")
    assert second.reaction == "correction"
    assert third.final_answer == "Using the dry-run flag."
    assert s.headless  # print/exec modes
    assert s.format_version.startswith({"claude-code": "2.1.330", "codex": "0.169.0",
                                        "copilot-cli": "1.0.102"}[source])


@pytest.mark.parametrize("name", ["rewind_compact.jsonl", "slash_sidechain.jsonl",
                                  "bugfix_snapshots.jsonl", "cli-2.1.330_print.jsonl"])
def test_large_file_mode_gives_the_same_session(tmp_path: Path, name: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.harvest import claude_code
    inline = _claude(tmp_path / "a", name, include_headless=True)
    monkeypatch.setattr(claude_code, "SPILL_BYTES", 0)  # keep offsets, parse live lines again
    spilled = _claude(tmp_path / "b", name, include_headless=True)
    assert spilled.turns == inline.turns and spilled.files_touched == inline.files_touched
