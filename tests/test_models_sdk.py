"""The SDK backends, with the real anthropic and openai clients, against a fake server."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from skillopt_sleep.errors import AuthError, ModelError
from skillopt_sleep.models.anthropic import AnthropicLLM
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.openai import OpenAIChatLLM, OpenAIResponsesLLM
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import RetryPolicy
from tests.fakes import FakeLLMServer, Hang, Malformed, Status, Text, ToolUse

PRICE = Price(input_per_mtok=1.0, output_per_mtok=5.0, cache_read_per_mtok=0.1)
POLICY = RetryPolicy(attempts=3, initial_wait_s=0.01, max_wait_s=0.05, timeout_s=1.0)
MESSAGES = [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "[skillopt-sleep replay]\nSay hi."}]
KINDS = ["anthropic", "anthropic-stream", "openai", "openai-stream", "responses",
         "responses-stream"]


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def make(kind: str, server: FakeLLMServer, policy: RetryPolicy = POLICY) -> LLM:
    stream = kind.endswith("-stream")
    if kind.startswith("anthropic"):
        return AnthropicLLM("claude-haiku-4-5", price=PRICE, base_url=server.url,
                            api_key="test-key", policy=policy, stream=stream)
    cls = OpenAIChatLLM if kind.startswith("openai") else OpenAIResponsesLLM
    return cls("gpt-4.1-mini", price=PRICE, base_url=server.openai_base_url,
               api_key="test-key", policy=policy, stream=stream)


def call(llm: LLM, **kw: object) -> object:
    return llm.complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
def test_success_returns_text_usage_and_cost(kind: str, server: FakeLLMServer) -> None:
    server.push(Text("hello there", input_tokens=1000, output_tokens=200, cache_read_tokens=500))
    completion = make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert completion.text == "hello there"
    assert completion.usage.output_tokens == 200
    assert completion.usage.cache_read_tokens == 500
    # Anthropic reports cache reads apart from input; OpenAI includes them in the prompt count.
    expected_in = 1000 if kind.startswith("anthropic") else 500
    assert completion.usage.input_tokens == expected_in
    assert completion.cost_usd == pytest.approx(PRICE.cost(completion.usage))
    assert completion.cost_usd > 0
    body = server.model_requests()[-1].body
    assert body["model"] in ("claude-haiku-4-5", "gpt-4.1-mini")
    assert "Be brief." in str(body)
    assert body.get("stream", False) == kind.endswith("-stream")


@pytest.mark.parametrize("kind", KINDS)
def test_rate_limit_then_success(kind: str, server: FakeLLMServer) -> None:
    server.push(Status(429, headers={"retry-after": "0"}), Status(503), Text("after retry"))
    completion = make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert completion.text == "after retry"
    assert len(server.model_requests()) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_rate_limit_that_persists_is_a_model_error(kind: str, server: FakeLLMServer) -> None:
    server.default = Status(429)
    with pytest.raises(ModelError, match="after 3 attempts"):
        make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert len(server.model_requests()) == 3


@pytest.mark.parametrize("kind", ["anthropic", "openai", "responses"])
def test_timeout_is_retried_then_a_model_error(kind: str, server: FakeLLMServer) -> None:
    server.default = Hang(5.0, Text("too late"))
    policy = RetryPolicy(attempts=2, initial_wait_s=0.01, max_wait_s=0.02, timeout_s=0.3)
    started = time.monotonic()
    with pytest.raises(ModelError, match="after 2 attempts") as info:
        make(kind, server, policy).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert "Timeout" in str(info.value)
    assert time.monotonic() - started < 3.0
    assert len(server.model_requests()) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_timeout_then_success(kind: str, server: FakeLLMServer) -> None:
    server.push(Hang(5.0, Text("late")), Text("on time"))
    policy = RetryPolicy(attempts=2, initial_wait_s=0.01, max_wait_s=0.02, timeout_s=0.3)
    completion = make(kind, server, policy).complete(MESSAGES, max_tokens=50,
                                                     temperature=0.0, seed=0)
    assert completion.text == "on time"


@pytest.mark.parametrize("kind", KINDS)
def test_unauthorized_is_an_auth_error_without_retry(kind: str, server: FakeLLMServer) -> None:
    server.default = Status(401)
    with pytest.raises(AuthError, match="credentials refused"):
        make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert len(server.model_requests()) == 1


@pytest.mark.parametrize("kind", ["anthropic", "openai", "responses"])
@pytest.mark.parametrize("body", ['{"broken": ', '{"unexpected": "shape"}', "<html>oops</html>"])
def test_malformed_body_is_a_model_error(kind: str, body: str, server: FakeLLMServer) -> None:
    server.default = Malformed(body)
    with pytest.raises(ModelError) as info:
        make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)
    assert not isinstance(info.value, AuthError)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_answer_is_an_error_not_a_blank(kind: str, server: FakeLLMServer) -> None:
    server.default = Text("")
    with pytest.raises(ModelError, match="empty answer"):
        make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0, seed=0)


@pytest.mark.parametrize("kind", KINDS)
def test_tool_call_comes_back_as_tool_calls(kind: str, server: FakeLLMServer) -> None:
    server.push(ToolUse("lookup", {"q": "pytest"}))
    tools = [{"name": "lookup", "description": "find", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}}}]
    completion = make(kind, server).complete(MESSAGES, max_tokens=50, temperature=0.0,
                                             seed=0, tools=tools)
    assert [(c.name, c.args) for c in completion.tool_calls] == [("lookup", {"q": "pytest"})]
    assert server.model_requests()[-1].body["tools"]


def test_reasoning_models_get_completion_tokens_and_no_temperature(
        server: FakeLLMServer) -> None:
    llm = OpenAIChatLLM("gpt-5-mini", price=PRICE, base_url=server.openai_base_url,
                        api_key="k", policy=POLICY)
    llm.complete(MESSAGES, max_tokens=77, temperature=0.3, seed=4)
    body = server.model_requests()[-1].body
    assert body["max_completion_tokens"] == 77
    assert "temperature" not in body and "max_tokens" not in body
    assert body["seed"] == 4


def test_sdk_env_vars_are_honoured(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    AnthropicLLM("claude-haiku-4-5", price=PRICE, policy=POLICY).complete(
        MESSAGES, max_tokens=5, temperature=0, seed=0)
    OpenAIChatLLM("gpt-4o", price=PRICE, policy=POLICY).complete(
        MESSAGES, max_tokens=5, temperature=0, seed=0)
    headers = [r.headers for r in server.model_requests()]
    # The SDK sends the key as x-api-key or as a bearer token, depending on its version.
    assert "from-env" in (headers[0].get("x-api-key", ""), headers[0].get("authorization", "")[7:])
    assert headers[1]["authorization"] == "Bearer from-env"


def test_missing_openai_key_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    llm = OpenAIChatLLM("gpt-4o", price=PRICE, policy=POLICY)
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        llm.complete(MESSAGES, max_tokens=5, temperature=0, seed=0)


def test_missing_anthropic_key_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")
    with FakeLLMServer() as fake:
        llm = AnthropicLLM("claude-haiku-4-5", price=PRICE, base_url=fake.url, policy=POLICY)
        with pytest.raises(AuthError, match="ANTHROPIC_API_KEY"):
            llm.complete(MESSAGES, max_tokens=5, temperature=0, seed=0)
