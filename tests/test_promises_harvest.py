"""What the harvesters promise about whose words a session holds, through their public
sources: a subagent's records never replace the user's request wherever they sit in the
file, and the engine's own sessions (its prompts carry ``records.SENTINEL``) are never
harvested as the user's, whether the marker is in a request or in a system message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.records import SENTINEL, Session

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, fixture

REQUEST = "/orchestrator README.md を最新の状態に更新してください"


def _claude_session(root: Path) -> list[Session]:
    source = ClaudeCodeSource(root, include_headless=True)
    return [s for path in source.discover() for s in source.sessions_from(path)]


@pytest.mark.parametrize("where", ["last", "first", "as written"])
def test_sidechain_records_never_become_the_request_wherever_they_sit(
        tmp_path: Path, where: str) -> None:
    lines = fixture("claude-code/slash_sidechain.jsonl").read_text().splitlines()
    side = [line for line in lines if json.loads(line).get("isSidechain") is True]
    main = [line for line in lines if line not in side]
    assert side, "the fixture holds a subagent's records"
    order = {"last": main + side, "first": side + main, "as written": lines}[where]
    moved = tmp_path / "src" / "sidechain.jsonl"
    moved.parent.mkdir()
    moved.write_text("\n".join(order) + "\n")
    (s,) = _claude_session(claude_tree(tmp_path / "claude", moved))
    assert [t.request for t in s.turns] == [REQUEST]
    (turn,) = s.turns
    assert "Bash" not in {c.name for c in turn.tool_calls}  # the subagent's own call
    assert turn.final_answer.startswith("README.md")


# --- the engine's own sessions -------------------------------------------------------------

PROMPT = "list the files here"  # the first request of each pinned CLI transcript


def _marked(text: str) -> str:
    """The transcript as the engine's replay would leave it: its prompt starts with the
    sentinel line (``models.base``)."""
    assert PROMPT in text
    return text.replace(PROMPT, json.dumps(f"{SENTINEL}\n{PROMPT}")[1:-1])


def _harvest(agent: str, tmp_path: Path, edit: bool, mark: object = _marked) -> list[Session]:
    name = {"claude-code": "cli-2.1.330_print.jsonl", "codex": "cli-0.169.0_exec.jsonl",
            "copilot-cli": "cli-1.0.102_print.jsonl"}[agent]
    text = fixture(f"{agent}/{name}").read_text()
    src = tmp_path / "src" / name
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(mark(text) if edit else text)  # type: ignore[operator]
    if agent == "claude-code":
        return _claude_session(claude_tree(tmp_path / "claude", src))
    if agent == "codex":
        codex_tree(tmp_path / "codex", src, "01a20f9d-3eaa-7923-bd19-c9dd4b868318")
        return list(CodexSource(tmp_path / "codex", include_headless=True).sessions())
    copilot_tree(tmp_path / "cp", src, "2f911c57")
    return list(CopilotCliSource(tmp_path / "cp", include_headless=True).sessions())


@pytest.mark.parametrize("agent", ["claude-code", "codex", "copilot-cli"])
def test_a_session_the_engine_prompted_is_dropped(tmp_path: Path, agent: str) -> None:
    assert len(_harvest(agent, tmp_path / "plain", edit=False)) == 1
    assert _harvest(agent, tmp_path / "engine", edit=True) == []


def _system_marked(text: str) -> str:
    """A Copilot CLI session whose system message (the engine's instructions) carries the
    sentinel while every request reads as the user's."""
    out = []
    for line in text.splitlines():
        event = json.loads(line)
        if event["type"] == "system.message":
            event["data"]["content"] = f"{SENTINEL}\n{event['data']['content']}"
        out.append(json.dumps(event))
    assert any(SENTINEL in line for line in out)
    return "\n".join(out) + "\n"


def test_a_copilot_cli_session_with_the_sentinel_in_its_system_message_is_dropped(
        tmp_path: Path) -> None:
    assert _harvest("copilot-cli", tmp_path / "engine", edit=True, mark=_system_marked) == []
