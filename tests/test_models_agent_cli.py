"""The claude-code and codex backends, end to end with the real CLIs against a fake server."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.errors import AuthError, ModelError
from skillopt_sleep.models.agent_cli import ClaudeCodeLLM
from skillopt_sleep.models.codex_cli import CodexLLM
from skillopt_sleep.models.pricing import price_for
from skillopt_sleep.models.registry import build_llm
from skillopt_sleep.models.retry import RetryPolicy
from skillopt_sleep.records import SENTINEL
from tests._clis import cli
from tests.fakes import FakeLLMServer, Status, Text, ToolThenText

pytestmark = pytest.mark.realcli

POLICY = RetryPolicy(attempts=2, initial_wait_s=0.01, max_wait_s=0.02, timeout_s=90.0)
CLIS: dict[str, Path] = {}
MESSAGES = [{"role": "system", "content": "House rule: answer in one line."},
            {"role": "user", "content": f"{SENTINEL}\nSay hi."}]


@pytest.fixture(scope="module")
def clis() -> dict[str, Path]:
    """The CLIs, resolved before HOME moves (their install cache lives under the real one)."""
    CLIS.update(claude=cli("claude"), codex=cli("codex"))
    return CLIS


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clis: dict[str, Path]) -> Path:
    """The user's real homes, pointed at tmp: replays must leave them untouched."""
    home = tmp_path / "user-home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file())


# --- Claude Code ----------------------------------------------------------------------------


