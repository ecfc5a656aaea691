"""Prompt caching with the real SDK clients against the fake servers: the skill's block is
marked (Anthropic) or sent first (OpenAI), the cache's tokens are priced at their own rates,
and a batch of replays writes the block once (``night.replay`` sends its first call alone)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.models.anthropic import AnthropicLLM
from skillopt_sleep.models.meter import Ledger, MeteredLLM, worst_case_usd
from skillopt_sleep.models.openai import OpenAIChatLLM, OpenAIResponsesLLM
from skillopt_sleep.models.pricing import price_for
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.night.replay import replay_jobs
from skillopt_sleep.records import JudgeSpec, Task, Usage
from tests.fakes import FakeLLMServer, RecordedRequest, Text

BIG = (Path(__file__).parent / "fixtures" / "skills-public" / "anthropics__claude-plugins-official"
       / "math-olympiad" / "SKILL.md").read_text(encoding="utf-8")
TASK = Task("t1", "f1", "prove that the sum of two odd numbers is even", JudgeSpec(kind="rules"))


class CachingServer:
    """Answers as a provider's prompt cache would: a system block seen before is read from
    the cache; a new one is written, and only once its answer is done (requests arriving
    meanwhile miss too, as on Anthropic)."""

    def __init__(self) -> None:
        self.cached: set[str] = set()
        self.writes = self.reads = 0
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Text:
        body = request.body
        system = body["system"][0]["text"] if isinstance(body.get("system"), list) else ""
        tokens = len(system) // 4
        with self.lock:
            hit = system in self.cached
            self.reads += hit
            self.writes += not hit
        if not hit:
            time.sleep(0.2)  # the answer takes a while; the entry exists only after it
            with self.lock:
                self.cached.add(system)
        rest = max(1, (len(str(body["messages"])) // 4))
        return Text("the sum 2a+1 + 2b+1 = 2(a+b+1) is even", input_tokens=rest,
                    output_tokens=20, cache_read_tokens=tokens if hit else 0,
                    cache_write_tokens=0 if hit else tokens)


def _anthropic(server: FakeLLMServer, model: str = "claude-sonnet-4-5") -> AnthropicLLM:
    return AnthropicLLM(model, price=price_for(f"anthropic:{model}"), base_url=server.url,
                        api_key="k")


def test_the_anthropic_request_marks_the_skill_block_and_the_cache_is_priced() -> None:
    cache = CachingServer()
    with FakeLLMServer(default=cache) as server:
        llm = _anthropic(server)
        first = llm.complete(replay_messages(BIG, TASK), max_tokens=200, temperature=0.7, seed=0)
        again = llm.complete(replay_messages(BIG, TASK), max_tokens=200, temperature=0.7, seed=1)
        body = server.model_requests()[0].body
    (block,) = body["system"]
    assert block["cache_control"] == {"type": "ephemeral"} and BIG in block["text"]
    assert TASK.intent in body["messages"][0]["content"] and BIG not in str(body["messages"])
    assert first.usage.cache_write_tokens > 4000 and first.usage.cache_read_tokens == 0
    assert again.usage.cache_read_tokens == first.usage.cache_write_tokens
    u = first.usage
    assert first.cost_usd == pytest.approx(
        (u.input_tokens * 3.0 + u.cache_write_tokens * 3.75 + u.output_tokens * 15.0) / 1e6)
    r = again.usage
    assert again.cost_usd == pytest.approx(
        (r.input_tokens * 3.0 + r.cache_read_tokens * 0.30 + r.output_tokens * 15.0) / 1e6)
    assert again.cost_usd < first.cost_usd / 5  # the skill is most of the prompt


@pytest.mark.parametrize("kind", ["chat", "responses"])
def test_openai_sends_the_skill_first_and_prices_cached_tokens(kind: str) -> None:
    cls = OpenAIChatLLM if kind == "chat" else OpenAIResponsesLLM
    with FakeLLMServer([Text("even", input_tokens=5200, output_tokens=10,
                             cache_read_tokens=5000)]) as server:
        llm = cls("gpt-5-mini", price=price_for("openai:gpt-5-mini"),
                  base_url=server.openai_base_url, api_key="k")
        done = llm.complete(replay_messages(BIG, TASK), max_tokens=200, temperature=0.7, seed=0)
        body = server.model_requests()[0].body
    if kind == "chat":
        head, *rest = body["messages"]
        assert head["role"] == "system" and BIG in head["content"]
    else:
        assert BIG in body["instructions"]
        rest = body["input"]
    assert TASK.intent in str(rest) and BIG not in str(rest)
    assert done.usage == Usage(input_tokens=200, output_tokens=10, cache_read_tokens=5000)
    # gpt-5-mini: $0.25 in, $0.025 cached in, $2 out per million tokens.
    assert done.cost_usd == pytest.approx((200 * 0.25 + 5000 * 0.025 + 10 * 2.0) / 1e6)


def test_the_meter_counts_cache_writes_and_reads_at_their_prices() -> None:
    ledger = Ledger()
    with FakeLLMServer(default=CachingServer()) as server:
        llm = MeteredLLM(_anthropic(server, "claude-haiku-4-5"), "target", ledger,
                         max_usd_per_night=2.0, max_usd_per_skill=0.75)
        for seed in range(3):
            llm.complete(replay_messages(BIG, TASK), max_tokens=200, temperature=0.7, seed=seed)
    row = ledger.by_role()["target"]
    assert row["cache_write_tokens"] > 4000
    assert row["cache_read_tokens"] == 2 * row["cache_write_tokens"]
    price = price_for("anthropic:claude-haiku-4-5")
    assert ledger.total_usd == pytest.approx(price.cost(ledger.usage))
    assert price.write_rate == 1.25 * price.input_per_mtok
    assert price.read_rate == pytest.approx(0.1 * price.input_per_mtok)


def test_the_worst_case_holds_a_prompt_written_to_the_cache() -> None:
    price = price_for("anthropic:claude-sonnet-4-5")
    messages = replay_messages(BIG, TASK)
    prompt = sum(len(m["content"]) for m in messages) // 4 + 1
    assert worst_case_usd(price, messages, 100) == pytest.approx(
        price.cost(Usage(cache_write_tokens=prompt, output_tokens=100)))


class _Judge:
    def score(self, task: Task, text: str, calls: Any) -> Any:
        from skillopt_sleep.records import Score

        return Score(hard=1.0, soft=1.0)


def test_a_batch_of_replays_writes_the_skill_block_once() -> None:
    cache = CachingServer()
    tasks = [Task(f"t{i}", "f", f"task {i}", JudgeSpec(kind="rules")) for i in range(12)]
    with FakeLLMServer(default=cache) as server, ThreadPoolExecutor(max_workers=8) as pool:
        rollouts = replay_jobs([(t, 0) for t in tasks], BIG, _anthropic(server),
                               executor=pool, judge_for=lambda _t: _Judge())  # type: ignore[arg-type,return-value]
    assert len(rollouts) == 12 and all(not r.error for r in rollouts)
    assert (cache.writes, cache.reads) == (1, 11)


def test_a_configured_price_may_name_its_cache_rates() -> None:
    price = price_for("openai:my-model", {"openai:my-model": {
        "input_per_mtok": 1.0, "output_per_mtok": 2.0, "cache_read_per_mtok": 0.1,
        "cache_write_per_mtok": 1.25}})
    assert (price.read_rate, price.write_rate) == (0.1, 1.25)
    plain = price_for("openai:other", {"openai:other": {"input_per_mtok": 1.0,
                                                        "output_per_mtok": 2.0}})
    assert plain.read_rate == plain.write_rate == 1.0  # a server that does not cache
