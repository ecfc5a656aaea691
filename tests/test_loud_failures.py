"""A role that cannot answer stops the night at once, with one line naming the backend and the fix.

The real ``anthropic`` and ``openai`` SDK clients talk to the fake server on 127.0.0.1 (401, 404,
a closed port, persistent 500s); the ``claude-code`` backend runs with no ``claude`` on PATH.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from skillopt_sleep.errors import ModelError, RoleUnavailable, Unreachable
from skillopt_sleep.models.guard import CONSECUTIVE_FAILURES, CallGuard, failure_warnings
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.models.registry import build_llm
from skillopt_sleep.models.retry import FAST
from skillopt_sleep.night.replay import replay, replay_one
from skillopt_sleep.records import JudgeSpec, Score, Task
from tests.fakes.llm_server import FakeLLMServer, Status, Text

HAIKU = "anthropic:claude-haiku-4-5"
MINI = "openai:gpt-5-mini"
ASK = [{"role": "user", "content": "[skillopt-sleep replay]\nhello"}]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def guarded(spec: str, base_url: str | None, role: str = "target") -> tuple[MeteredLLM, Ledger]:
    ledger = Ledger(CallGuard())
    llm = build_llm(spec, base_url=base_url, policy=FAST)
    return MeteredLLM(llm, role, ledger), ledger


def ask(llm: MeteredLLM) -> str:
    return llm.complete(ASK, max_tokens=16, temperature=0.0, seed=0).text


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_refused_credentials_stop_the_role_at_the_first_call() -> None:
    with FakeLLMServer(default=Status(401)) as server:
        llm, ledger = guarded(HAIKU, server.url)
        with pytest.raises(RoleUnavailable) as caught:
            ask(llm)
        assert len(server.model_requests()) == 1  # never retried
    message = str(caught.value)
    assert message.startswith(f"the target model {HAIKU} cannot answer: no valid login or API "
                              "key (")
    assert "ANTHROPIC_API_KEY" in message and "\n" not in message
    assert caught.value.role == "target" and caught.value.spec == HAIKU
    assert ledger.by_role()["target"]["errors"] == 1


def test_a_404_names_the_url_and_the_model_flag() -> None:
    with FakeLLMServer(default=Status(404)) as server:
        llm, _ = guarded(MINI, server.openai_base_url, role="optimizer")
        with pytest.raises(RoleUnavailable) as caught:
            ask(llm)
        assert len(server.model_requests()) == 1
    message = str(caught.value)
    assert f"the optimizer model {MINI} cannot answer" in message
    assert f"{server.openai_base_url}/chat/completions answered 404 Not Found" in message
    assert "--optimizer" in message and "/v1" in message


@pytest.mark.parametrize("spec", [HAIKU, MINI])
def test_a_closed_port_is_refused_at_once_without_retries(spec: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    llm, _ = guarded(spec, url + ("/v1" if spec.startswith("openai") else ""))
    started = time.monotonic()
    with pytest.raises(RoleUnavailable) as caught:
        ask(llm)
    assert time.monotonic() - started < 2.0
    assert f"connection refused at {url}" in str(caught.value)
    assert "start the server, or correct the target's base URL" in str(caught.value)
    assert isinstance(caught.value.__cause__, Unreachable)


def test_an_unknown_host_is_named() -> None:
    llm, _ = guarded(MINI, "http://no-such-host.invalid/v1")
    with pytest.raises(RoleUnavailable, match=re.escape(
            "the host of http://no-such-host.invalid/v1/chat/completions does not resolve")):
        ask(llm)


def test_persistent_500s_stop_the_role_after_five_calls_in_a_row() -> None:
    with FakeLLMServer(default=Status(500)) as server:
        llm, ledger = guarded(HAIKU, server.url)
        for _ in range(CONSECUTIVE_FAILURES - 1):
            with pytest.raises(ModelError):  # one failed call: counted, not fatal
                ask(llm)
        with pytest.raises(RoleUnavailable, match=r"5 calls in a row failed after all their "
                                                  r"retries \(last: .*500"):
            ask(llm)
        sent = len(server.model_requests())
        assert sent == CONSECUTIVE_FAILURES * FAST.attempts  # each call used all its retries
        with pytest.raises(RoleUnavailable):  # the role is down: nothing more is sent
            ask(llm)
        assert len(server.model_requests()) == sent
    # Every failed call is in the ledger; the refused one after the trip was never made.
    assert ledger.by_role()["target"]["errors"] == CONSECUTIVE_FAILURES


def test_an_answer_resets_the_run_of_failures() -> None:
    attempts = FAST.attempts
    failing = [Status(500)] * attempts * (CONSECUTIVE_FAILURES - 1)
    with FakeLLMServer([*failing, Text("fine"), *failing], default=Text("fine")) as server:
        llm, ledger = guarded(HAIKU, server.url)
        outcomes = []
        for _ in range(2 * CONSECUTIVE_FAILURES - 1):
            try:
                outcomes.append(ask(llm))
            except ModelError:
                outcomes.append("failed")
    assert outcomes.count("failed") == 2 * (CONSECUTIVE_FAILURES - 1)
    assert "fine" in outcomes and ledger.guard is not None
    assert ledger.guard.roles["target"].in_a_row == CONSECUTIVE_FAILURES - 1


def test_claude_code_without_claude_on_path_fails_at_once(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no `claude` anywhere
    llm, _ = guarded("claude-code", None)
    with pytest.raises(RoleUnavailable) as caught:
        ask(llm)
    assert str(caught.value) == (
        "the target model claude-code cannot answer: `claude` is not on PATH; install Claude "
        "Code (npm install -g @anthropic-ai/claude-code) or choose --target anthropic:MODEL")


def task(task_id: str) -> Task:
    return Task(id=task_id, family_id="f", intent="say hi", split="validation",
                judge=JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "hi"}]))


def test_replay_lets_a_down_role_through_and_queued_calls_drain_at_once() -> None:
    with FakeLLMServer(default=Status(401)) as server:
        llm, _ = guarded(HAIKU, server.url)
        with ThreadPoolExecutor(4) as pool, pytest.raises(RoleUnavailable):
            replay([task(f"t{i}") for i in range(12)], "# skill", llm, samples=2, executor=pool)
        # The first answer took the role down; the others were refused before sending.
        assert len(server.model_requests()) <= 4


class DownJudge:
    def score(self, task: Task, response: str, tool_calls: Sequence[object]) -> Score:
        raise RoleUnavailable("the judge model x cannot answer: y; z", role="judge")


def test_a_down_judge_is_not_taken_for_an_unjudgeable_answer() -> None:
    with FakeLLMServer(default=Text("hi there")) as server:
        llm, _ = guarded(HAIKU, server.url)
        with pytest.raises(RoleUnavailable, match="judge model"):
            replay_one(task("t1"), 0, "# skill", llm, lambda _t: DownJudge(), max_tokens=16,
                       temperature=0.0)


def test_failure_rate_warnings_start_above_ten_percent() -> None:
    rows = [("target", 100, 10), ("optimizer", 9, 1), ("judge", 0, 0), ("miner", 20, 3)]
    assert failure_warnings(rows) == [
        "1 of 9 optimizer calls failed (11%, above 10%): the gate had less evidence than "
        "planned",
        "3 of 20 miner calls failed (15%, above 10%): the gate had less evidence than planned"]


def test_an_agent_cli_that_cannot_reach_its_endpoint_is_unreachable_not_transient() -> None:
    from skillopt_sleep.models.agent_cli import TransientAgentError, agent_failure

    refused = agent_failure("claude-code",
                            "API Error: Unable to connect (ECONNREFUSED 127.0.0.1:9)")
    assert isinstance(refused, Unreachable) and refused.why == "refused"
    not_found = agent_failure("claude-code", "API Error: 404 model not found", 404)
    assert isinstance(not_found, Unreachable) and not_found.why == "not-found"
    assert isinstance(agent_failure("claude-code", "API Error: 529 overloaded", 529),
                      TransientAgentError)