def claude(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> ClaudeCodeLLM:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return ClaudeCodeLLM("claude-haiku-4-5", price=price_for("claude-code:claude-haiku-4-5"),
                         base_url=server.url, policy=POLICY, executable=CLIS["claude"])


def test_claude_code_answers_through_the_harness(
        homes: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = claude(server, monkeypatch)
    server.push(Text("hi from the harness", input_tokens=1200, output_tokens=30))
    completion = llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    assert completion.text == "hi from the harness"
    assert completion.usage.output_tokens == 30 and completion.cost_usd > 0
    requests = server.model_requests()
    assert len(requests) == 1 and requests[0].query.get("beta") == ["true"]
    body = json.dumps(requests[0].body)
    assert SENTINEL in body and "House rule: answer in one line." in body
    assert requests[0].body.get("tools") in (None, [])
    assert files_under(homes) == []


def test_claude_code_reports_its_prompt_cache_and_the_skill_rides_in_the_system_prompt(
        homes: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = claude(server, monkeypatch)
    server.push(Text("hi", input_tokens=40, output_tokens=10, cache_read_tokens=3000,
                     cache_write_tokens=500))
    completion = llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    u = completion.usage
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (40, 3000, 500)
    system = json.dumps(server.model_requests()[0].body.get("system"))
    assert "House rule: answer in one line." in system  # appended to Claude Code's own
    assert "cache_control" in system  # which Claude Code marks for the cache itself


def test_claude_code_reports_the_tools_it_ran(
        homes: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = claude(server, monkeypatch)
    server.push(ToolThenText("Bash", {"command": "echo from-bash", "description": "echo"},
                             "ran it"))
    completion = llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0,
                              tools=[{"name": "Bash"}])
    assert completion.text == "ran it"
    assert [(c.name, c.args["command"], c.ok) for c in completion.tool_calls] == [
        ("Bash", "echo from-bash", True)]
    assert [t["name"] for t in server.model_requests()[0].body["tools"]] == ["Bash"]


def test_claude_code_unauthorized_is_an_auth_error(
        homes: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = claude(server, monkeypatch)
    server.default = Status(401)
    with pytest.raises(AuthError, match="401"):
        llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    assert len(server.model_requests()) == 1


def test_claude_code_rate_limit_is_retried(
        homes: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = claude(server, monkeypatch)
    server.push(Status(429), Text("after the limit"))
    assert llm.complete(MESSAGES, max_tokens=100, temperature=0,
                        seed=0).text == "after the limit"


def test_claude_code_without_any_login_stops_with_auth_error(homes: Path) -> None:
    llm = ClaudeCodeLLM(None, price=price_for("claude-code"), executable=CLIS["claude"],
                        policy=POLICY)
    with pytest.raises(AuthError, match="not logged in"):
        llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)


def test_claude_code_subscription_login_is_carried_not_bare(
        homes: Path, server: FakeLLMServer) -> None:
    """With a login file and no API key the CLI must use the login: no --bare."""
    (homes / ".claude" / ".credentials.json").write_text("{}")
    llm = ClaudeCodeLLM(None, price=price_for("claude-code"), base_url=server.url,
                        executable=CLIS["claude"], policy=POLICY)
    command = llm._command("claude", "", [], _box(homes))
    assert "--bare" not in command
    with pytest.raises(AuthError):  # an empty login file is refused by the real CLI
        llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    assert (homes / ".claude" / ".credentials.json").read_text() == "{}"


def _box(root: Path) -> object:
    from skillopt_sleep.models.agent_home import Sandbox

    return Sandbox(root, root, root)


# --- Codex ------------------------------------------------------------------------------------


def codex(server: FakeLLMServer) -> CodexLLM:
    return CodexLLM("gpt-5-codex", price=price_for("codex:gpt-5-codex"),
                    base_url=server.openai_base_url, policy=POLICY, executable=CLIS["codex"])


def test_codex_answers_and_reports_commands(homes: Path, server: FakeLLMServer) -> None:
    server.push(ToolThenText("exec_command", {"cmd": "echo from-codex"}, "codex ran it"))
    completion = codex(server).complete(MESSAGES, max_tokens=100, temperature=0, seed=0,
                                        tools=[{"name": "shell"}])
    assert completion.text == "codex ran it"
    assert len(completion.tool_calls) == 1
    call = completion.tool_calls[0]
    assert call.name == "exec_command" and "echo from-codex" in call.args["cmd"] and call.ok
    assert completion.usage.input_tokens > 0 and completion.cost_usd > 0
    first = json.dumps(server.model_requests()[0].body)
    assert SENTINEL in first and "House rule: answer in one line." in first
    assert files_under(homes) == []


def test_codex_unauthorized_is_an_auth_error(homes: Path, server: FakeLLMServer) -> None:
    server.default = Status(401)
    with pytest.raises(AuthError, match="401"):
        codex(server).complete(MESSAGES, max_tokens=100, temperature=0, seed=0)


def test_codex_rate_limit_is_retried_then_fails(homes: Path, server: FakeLLMServer) -> None:
    server.default = Status(429)
    with pytest.raises(ModelError, match="429"):
        codex(server).complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    assert len(server.model_requests()) == POLICY.attempts


def test_codex_uses_the_users_provider_config(homes: Path, server: FakeLLMServer) -> None:
    (homes / ".codex" / "config.toml").write_text(
        'model_provider = "fake"\n'
        "[model_providers.fake]\n"
        f'name = "fake"\nbase_url = "{server.openai_base_url}"\nwire_api = "responses"\n'
        'env_key = "FAKE_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    os.environ["FAKE_API_KEY"] = "dummy"
    try:
        server.push(Text("configured provider"))
        llm = build_llm("codex", policy=POLICY)
        llm.executable = str(CLIS["codex"])  # type: ignore[attr-defined]
        assert llm.complete(MESSAGES, max_tokens=10, temperature=0,
                            seed=0).text == "configured provider"
    finally:
        del os.environ["FAKE_API_KEY"]
    assert [p.name for p in files_under(homes)] == ["config.toml"]


def test_codex_without_any_login_stops_with_auth_error(homes: Path) -> None:
    llm = CodexLLM(None, price=price_for("codex"), executable=CLIS["codex"], policy=POLICY)
    with pytest.raises(AuthError, match="codex login"):
        llm.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
