"""A night whose target and optimizer are real SDK clients talking to a fake provider."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import FakeLLMServer, Text
from tests.fakes.llm_server import RecordedRequest

RULE = "Start every answer with a one-line 'TL;DR:' summary."
BODY = (
    "Here is the work you asked for. It sets up a careful comparison, reports what "
    "changed and why it matters, and the main result is supported by the evidence given."
)


def provider(optimizer_reply: str):
    """Reflection prompts get ``optimizer_reply`` (its ``TASKS`` replaced by the ids of the
    minibatch shown, as a model cites the tasks an edit would fix); task prompts follow the
    TL;DR rule if stated."""

    def reply(request: RecordedRequest) -> Text:
        body = json.dumps(request.body)
        if "<mode>" in body:
            shown = re.findall(r'task_id[\\"]*: [\\"]*([\w:.-]+)', body)
            return Text(optimizer_reply.replace('"TASKS"', json.dumps(shown)[1:-1] or '"none"'),
                        input_tokens=2000, output_tokens=80)
        answer = (
            f"TL;DR: it holds.\n\n{BODY}"
            if RULE.replace("'", "") in body.replace("'", "")
            else BODY
        )
        return Text(answer, input_tokens=900, output_tokens=60)

    return reply


class Server(FakeLLMServer):
    def __init__(self, reply):
        super().__init__(default=Text("unused"))
        self._reply = reply

    def next_reply(self, request: RecordedRequest):  # every request gets the scripted function
        return self._reply(request)


PERSONA = (
    """
name = "tiny"
skill = "notes"
skill_description = "Writes notes"
user_text = "# Notes. Write notes for me."
[target]
follow = 0.9
base = 0.1
[optimizer]
neutral_texts = ["Be clear."]
"""
    + "".join(
        f'[[deliverables]]\nid = "d{i}"\nintents = ["Write note {i} about {{subject}}."]\n'
        'checks = [{ op = "min_chars", n = 100 }]\n'
        for i in range(6)
    )
    + "".join(
        f'[[domains]]\nid = "m{j}"\nsubjects = ["topic {j}a", "topic {j}b", "topic {j}c"]\n'
        for j in range(4)
    )
    + f"""
[[rules]]
id = "tldr"
text = "{RULE}"
keywords = [["tl;dr"]]
check = {{ op = "regex", pattern = "^TL;DR:" }}
satisfy = "TL;DR: it holds."
deliverables = ["d0", "d1", "d2", "d3", "d4", "d5"]
"""
)


def prove(server: Server, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return prove_at(server.url, tmp, *extra)


def prove_at(url: str, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``prove`` with an Anthropic target and an OpenAI optimizer, both served from ``url``."""
    env = dict(os.environ, ANTHROPIC_API_KEY="dummy", OPENAI_API_KEY="dummy",
               SKILLOPT_SLEEP_HOME=str(tmp / "home"))
    persona = tmp / "tiny.toml"
    persona.write_text(PERSONA, encoding="utf-8")
    cmd = [sys.executable, "-m", "skillopt_sleep", "prove", "--persona", str(persona), "--json",
           "--nights", "1", "--steps", "1", "--val-repeats", "1",
           "--target", "anthropic:claude-haiku-4-5", "--optimizer", "openai:gpt-5-mini",
           "--target-base-url", url, "--optimizer-base-url", f"{url}/v1", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.timeout(300)
def test_night_on_real_sdks_reports_calls_and_cost_and_gates_the_edit(tmp_path: Path):
    edit = json.dumps({"edits": [{"op": "append", "text": RULE, "tasks": ["TASKS"]}]})
    with Server(provider(edit)) as server:
        done = prove(server, tmp_path)
        wires = {r.wire for r in server.model_requests()}
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout)
    assert wires == {"anthropic", "chat"}
    assert s["model_calls"] > 50 and s["cost_usd"] > 0
    assert s["edits_accepted"] >= 1 and s["correct_accepted"] >= 1
    assert s["after_test"] > s["baseline_test"]


@pytest.mark.timeout(300)
def test_garbage_optimizer_completes_with_no_valid_edits_and_the_reason(tmp_path: Path):
    with Server(provider("I would rather not answer in JSON.")) as server:
        done = prove(server, tmp_path)
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout)
    assert s["edits_proposed"] == 0 and s["edits_accepted"] == 0
    assert "not edit JSON" in s["no_valid_edits"]
    assert s["after_test"] == s["baseline_test"]


@pytest.mark.timeout(300)
def test_recorded_night_replays_offline_with_identical_results(tmp_path: Path):
    edit = json.dumps({"edits": [{"op": "append", "text": RULE, "tasks": ["TASKS"]}]})
    with Server(provider(edit)) as server:
        recorded = prove(server, tmp_path, "--record")
        url = server.url
    assert recorded.returncode == 0, recorded.stderr
    # The server is gone: every answer must now come from the recording.
    replayed = prove_at(url, tmp_path, "--replay-only")
    assert replayed.returncode == 0, replayed.stderr
    a, b = json.loads(recorded.stdout), json.loads(replayed.stdout)
    assert b["live_calls"] == b["model_calls"] == 0 and a["live_calls"] > 0
    for key in ("seconds", "cost_usd", "live_calls", "cached_calls", "model_calls"):
        a.pop(key), b.pop(key)
    assert a == b
