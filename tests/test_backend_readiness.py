"""Backends check themselves without a model call: the real CLIs' install and login status,
and the SDK backends' credentials and endpoint (a model list from the fake server)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from skillopt_sleep.models.agent_cli import ClaudeCodeLLM
from skillopt_sleep.models.base import BackendOptions, Readiness
from skillopt_sleep.models.codex_cli import CodexLLM
from skillopt_sleep.models.pricing import price_for
from skillopt_sleep.models.registry import backend
from tests._clis import cli
from tests.fakes import FakeLLMServer

KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
        "OPENAI_BASE_URL", "CODEX_API_KEY")


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user-home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    return home


def levels(found: Readiness) -> dict[str, str]:
    return {f.what: f.level for f in found.findings}


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_sdk_backends_check_credentials_and_reach_the_model_list(homes: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    anthropic, chat = backend("anthropic"), backend("openai")
    with FakeLLMServer() as server:
        options = BackendOptions("anthropic:claude-haiku-4-5", "claude-haiku-4-5",
                                 base_url=f"{server.url}/v1")
        assert levels(anthropic.check(options, True)) == {"credentials": "error"}
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        assert levels(anthropic.check(options, False)) == {"credentials": "ok"}
        assert server.requests == []  # without reach, nothing is sent
        assert levels(anthropic.check(options, True)) == {"credentials": "ok", "endpoint": "ok"}
        local = BackendOptions("openai:gpt-4o-mini", "gpt-4o-mini", base_url=server.url)
        assert levels(chat.check(local, True)) == {"credentials": "ok", "endpoint": "ok"}
        assert [r.path for r in server.requests] == ["/v1/models", "/v1/models"]
        remote = BackendOptions("openai:gpt-4o-mini", "gpt-4o-mini")
        (problem,) = chat.check(remote, False).errors
        assert "OPENAI_API_KEY" in problem.detail
    gone = BackendOptions("openai:gpt-4o-mini", "gpt-4o-mini", base_url=closed_url())
    (problem,) = chat.check(gone, True).errors
    assert problem.what == "endpoint" and "cannot connect" in problem.detail


def test_a_cli_missing_from_path_is_named_with_the_fix(homes: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", str(homes))
    for name, binary in (("claude-code", "claude"), ("codex", "codex")):
        (problem,) = backend(name).check(BackendOptions(name, ""), True).errors
        assert problem.what == "installed" and f"`{binary}` CLI is not on PATH" in problem.detail
        assert "npm install -g" in problem.detail


@pytest.mark.realcli
def test_claude_code_login_status_is_read_without_a_model_call(homes: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    exe = cli("claude")
    llm = ClaudeCodeLLM(None, price=price_for("claude-code"), executable=exe)
    found = llm.readiness(True)
    assert levels(found) == {"installed": "ok", "login": "error"}
    assert "2.1.330" in found.findings[0].detail and "not logged in" in found.errors[0].detail
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeLLMServer() as server:
        llm = ClaudeCodeLLM(None, price=price_for("claude-code"), base_url=server.url,
                            executable=exe)
        assert levels(llm.readiness(True)) == {"installed": "ok", "login": "ok",
                                               "endpoint": "ok"}
        assert server.model_requests() == []  # a model list, never a completion
    llm = ClaudeCodeLLM(None, price=price_for("claude-code"), base_url=closed_url(),
                        executable=exe)
    assert levels(llm.readiness(True))["endpoint"] == "error"


@pytest.mark.realcli
def test_codex_login_status_is_read_without_a_model_call(homes: Path):
    exe = cli("codex")
    found = CodexLLM(None, price=price_for("codex"), executable=exe).readiness(True)
    assert levels(found) == {"installed": "ok", "login": "error"}
    assert "codex login" in found.errors[0].detail
    (homes / ".codex" / "auth.json").write_text('{"OPENAI_API_KEY": "sk-test", "tokens": null}')
    found = CodexLLM(None, price=price_for("codex"), executable=exe).readiness(True)
    assert levels(found) == {"installed": "ok", "login": "ok"}
    with FakeLLMServer() as server:
        llm = CodexLLM(None, price=price_for("codex"), base_url=server.url, executable=exe)
        assert levels(llm.readiness(True)) == {"installed": "ok", "login": "ok", "endpoint": "ok"}
        assert [r.path for r in server.requests] == ["/v1/models"]
