"""The shared public transcripts beside the repository, against what their SOURCES.md says.

An extra corpus: third-party files in ``../shared/fixtures/transcripts`` (never copied into
the repository). Every test here skips when that folder is absent and fails instead under
``SKILLOPT_SLEEP_REQUIRE_ALL=1``; the same behaviours are checked on the project's own
transcripts in ``test_harvest_fixtures.py``, ``test_harvest_resume*.py`` and the rest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.records import Session

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, shared, vscode_tree
from .test_harvest_resume_more import check_every_split

DAG = "claude-code-log__dag_compact_after_rewind.jsonl"
IMAGE = "agentcmd__tool-result-image.jsonl"
COMPACTED = "agent-history__compaction_codex_session_with_compaction.jsonl"
_ROLLOUT_ID = "01997ea4-a70d-7da3-8c20-c736db82a7c5"
_VSCODE_ROLLOUT = f"agentcmd__rollout-2025-09-24T20-12-23-{_ROLLOUT_ID}.jsonl"
OPLOG = "copilot-session-viewer__chatSessions_test-vscode-session.jsonl"
EVENTS = "copilot-session-viewer__session-demo_events.jsonl"


def _claude(tmp_path: Path, name: str, include_headless: bool = False) -> Session:
    root = claude_tree(tmp_path / "claude", shared(f"claude-code/{name}"))
    source = ClaudeCodeSource(root, include_headless=include_headless)
    (path,) = source.discover()
    (session,) = list(source.sessions_from(path))
    return session


def test_rewind_branch_and_compaction_summary_are_not_prompts(tmp_path: Path) -> None:
    s = _claude(tmp_path, "claude-code-log__dag_compact_after_rewind.jsonl")
    assert [t.request for t in s.turns] == ["Start", "Second attempt", "Keep going",
                                            "After compaction"]
    assert [t.final_answer for t in s.turns] == ["Ready", "Second answer", "Kept going",
                                                 "Final answer"]
    assert [t.id for t in s.turns] == [f"claude-code:s1:{i}" for i in range(4)]
    assert s.format_version == "2.1.0"
    assert s.started_at is not None and s.started_at.utcoffset() is not None
    assert s.started_at.isoformat() == "2025-07-01T10:00:00+00:00"
    assert s.ended_at is not None and s.ended_at.isoformat() == "2025-07-01T10:41:00+00:00"


def test_slash_command_is_the_request_and_sidechain_is_excluded(tmp_path: Path) -> None:
    s = _claude(tmp_path, "claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    assert len(s.turns) == 1
    (turn,) = s.turns
    assert turn.request == "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    assert "Split complex tasks" not in turn.request  # the isMeta expansion is not the ask
    assert all("Examine the package.json" not in t.request for t in s.turns)
    # The sidechain's own Bash failure belongs to the subagent, not to this turn.
    failed = [c for c in turn.tool_calls if c.ok is False]
    assert {c.name for c in failed} == {"Task", "Edit"}
    assert any("File has not been read yet" in c.error_head for c in failed)
    assert "tool_error" in turn.signals
    assert turn.final_answer.startswith("CLAUDE.mdファイルを最新の状態に")
    assert s.project == "/path/to/Demo"


def test_files_touched_are_tracked_backups_not_snapshot_keys(tmp_path: Path) -> None:
    s = _claude(tmp_path, "agentcmd__full-session-four.jsonl")
    assert "apps/app/src/client/components/NavUser.tsx" in s.files_touched
    assert not {"messageId", "trackedFileBackups", "timestamp"} & set(s.files_touched)
    # /clear with its local-command output and the caveat are not requests.
    assert [t.request[:30] for t in s.turns] == [
        "Can you add the first two init", "does it get the logged in user",
        "The username I am logged in wi"]
    bash = [c for t in s.turns for c in t.tool_calls if c.name == "Bash"]
    assert [c.ok for c in bash] == [False, True]
    assert s.turns[2].signals == ["tool_error"]
    assert s.session_id == "2d984148-cddb-4605-aac1-13e720fe613c"


def test_slash_command_wrapper_is_recognised(tmp_path: Path) -> None:
    s = _claude(tmp_path, "agentcmd__user-slash-command-with-args.jsonl")
    assert [t.request for t in s.turns] == ['/generate-feature "a" "b"']
    assert "<command" not in s.turns[0].request


def test_init_command_with_a_refused_write(tmp_path: Path) -> None:
    s = _claude(tmp_path, "claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    (turn,) = s.turns
    assert turn.request == "/init"
    assert "refused_tool" in turn.signals
    (write,) = [c for c in turn.tool_calls if c.name == "Write"]
    assert not write.ok and "requested permissions" in write.error_head


def test_image_tool_result_without_a_prompt_yields_nothing(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", shared(f"claude-code/{IMAGE}"))
    source = ClaudeCodeSource(root)
    assert list(source.sessions()) == []
    assert source.stats.dropped["empty"] == 1
    assert source.stats.lines_skipped == 0


def test_subagent_files_are_not_sessions(tmp_path: Path) -> None:
    src = shared(f"claude-code/{DAG}")
    root = claude_tree(tmp_path / "claude", src)
    folder = root / "projects" / "-path-to-project"
    shutil.copy(src, folder / "agent-1234.jsonl")  # 2.0.x layout
    (folder / "s1" / "subagents" / "workflows" / "w").mkdir(parents=True)
    shutil.copy(src, folder / "s1" / "subagents" / "agent-9.jsonl")  # 2.1.x layout
    shutil.copy(src, folder / "s1" / "subagents" / "workflows" / "w" / "agent-8.jsonl")
    source = ClaudeCodeSource(root)
    assert [p.name for p in source.discover()] == [DAG]


def test_claude_config_dir_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = claude_tree(tmp_path / "cfg", shared(f"claude-code/{DAG}"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert len(list(ClaudeCodeSource().sessions())) == 1


# --- Codex --------------------------------------------------------------------------------



def test_codex_ide_preamble_mirrors_and_exit_codes(tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", shared(f"codex/{_VSCODE_ROLLOUT}"), _ROLLOUT_ID)
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    # SOURCES.md says 13 requests; the file holds 2 user_message events (and 2 mirrors):
    # the number there is the sample's number. Each request counts once.
    assert [t.request for t in s.turns] == [
        s.turns[0].request, "so prefetching isn't slowing down data loading for the intial load?"]
    assert s.turns[0].request.startswith("When I load the dashboard, I see 4 queries.")
    assert all("# Context from my IDE setup" not in t.request for t in s.turns)
    assert all("environment_context" not in t.request for t in s.turns)
    failed = [c for c in s.turns[0].tool_calls if c.ok is False]
    assert len(failed) == 3 and all(c.error_head.startswith("exit ") for c in failed)
    assert {c.error_head.split(":")[0] for c in failed} == {"exit 1", "exit 2"}
    assert "nonzero_exit" in s.turns[0].signals
    assert s.session_id == _ROLLOUT_ID and s.format_version == "0.40.0"
    assert s.project.endswith("/spectora/src/spectora-labs-monorepo-v2")
    assert not s.headless  # originator codex_vscode


def test_codex_compacted_record_is_not_a_request(tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", shared(f"codex/{COMPACTED}"),
               "11111111-2222-3333-4444-555555555555")
    (s,) = list(CodexSource(tmp_path / "codex").sessions())
    requests = [t.request for t in s.turns]
    assert requests == ["Help me build the API endpoints", "Add the user CRUD endpoints",
                        "Now add product endpoints", "Now add the authentication middleware"]
    assert s.session_id == "compact-codex-001"


def test_codex_turn_aborted_is_an_interrupt(tmp_path: Path) -> None:
    target = codex_tree(tmp_path / "codex", shared("codex/agentcmd__event-turn-aborted.jsonl"),
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
    import os
    rollout = shared(f"codex/{_VSCODE_ROLLOUT}")
    live = codex_tree(tmp_path / "codex", rollout, _ROLLOUT_ID)
    old = codex_tree(tmp_path / "codex", rollout, _ROLLOUT_ID, archived=True)
    os.utime(old, (1, 1))
    assert CodexSource(tmp_path / "codex").discover() == [live]


# --- VS Code ------------------------------------------------------------------------------


def test_vscode_oplog_cancelled_request(tmp_path: Path) -> None:
    vscode_tree(tmp_path / "ws", shared(f"copilot-vscode/{OPLOG}"),
                "file:///path/to/strapi%20app")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    assert [t.request for t in s.turns] == ["migrate to quarkus"]
    assert s.turns[0].signals == ["cancelled"]
    assert s.project == "/path/to/strapi app"
    assert s.session_id == "0885a5a2-5c49-4a15-b22a-15d9ec401050"
    assert {c.name for c in s.turns[0].tool_calls} >= {"runSubagent"}


def test_vscode_export_json_failed_mcp_tool(tmp_path: Path) -> None:
    export = "copilot-chat-analyzer__parse-export-mcp-chat-json_chat_error_mcp.json"
    vscode_tree(tmp_path / "ws", shared(f"copilot-vscode/{export}"), "file:///path/to/cms")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    (turn,) = s.turns
    assert turn.request.startswith("вызови метод update_entry_fields")
    (call,) = turn.tool_calls
    assert not call.ok and "update_entry_fields" in call.name
    assert turn.signals == ["tool_error"]


def test_vscode_unfinished_request_is_not_a_turn(tmp_path: Path) -> None:
    import json
    target = vscode_tree(tmp_path / "ws",
                         shared(f"copilot-vscode/{OPLOG}"),
                         "file:///path/to/app")
    pending = {"requestId": "r2", "timestamp": 1779626600000, "message": {"text": "and tests?"},
               "response": [], "modelState": {"value": 0}}
    with target.open("a") as fh:
        fh.write("\n" + json.dumps({"kind": 2, "k": ["requests"], "v": [pending]}) + "\n")
    (s,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions())
    assert [t.request for t in s.turns] == ["migrate to quarkus"]


# --- Copilot CLI --------------------------------------------------------------------------


def test_copilot_cli_subagent_belongs_to_its_tool_call(tmp_path: Path) -> None:
    copilot_tree(tmp_path / "cp", shared(f"copilot-cli/{EVENTS}"), "demo")
    source = CopilotCliSource(tmp_path / "cp", include_headless=True)
    (s,) = list(source.sessions())
    (turn,) = s.turns
    assert turn.request.startswith("Read .copilot/skills/demo-greeter/SKILL.md")
    assert turn.final_answer.startswith("Subagent findings:")
    names = [c.name for c in turn.tool_calls]
    assert names == ["view", "task"]  # the subagent's two views are not the main thread's
    (task,) = [c for c in turn.tool_calls if c.name == "task"]
    assert task.args["subagent_tool_calls"] == 2
    assert s.skills_used == ["demo-greeter"]
    assert s.project.endswith("/workspace/demo-project")
    assert s.format_version == "1.0.55-1"
    assert s.headless  # "running in non-interactive mode": a copilot -p session
    assert list(CopilotCliSource(tmp_path / "cp").sessions()) == []


@pytest.mark.parametrize("name", [
    "claude-code-log__dag_compact_after_rewind.jsonl",
    "claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "agentcmd__full-session-four.jsonl",
])
def test_large_file_mode_gives_the_same_session(tmp_path: Path, name: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.harvest import claude_code
    inline = _claude(tmp_path / "a", name)
    monkeypatch.setattr(claude_code, "SPILL_BYTES", 0)  # keep offsets, parse live lines again
    spilled = _claude(tmp_path / "b", name)
    assert spilled.turns == inline.turns and spilled.files_touched == inline.files_touched


# --- resuming from a checkpoint, at every split of every shared file ------------------------


@pytest.mark.parametrize("name", [
    "agentcmd__full-session-four.jsonl",
    "claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    DAG,
])
def test_claude_every_split_resumes_as_from_scratch(tmp_path: Path, name: str) -> None:
    from .test_harvest_resume import check_every_claude_split
    check_every_claude_split(tmp_path, _lines(shared(f"claude-code/{name}")))


@pytest.mark.parametrize(("source", "name"), [
    ("codex", COMPACTED), ("codex", _VSCODE_ROLLOUT),
    ("codex", "agentcmd__event-turn-aborted.jsonl"), ("copilot-cli", EVENTS)])
def test_every_split_resumes_as_from_scratch(tmp_path: Path, source: str, name: str) -> None:
    lines = _lines(shared(f"{source}/{name}"))
    # Splits before the first request leave nothing archived to resume from.
    assert check_every_split(source, tmp_path, lines) >= len(lines) - 4


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return (data if data.endswith(b"\n") else data + b"\n").splitlines(keepends=True)


def test_vscode_request_streaming_without_a_result_is_left_for_the_next_pass(
        tmp_path: Path) -> None:
    import json
    target = vscode_tree(tmp_path / "ws", shared(f"copilot-vscode/{OPLOG}"), "file:///path/to/app")
    running = {"requestId": "r2", "timestamp": 1779626600000, "message": {"text": "and tests?"},
               "response": [{"value": "I'll add JUnit tests for the reso"}]}  # no result yet
    with target.open("a") as fh:
        fh.write("\n" + json.dumps({"kind": 2, "k": ["requests"], "v": [running]}) + "\n")
    source = CopilotVSCodeSource(tmp_path / "ws")
    (s,) = list(source.sessions())
    assert [t.request for t in s.turns] == ["migrate to quarkus"]
    assert source.stats.dropped["unfinished"] == 1


def test_every_failed_command_in_the_corpus_carries_its_exit_code(tmp_path: Path) -> None:
    """Across the whole shared corpus: a call's outcome is True, False or None (never
    assumed), and a failure that states an exit code keeps it with ``nonzero_exit``."""
    from skillopt_sleep.harvest.sources import SOURCE_NAMES, make_source

    calls = coded = 0
    for name in SOURCE_NAMES:
        for path in sorted(shared(name).iterdir()):
            for session in make_source(name, tmp_path, include_headless=True).sessions_from(path):
                for turn in session.turns:
                    for call in turn.tool_calls:
                        calls += 1
                        assert call.ok in (True, False, None)
                        if call.ok is False and call.error_head.startswith("exit "):
                            coded += 1
                            assert call.exit_code == int(call.error_head[5:].split(":")[0])
                            assert "nonzero_exit" in turn.signals
    assert calls > 20 and coded > 0
