"""Transcripts written by the real agent CLIs, against a scripted model server, harvested.

Each CLI runs a three-turn session in a temporary home: a tool call that succeeds, a tool
call that fails, and a correction from the user. The harvest must see three requests, the
failure on the second turn and the correction as that turn's reaction.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.sources import Filter, make_source
from skillopt_sleep.paths import archive_path
from skillopt_sleep.records import Session

from ._clis import cli
from .fakes.llm_server import FakeLLMServer, Script, Text, ToolThenText
from .test_harvest_resume_more import check_every_split

PROMPTS = ["list the files here", "run the release check", "no, use the dry-run flag instead"]


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("demo\n")
    return repo


def _run(args: list[str], env: dict[str, str], cwd: Path) -> None:
    result = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, (args, result.stdout[-2000:], result.stderr[-2000:])


def _three_turns(tool: str, listing: dict[str, str], failing: dict[str, str]) -> list[Script]:
    """The model's side of the session: a listing that works, a check that fails, a fix."""
    return [ToolThenText(tool, listing, "Here they are."),
            ToolThenText(tool, failing, "The check failed."),
            Text("Using the dry-run flag.")]


def _nightly(source: str, root: Path) -> None:
    """A harvest between two runs of the CLI: the next one finds the same file grown."""
    list(harvest(Archive(archive_path()), [make_source(source, root)]))


def _resumes_as_from_scratch(source: str, root: Path, tmp_path: Path) -> None:
    """The file grown by the CLI itself was resumed; any split of it resumes exactly."""
    stats = HarvestStats()
    list(harvest(Archive(archive_path()), [make_source(source, root, stats=stats)]))
    assert stats.files_unchanged == 1  # the last harvest already resumed it
    (path,) = make_source(source, root).discover()
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    # Splits before the first request have nothing archived to resume from.
    assert check_every_split(source, tmp_path / "splits", lines) >= len(lines) // 2


def _harvested(source: str, root: Path) -> Session:
    stats = HarvestStats()
    sessions = list(harvest(Archive(archive_path()), [make_source(source, root, stats=stats)],
                            Filter(include_headless=True)))
    assert len(sessions) == 1, sessions
    if source != "claude-code":  # harvested after each run: the last run's bytes resumed
        assert stats.files_resumed == 1 and stats.resume_fallbacks == 0, stats
    return sessions[0]


def _check(session: Session, project: Path) -> None:
    assert [t.request for t in session.turns] == PROMPTS
    assert session.project == os.path.realpath(project)
    first, second, third = session.turns
    assert first.tool_calls and all(c.ok is True for c in first.tool_calls)
    assert [c.ok for c in second.tool_calls] == [False]
    assert second.signals == ["nonzero_exit"]  # every agent's, Claude Code's included
    assert [c.exit_code for c in second.tool_calls] == [3]
    assert second.reaction == "correction"
    assert third.final_answer == "Using the dry-run flag."
    assert session.headless  # the CLIs' print/exec modes are headless sessions


@pytest.mark.timeout(180)
def test_claude_code_session(tmp_path: Path) -> None:
    claude = str(cli("claude"))
    repo, home = _repo(tmp_path), tmp_path / "home"
    home.mkdir()
    script = _three_turns("Bash", {"command": "ls", "description": "List files"},
                          {"command": "exit 3", "description": "Release check"})
    with FakeLLMServer(script, default=Text("ok")) as server:
        env = {**os.environ, "HOME": str(home), "ANTHROPIC_BASE_URL": server.url,
               "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_ERROR_REPORTING": "1"}
        env.pop("CLAUDE_CONFIG_DIR", None)
        sid = str(uuid.uuid4())
        _run([claude, "-p", "--session-id", sid, "--allowedTools=Bash", PROMPTS[0]], env, repo)
        for prompt in PROMPTS[1:]:
            _run([claude, "-p", "--resume", sid, "--allowedTools=Bash", prompt], env, repo)
    session = _harvested("claude-code", home / ".claude")
    assert session.session_id == sid
    _check(session, repo)


@pytest.mark.timeout(180)
def test_codex_session(tmp_path: Path) -> None:
    codex = str(cli("codex"))
    repo, codex_home = _repo(tmp_path), tmp_path / "codex-home"
    codex_home.mkdir()
    script = _three_turns("exec_command", {"cmd": "ls"}, {"cmd": "exit 3"})
    with FakeLLMServer(script, default=Text("ok")) as server:
        (codex_home / "config.toml").write_text(
            'model_provider = "fake"\nmodel = "gpt-5"\napproval_policy = "never"\n'
            'sandbox_mode = "workspace-write"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.openai_base_url}"\nwire_api = "responses"\n'
            'env_key = "FAKE_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
        env = {**os.environ, "HOME": str(tmp_path), "CODEX_HOME": str(codex_home),
               "FAKE_API_KEY": "dummy"}
        _run([codex, "exec", PROMPTS[0]], env, repo)
        for prompt in PROMPTS[1:]:
            _nightly("codex", codex_home)
            _run([codex, "exec", "resume", "--last", prompt], env, repo)
    _check(_harvested("codex", codex_home), repo)
    _resumes_as_from_scratch("codex", codex_home, tmp_path)


@pytest.mark.timeout(300)
def test_copilot_cli_session(tmp_path: Path) -> None:
    copilot = str(cli("copilot"))
    repo, home = _repo(tmp_path), tmp_path / "home"
    home.mkdir()
    script = _three_turns("bash", {"command": "ls", "description": "List files"},
                          {"command": "exit 3", "description": "Release check"})
    with FakeLLMServer(script, default=Text("ok")) as server:
        env = {**os.environ, "HOME": str(home), "COPILOT_OFFLINE": "true",
               "COPILOT_PROVIDER_TYPE": "anthropic", "COPILOT_PROVIDER_BASE_URL": server.url,
               "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "claude-sonnet-4.5"}
        env.pop("COPILOT_HOME", None)
        _run([copilot, "-p", PROMPTS[0], "--allow-all-tools"], env, repo)
        for prompt in PROMPTS[1:]:
            _nightly("copilot-cli", home / ".copilot")
            _run([copilot, "--continue", "-p", prompt, "--allow-all-tools"], env, repo)
    _check(_harvested("copilot-cli", home / ".copilot"), repo)
    _resumes_as_from_scratch("copilot-cli", home / ".copilot", tmp_path)
