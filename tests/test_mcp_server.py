"""The MCP server, driven over stdio by the SDK's client, raw JSON-RPC, and the Inspector CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, CancelledNotification, CancelledNotificationParams

from skillopt_sleep.cli.mcp_server import failure_message, parse_output
from tests._clis import cli
from tests._harvest_layout import claude_tree

TOOLS = {"sleep_status", "sleep_run", "sleep_job", "sleep_report", "sleep_adopt",
         "sleep_rollback", "sleep_harvest_preview"}
SERVER = [sys.executable, "-m", "skillopt_sleep", "mcp"]


def _env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    home = tmp_path / "user-home"
    home.mkdir(exist_ok=True)
    return {"PATH": os.environ["PATH"], "HOME": str(home),
            "SKILLOPT_SLEEP_HOME": str(isolated_home),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex")}


@asynccontextmanager
async def _session(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _ok_or_clear_error(result: CallToolResult, command: str) -> None:
    """A command another part may not have shipped yet must fail as a clear tool error."""
    if result.is_error:
        assert f"`skillopt-sleep {command}` " in _text(result), _text(result)
    else:
        assert isinstance(result.structured_content, dict)
        assert result.structured_content["exit_code"] in (0, 3)


def _run_async(fn: Any, *args: Any) -> None:
    anyio.run(fn, *args)


# --- the SDK client over stdio --------------------------------------------------------------


def test_tools_have_their_own_schemas_and_annotations(tmp_path: Path,
                                                      isolated_home: Path) -> None:
    async def body() -> None:
        async with _session(_env(tmp_path, isolated_home)) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        props = {n: set(t.input_schema.get("properties", {})) for n, t in tools.items()}
        assert props["sleep_status"] == set()
        assert props["sleep_job"] == {"job_id"}
        assert props["sleep_adopt"] == {"night", "skill", "all_skills"}
        assert props["sleep_rollback"] == {"skill", "to_version"}
        assert {"project", "dry_run", "adopt"} == props["sleep_run"]
        for name in ("sleep_adopt", "sleep_rollback"):
            ann = tools[name].annotations
            assert ann is not None and ann.destructive_hint and not ann.read_only_hint
        for name in ("sleep_status", "sleep_job", "sleep_report"):
            ann = tools[name].annotations
            assert ann is not None and ann.read_only_hint
        ann = tools["sleep_run"].annotations
        assert ann is not None and not ann.read_only_hint

    _run_async(body)


def test_every_tool_answers_or_fails_clearly(tmp_path: Path, isolated_home: Path) -> None:
    claude_tree(tmp_path / "claude", "bugfix_snapshots.jsonl")

    async def body() -> None:
        async with _session(_env(tmp_path, isolated_home)) as session:
            _ok_or_clear_error(await session.call_tool("sleep_status", {}), "status")
            _ok_or_clear_error(await session.call_tool("sleep_report", {}), "report")
            _ok_or_clear_error(await session.call_tool(
                "sleep_adopt", {"skill": "skillopt-sleep-learned"}), "adopt")
            _ok_or_clear_error(await session.call_tool(
                "sleep_rollback", {"skill": "skillopt-sleep-learned"}), "rollback")
            preview = await session.call_tool(
                "sleep_harvest_preview", {"source": "claude-code", "limit": 5})
            assert not preview.is_error, _text(preview)
            data = preview.structured_content
            assert data is not None and data["total"] >= 1 and data["shown"] >= 1
            assert data["sessions"][0]["source"] == "claude-code"
            assert data["summary"] is not None
            await session.send_ping()  # still serving after every failure above

    _run_async(body)


def test_run_returns_a_job_at_once_and_the_job_reports_its_end(tmp_path: Path,
                                                              isolated_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()

    async def body() -> None:
        async with _session(_env(tmp_path, isolated_home)) as session:
            start = time.monotonic()
            started = await session.call_tool("sleep_run", {"project": str(project),
                                                            "dry_run": True})
            assert time.monotonic() - start < 2.0, "sleep_run must not wait for the night"
            assert not started.is_error, _text(started)
            assert started.structured_content is not None
            job_id = started.structured_content["job_id"]
            info: dict[str, Any] = {}
            for _ in range(300):
                job = await session.call_tool("sleep_job", {"job_id": job_id})
                assert not job.is_error, _text(job)
                info = job.structured_content or {}
                if info["state"] != "running":
                    break
                await anyio.sleep(0.2)
            assert info["state"] in ("succeeded", "failed")
            assert (info["state"] == "succeeded") == (info["exit_code"] in (0, 3))
            assert "result" in info and isinstance(info["progress"], list)
            if info["state"] == "succeeded":
                assert info["result"].get("dry_run") is True, info["result"]
            assert info["command"][:2] == ["run", "--json"]
            missing = await session.call_tool("sleep_job", {"job_id": "0" * 12})
            assert missing.is_error and "no job" in _text(missing)

    _run_async(body)


def test_bad_arguments_are_refused_before_any_command_runs(tmp_path: Path,
                                                         isolated_home: Path) -> None:
    env = _env(tmp_path, isolated_home)

    async def body() -> None:
        async with _session(env) as session:
            bad: list[tuple[str, dict[str, Any]]] = [
                ("sleep_adopt", {"skill": "../../etc"}),
                ("sleep_adopt", {"skill": "--all"}),
                ("sleep_adopt", {"skill": "a", "all_skills": True}),
                ("sleep_adopt", {}),
                ("sleep_rollback", {"skill": "-rf"}),
                ("sleep_rollback", {"skill": "ok", "to_version": 0}),
                ("sleep_report", {"night": "last; rm -rf /"}),
                ("sleep_run", {"project": "relative/path"}),
                ("sleep_run", {"adopt": "always"}),
                ("sleep_job", {"job_id": "../x"}),
            ]
            for tool, args in bad:
                result = await session.call_tool(tool, args)
                assert result.is_error, (tool, args)
        # Nothing was adopted or written anywhere under the user's homes.
        assert not (Path(env["HOME"]) / ".agents").exists()
        assert not (tmp_path / "claude" / "skills").exists()

    _run_async(body)


def test_cancelled_notification_is_not_answered_and_the_server_keeps_serving(
        tmp_path: Path, isolated_home: Path) -> None:
    async def body() -> None:
        async with _session(_env(tmp_path, isolated_home)) as session:
            await session.send_notification(CancelledNotification(
                params=CancelledNotificationParams(request_id=999, reason="user stopped it")))
            await session.send_ping()
            assert len((await session.list_tools()).tools) == len(TOOLS)

    _run_async(body)


# --- raw JSON-RPC: stdout carries protocol only; notifications get no reply -----------------


def test_raw_stdio_has_only_protocol_and_no_reply_to_notifications(
        tmp_path: Path, isolated_home: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled",
         "params": {"requestId": 42, "reason": "gone"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "sleep_job", "arguments": {"job_id": "0" * 12}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=_env(tmp_path, isolated_home))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    replies: list[dict[str, Any]] = []
    try:
        while len(replies) < 3:
            line = proc.stdout.readline()
            assert line, "server closed stdout early"
            replies.append(json.loads(line))  # any non-JSON on stdout fails here
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert [r.get("id") for r in replies] == [1, 2, 3]
    assert all("error" not in r for r in replies), replies
    assert replies[1]["result"]["isError"] is True
    assert proc.stdout.read() == ""


# --- pieces with the real CLI ---------------------------------------------------------------


def test_a_missing_cli_command_becomes_a_clear_message() -> None:
    real = subprocess.run([sys.executable, "-m", "skillopt_sleep", "no-such-night-cmd"],
                          capture_output=True, text=True, timeout=60)
    assert real.returncode == 2
    message = failure_message("no-such-night-cmd", real.returncode, real.stderr)
    assert "is not available in this installation" in message


def test_json_lines_output_is_split_into_items_and_summary() -> None:
    lines = '{"a": 1}\n{"a": 2}\n{"summary": {"n": 2}}\n'
    assert parse_output(lines) == {"items": [{"a": 1}, {"a": 2}], "summary": {"n": 2}}
    assert parse_output('{"night": "x"}') == {"night": "x"}
    assert parse_output("") == {}
    assert parse_output("plain words") == {"text": "plain words"}


# --- the MCP Inspector CLI ------------------------------------------------------------------


@pytest.mark.timeout(300)
def test_inspector_cli_lists_and_calls_tools(tmp_path: Path, isolated_home: Path) -> None:
    inspector = cli("mcp-inspector")
    env = {**_env(tmp_path, isolated_home), "PATH": os.environ["PATH"]}
    base = [str(inspector), "--cli", *SERVER]
    listed = subprocess.run([*base, "--method", "tools/list"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == TOOLS
    called = subprocess.run([*base, "--method", "tools/call", "--tool-name", "sleep_job",
                             "--tool-arg", "job_id=0123456789ab"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert called.returncode == 0, called.stderr[-2000:]
    reply = json.loads(called.stdout)
    assert reply["isError"] is True and "no job" in reply["content"][0]["text"]


# --- the Copilot config snippets start this very server -------------------------------------

COPILOT = Path(__file__).resolve().parents[1] / "plugins" / "copilot"


@pytest.mark.parametrize("name,key", [("vscode-mcp.json", "servers"),
                                      ("copilot-cli-mcp-config.json", "mcpServers")])
def test_copilot_config_snippets_start_the_server(name: str, key: str, tmp_path: Path,
                                                  isolated_home: Path) -> None:
    config = json.loads((COPILOT / name).read_text(encoding="utf-8"))
    assert set(config) == {key}
    entry = config[key]["skillopt-sleep"]
    assert entry["type"] in ("stdio", "local") and entry["command"] == "skillopt-sleep"
    assert "${" not in json.dumps(entry), "no client-specific variables"
    env = _env(tmp_path, isolated_home)
    # The client finds the console script on PATH, as after `pipx install`.
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"

    async def body() -> None:
        params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                       env={**env, **entry.get("env", {})})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            assert {t.name for t in (await s.list_tools()).tools} == TOOLS

    _run_async(body)


def test_harvest_preview_shows_what_an_earlier_harvest_archived(tmp_path: Path,
                                                               isolated_home: Path) -> None:
    # The daemon's watcher (here: a harvest run before) archives the sessions first; the
    # preview must still show them, since no night has learned from them yet.
    claude_tree(tmp_path / "claude", "bugfix_snapshots.jsonl")
    env = _env(tmp_path, isolated_home)
    before = subprocess.run([sys.executable, "-m", "skillopt_sleep", "harvest", "--json"],
                            env=env, capture_output=True, text=True, timeout=120, check=True)
    harvested = [json.loads(x) for x in before.stdout.splitlines()][:-1]
    assert harvested

    async def body() -> None:
        async with _session(env) as session:
            preview = await session.call_tool("sleep_harvest_preview", {"limit": 5})
        data = preview.structured_content
        assert data is not None and data["total"] == len(harvested), _text(preview)
        assert data["summary"]["files_unchanged"] >= 1 and data["summary"]["next_night"]
        assert {s["session_id"] for s in data["sessions"]} <= {h["session_id"]
                                                               for h in harvested}

    _run_async(body)


def test_report_tool_returns_a_summary_unless_asked_for_everything(
        tmp_path: Path, isolated_home: Path) -> None:
    from skillopt_sleep.cli.mcp_server import SUMMARY_BYTES
    from skillopt_sleep.publish import staging
    from tests.test_report_digest import NIGHT, _night

    results = [_night("fix", 3, 200), _night("docs", 25, 3000)]
    staging.stage(isolated_home / "state" / "nights", NIGHT, "/p", results,
                  {r.skill: {} for r in results}, "<html></html>")

    async def body() -> None:
        async with _session(_env(tmp_path, isolated_home)) as session:
            brief = (await session.call_tool("sleep_report", {})).structured_content
            full = (await session.call_tool("sleep_report", {"full": True})).structured_content
        assert brief is not None and full is not None
        assert len(json.dumps(brief).encode()) <= SUMMARY_BYTES + 64  # + exit_code
        assert "results" not in brief and brief["report_path"].endswith("report.html")
        assert len(full["results"]) == 2 and len(json.dumps(full)) > 20 * SUMMARY_BYTES

    _run_async(body)


def test_fit_drops_list_items_from_the_end_and_counts_them() -> None:
    from skillopt_sleep.cli.mcp_server import fit

    result = {"items": [{"n": i, "text": "x" * 500} for i in range(40)], "summary": {"a": 1}}
    cut = fit(result, 8192)
    assert len(json.dumps(cut)) <= 8192 and cut["summary"] == {"a": 1}
    assert [i["n"] for i in cut["items"]] == list(range(len(cut["items"])))
    assert cut["omitted"] == 40 - len(cut["items"]) > 0
