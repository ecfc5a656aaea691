"""The fake provider server itself: the shapes other tests (and the harvest tests) rely on."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anthropic
import openai
import pytest

from tests._clis import cli
from tests.fakes import FakeLLMServer, RecordedRequest, Text, ToolThenText


def test_count_tokens_and_beta_query_are_answered() -> None:
    with FakeLLMServer([Text("x")]) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        count = client.messages.count_tokens(
            model="m", messages=[{"role": "user", "content": "hello there"}])
        assert count.input_tokens > 0
        message = client.messages.create(model="m", max_tokens=5, extra_query={"beta": "true"},
                                         messages=[{"role": "user", "content": "hi"}])
        assert message.content[0].text == "x"  # type: ignore[union-attr]
        assert server.model_requests()[0].query == {"beta": ["true"]}
        assert [r.path for r in server.requests] == ["/v1/messages/count_tokens", "/v1/messages"]


@pytest.mark.parametrize("stream", [False, True])
def test_tool_then_text_waits_for_the_tool_result_on_every_wire(stream: bool) -> None:
    with FakeLLMServer() as server:
        server.push(ToolThenText("lookup", {"q": "a"}, "anthropic done"),
                    ToolThenText("lookup", {"q": "b"}, "responses done"))
        client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        first = client.messages.create(model="m", max_tokens=5, stream=False,
                                       messages=[{"role": "user", "content": "go"}])
        again = client.messages.create(model="m", max_tokens=5,
                                       messages=[{"role": "user", "content": "go"}])
        assert first.stop_reason == again.stop_reason == "tool_use"
        use = first.content[0]
        done = client.messages.create(model="m", max_tokens=5, messages=[
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [use.model_dump()]},  # type: ignore[list-item]
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,  # type: ignore[union-attr]
                                          "content": "found"}]}])
        assert done.content[0].text == "anthropic done"  # type: ignore[union-attr]

        oa = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        call = oa.responses.create(model="m", input="go", stream=False).output[0]
        assert call.type == "function_call" and call.name == "lookup"
        followup = [{"type": "function_call", "call_id": call.call_id, "name": call.name,
                     "arguments": call.arguments},
                    {"type": "function_call_output", "call_id": call.call_id, "output": "found"}]
        if stream:
            with oa.responses.stream(model="m", input=followup) as events:  # type: ignore[arg-type]
                assert events.get_final_response().output_text == "responses done"
        else:
            final = oa.responses.create(model="m", input=followup)  # type: ignore[arg-type]
            assert final.output_text == "responses done"
        assert isinstance(server.requests[-1], RecordedRequest)


def test_copilot_cli_runs_against_the_fake_server(tmp_path: Path) -> None:
    exe = cli("copilot")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    with FakeLLMServer([ToolThenText("bash", {"command": "echo hi", "description": "hi"},
                                     "copilot done")]) as server:
        env = dict(os.environ, HOME=str(home), COPILOT_OFFLINE="true",
                   COPILOT_PROVIDER_TYPE="anthropic", COPILOT_PROVIDER_BASE_URL=server.url,
                   COPILOT_PROVIDER_API_KEY="dummy", COPILOT_MODEL="claude-sonnet-4.5")
        result = subprocess.run([str(exe), "-p", "say hi", "--allow-all-tools"], env=env,
                                cwd=work, capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, result.stderr
        assert "copilot done" in result.stdout
        assert len(server.model_requests()) == 2
    assert list(home.glob(".copilot/session-state/*/events.jsonl"))
