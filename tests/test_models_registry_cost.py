"""Model specs, prices, the ledger and its caps, the record/replay cache, handoff."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from skillopt_sleep.errors import (
    BudgetExceeded,
    ConfigError,
    HandoffPending,
    ModelError,
    RoleUnavailable,
    UnknownModelError,
)
from skillopt_sleep.models.anthropic import AnthropicLLM
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.models.cache import Cache, CachedLLM
from skillopt_sleep.models.handoff import HandoffLLM
from skillopt_sleep.models.meter import (
    Ledger,
    MeteredLLM,
    NightShape,
    estimate_night,
    estimate_night_usd,
)
from skillopt_sleep.models.openai import OpenAIChatLLM, OpenAIResponsesLLM
from skillopt_sleep.models.pricing import BUILTIN, DEFAULT_MODELS, DEFAULT_ROLES, Price, price_for
from skillopt_sleep.models.registry import build_llm
from skillopt_sleep.models.retry import FAST
from skillopt_sleep.records import Completion, Usage
from skillopt_sleep.tables import MODELS
from tests.fakes import FakeLLMServer, Text

MESSAGES = [{"role": "user", "content": "[skillopt-sleep replay]\nhello"}]


# --- registry ---------------------------------------------------------------------------


def test_specs_build_their_backends() -> None:
    assert isinstance(build_llm("anthropic:claude-haiku-4-5"), AnthropicLLM)
    assert isinstance(build_llm("openai:gpt-4o-mini"), OpenAIChatLLM)
    assert isinstance(build_llm("openai-responses:gpt-5-mini"), OpenAIResponsesLLM)
    assert isinstance(build_llm("handoff"), HandoffLLM)
    assert build_llm("anthropic:claude-haiku-4-5").name == "anthropic:claude-haiku-4-5"


@pytest.mark.parametrize("spec", ["gemini:pro", "anthropic", "openai:", "claude", "", "handoff:x"])
def test_unknown_specs_list_the_valid_backends(spec: str) -> None:
    with pytest.raises(UnknownModelError) as info:
        build_llm(spec)
    for backend in MODELS.names():
        assert backend in str(info.value)


def test_unknown_price_is_an_error_unless_configured() -> None:
    with pytest.raises(ConfigError, match=r'\[pricing\."openai:my-model"\]'):
        build_llm("openai:my-model", base_url="http://127.0.0.1:1/v1")
    llm = build_llm("openai:my-model", base_url="http://127.0.0.1:1/v1",
                    pricing={"openai:my-model": {"input_per_mtok": 0, "output_per_mtok": 0}})
    assert llm.price == Price(0.0, 0.0, None)  # type: ignore[attr-defined]


def test_bad_price_tables_are_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown keys"):
        price_for("openai:x", {"openai:x": {"input_per_mtok": 1, "output_per_mtok": 1,
                                            "typo": 2}})
    with pytest.raises(ConfigError, match="numeric"):
        price_for("openai:x", {"openai:x": {"input_per_mtok": "cheap"}})


def test_simulated_needs_a_persona() -> None:
    with pytest.raises(ConfigError, match="persona"):
        build_llm("simulated")


def test_simulated_plays_target_and_optimizer() -> None:
    target = build_llm("simulated", persona="programmer", seed=1)
    optimizer = build_llm("simulated", persona="programmer", seed=1, role="optimizer")
    assert type(target).__name__ != type(optimizer).__name__
    with pytest.raises(ConfigError, match="role"):
        build_llm("simulated", persona="programmer", role="boss")


def test_agent_cli_specs_build_with_and_without_a_model() -> None:
    from skillopt_sleep.models.agent_cli import ClaudeCodeLLM
    from skillopt_sleep.models.codex_cli import CodexLLM

    assert isinstance(build_llm("claude-code"), ClaudeCodeLLM)
    named = build_llm("claude-code:claude-haiku-4-5")
    assert named.name == "claude-code:claude-haiku-4-5"
    assert named.price == BUILTIN["anthropic:claude-haiku-4-5"]  # type: ignore[attr-defined]
    assert isinstance(build_llm("codex:gpt-5"), CodexLLM)


def test_base_url_reaches_the_openai_kinds() -> None:
    with FakeLLMServer([Text("via base url")]) as server:
        llm = build_llm("openai:gpt-4o-mini", base_url=server.openai_base_url, policy=FAST)
        assert llm.complete(MESSAGES, max_tokens=5, temperature=0, seed=0).text == "via base url"


# --- pricing ----------------------------------------------------------------------------


def test_every_default_model_has_a_price() -> None:
    for backend, model in DEFAULT_MODELS.items():
        assert price_for(f"{backend}:{model}").output_per_mtok > 0
        assert price_for(backend).output_per_mtok > 0 or backend not in ("claude-code", "codex")
    for spec in DEFAULT_ROLES.values():
        assert price_for(spec).input_per_mtok > 0
    for spec, price in BUILTIN.items():
        assert price.output_per_mtok >= price.input_per_mtok > 0, spec


def test_prices_resolve_through_aliases() -> None:
    haiku = BUILTIN["anthropic:claude-haiku-4-5"]
    assert price_for("anthropic:claude-haiku-4-5-20251001") == haiku
    assert price_for("claude-code:claude-haiku-4-5") == haiku
    assert price_for("openai-responses:gpt-5-mini") == BUILTIN["openai:gpt-5-mini"]
    assert price_for("codex:gpt-5") == BUILTIN["openai:gpt-5"]
    assert price_for("simulated").cost(Usage(10**6, 10**6)) == 0


def test_cost_counts_input_output_and_cache_reads() -> None:
    price = Price(3.0, 15.0, 0.30)
    assert price.cost(Usage(1_000_000, 100_000, 2_000_000)) == pytest.approx(3 + 1.5 + 0.6)
    assert Price(2.0, 4.0).cost(Usage(0, 0, 1_000_000)) == pytest.approx(2.0)


# --- meter ------------------------------------------------------------------------------


class PricedScript(ScriptedLLM):
    """A scripted model that reports usage and cost like a real backend."""

    def __init__(self, price: Price, tokens: Usage):
        super().__init__("answer", name="anthropic:fake")
        self.price = price
        self.tokens = tokens

    def complete(self, messages, *, max_tokens=1024, temperature=0.0, seed=0,  # type: ignore[no-untyped-def]
                 tools=None) -> Completion:
        super().complete(messages, max_tokens=max_tokens, temperature=temperature, seed=seed)
        return Completion("answer", usage=self.tokens, cost_usd=self.price.cost(self.tokens))


def test_ledger_records_calls_by_role() -> None:
    ledger = Ledger()
    price = Price(1.0, 5.0)
    target = MeteredLLM(PricedScript(price, Usage(1000, 100)), "target", ledger)
    optimizer = MeteredLLM(PricedScript(price, Usage(4000, 1000)), "optimizer", ledger)
    for seed in range(3):
        target.complete(MESSAGES, max_tokens=100, temperature=0, seed=seed)
    optimizer.complete(MESSAGES, max_tokens=100, temperature=0, seed=0)
    roles = ledger.by_role()
    assert roles["target"]["calls"] == 3 and roles["optimizer"]["calls"] == 1
    assert roles["target"]["input_tokens"] == 3000
    assert ledger.cost_by_role()["optimizer"] == pytest.approx(0.009)
    assert ledger.total_usd == pytest.approx(3 * 0.0015 + 0.009)
    assert len(ledger.calls) == 4


def test_call_log_round_trips_through_the_archive(tmp_path: Path) -> None:
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.models.meter import load_calls, save_calls

    ledger = Ledger()
    metered = MeteredLLM(PricedScript(Price(1.0, 5.0), Usage(100, 10)), "optimizer", ledger)
    with ledger.skill_scope("tests"):
        metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0)
    archive = Archive(tmp_path / "archive.sqlite3")
    assert save_calls(archive, "night-1", ledger) == 1
    loaded = load_calls(archive, "night-1")
    assert loaded.by_role() == ledger.by_role()
    assert loaded.calls[0].skill == "tests"
    assert load_calls(archive, "night-2").calls == []


def test_failed_calls_are_recorded_and_raised() -> None:
    def boom(messages: object, seed: int) -> str:
        raise ModelError("provider down")

    ledger = Ledger()
    metered = MeteredLLM(ScriptedLLM(boom), "judge", ledger)
    with pytest.raises(ModelError):
        metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0)
    assert ledger.by_role()["judge"]["errors"] == 1


def test_night_cap_stops_before_the_call_that_could_cross_it() -> None:
    ledger = Ledger()
    price = Price(1000.0, 1000.0)  # $0.001 per token
    inner = PricedScript(price, Usage(10, 10))
    metered = MeteredLLM(inner, "target", ledger, max_usd_per_night=0.1)
    calls = 0
    with pytest.raises(BudgetExceeded, match=r"night budget of \$0\.10"):
        for seed in range(100):
            metered.complete(MESSAGES, max_tokens=20, temperature=0, seed=seed)
            calls += 1
    assert ledger.total_usd <= 0.1
    assert len(inner.calls) == calls and 2 <= calls < 10


def test_skill_cap_is_per_skill() -> None:
    ledger = Ledger()
    inner = PricedScript(Price(1000.0, 1000.0), Usage(10, 10))
    metered = MeteredLLM(inner, "target", ledger, max_usd_per_skill=0.05)
    with ledger.skill_scope("alpha"), pytest.raises(BudgetExceeded, match="skill 'alpha'"):
        for seed in range(100):
            metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=seed)
    with ledger.skill_scope("beta"):
        metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0)
    assert ledger.skill_usd("beta") == pytest.approx(0.02)


def test_ledger_is_thread_safe() -> None:
    ledger = Ledger()
    metered = MeteredLLM(PricedScript(Price(1, 1), Usage(1, 1)), "target", ledger)

    def work() -> None:
        for seed in range(200):
            metered.complete(MESSAGES, max_tokens=1, temperature=0, seed=seed)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ledger.calls) == 800


def test_estimate_prices_each_role_s_calls() -> None:
    target, optimizer = price_for("anthropic:claude-haiku-4-5"), price_for(
        "anthropic:claude-sonnet-4-5")
    small = NightShape(target_calls=100, optimizer_calls=7)
    big = NightShape(target_calls=300, optimizer_calls=7)
    estimate = estimate_night(small, target=target, optimizer=optimizer)
    assert estimate.calls_by_role == {"target": 100, "optimizer": 7, "judge": 0}
    assert estimate.usd_by_role["target"] == pytest.approx(100 * (1500 * 1.0 + 600 * 5.0) / 1e6)
    assert estimate.usd_by_role["optimizer"] == pytest.approx(7 * (8000 * 3 + 1500 * 15) / 1e6)
    assert estimate_night_usd(big, target=target, optimizer=optimizer) > estimate.total_usd


# --- cache ------------------------------------------------------------------------------


def test_cache_replays_identical_calls_and_keeps_seeds_distinct(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    cache = Cache(tmp_path / "calls.sqlite3")
    with FakeLLMServer([Text("sample zero"), Text("sample one")]) as server:
        llm = build_llm("anthropic:claude-haiku-4-5", base_url=server.url, cache=cache,
                        policy=FAST)
        first = llm.complete(MESSAGES, max_tokens=20, temperature=1.0, seed=0)
        other = llm.complete(MESSAGES, max_tokens=20, temperature=1.0, seed=1)
        again = llm.complete(MESSAGES, max_tokens=20, temperature=1.0, seed=0)
        assert len(server.model_requests()) == 2
    assert (first.text, other.text, again.text) == ("sample zero", "sample one", "sample zero")
    assert again.cached and again.cost_usd == 0 and not first.cached
    assert len(cache) == 2


def test_replay_only_never_calls_and_misses_loudly(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    recorder = CachedLLM(ScriptedLLM(lambda m, seed: f"answer {seed}"), Cache(path))
    recorder.complete(MESSAGES, max_tokens=5, temperature=0, seed=7)
    inner = ScriptedLLM("should not be asked")
    replay = CachedLLM(inner, Cache(path, mode="replay-only"))
    assert replay.complete(MESSAGES, max_tokens=5, temperature=0, seed=7).text == "answer 7"
    with pytest.raises(RoleUnavailable, match="not in the replay cache"):
        replay.complete(MESSAGES, max_tokens=5, temperature=0, seed=8)
    with pytest.raises(RoleUnavailable):
        replay.complete(MESSAGES, max_tokens=6, temperature=0, seed=7)
    assert inner.calls == []
    with pytest.raises(ConfigError):
        Cache(path, mode="sometimes")


def test_metered_cache_hits_are_free_even_at_the_cap(tmp_path: Path) -> None:
    inner = PricedScript(Price(1000.0, 1000.0), Usage(10, 10))
    cached = CachedLLM(inner, Cache(tmp_path / "c.sqlite3"))
    ledger = Ledger()
    metered = MeteredLLM(cached, "target", ledger, max_usd_per_night=0.03)
    metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0)
    with pytest.raises(BudgetExceeded):
        metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=1)
    for _ in range(3):
        assert metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0).cached
    assert len(inner.calls) == 1
    assert ledger.by_role()["target"]["cached"] == 3


# --- handoff ----------------------------------------------------------------------------


def test_handoff_writes_prompts_and_resumes_from_answers(tmp_path: Path) -> None:
    llm = HandoffLLM(tmp_path / "handoff")
    with pytest.raises(HandoffPending) as info:
        llm.complete(MESSAGES, max_tokens=50, temperature=0, seed=0)
    assert info.value.exit_code == 3
    pending = list(llm.pending_dir.glob("*.md"))
    assert len(pending) == 1 and "hello" in pending[0].read_text()
    with pytest.raises(HandoffPending):
        llm.complete(MESSAGES, max_tokens=50, temperature=0, seed=1)
    assert len(list(llm.pending_dir.glob("*.md"))) == 2
    (llm.answers_dir / pending[0].name).write_text("the user's agent says hi\n")
    resumed = HandoffLLM(tmp_path / "handoff")
    assert resumed.complete(MESSAGES, max_tokens=50, temperature=0, seed=0).text == \
        "the user's agent says hi"
    assert not pending[0].exists()


def test_handoff_defaults_to_the_state_dir(isolated_home: Path) -> None:
    llm = build_llm("handoff")
    with pytest.raises(HandoffPending, match=str(isolated_home)):
        llm.complete(MESSAGES, max_tokens=5, temperature=0, seed=0)


def test_concurrent_calls_never_overshoot_the_cap() -> None:
    """Calls in flight hold their worst case: eight at once cannot all pass a cap that has
    room for three (checked per call, all eight would, and the spend would be 0.16)."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    class Slow(PricedScript):
        def complete(self, messages, *, max_tokens=1024, temperature=0.0, seed=0,  # type: ignore[no-untyped-def]
                     tools=None) -> Completion:
            time.sleep(0.2)  # every call overlaps every other
            return super().complete(messages, max_tokens=max_tokens, temperature=temperature,
                                    seed=seed)

    ledger = Ledger()
    inner = Slow(Price(1000.0, 1000.0), Usage(10, 10))  # $0.02 a call, at most ~$0.029
    metered = MeteredLLM(inner, "target", ledger, max_usd_per_night=0.1)

    def call(seed: int) -> str:
        try:
            return metered.complete(MESSAGES, max_tokens=20, temperature=0, seed=seed).text
        except BudgetExceeded:
            return "refused"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(call, range(8)))
    assert outcomes.count("answer") == 3 and outcomes.count("refused") == 5
    assert len(inner.calls) == 3 and ledger.total_usd <= 0.1
    assert ledger.held_usd == 0.0  # every hold settled
    # Settled holds free their room for the real (smaller) cost: one more call fits.
    assert call(99) == "answer" and ledger.total_usd <= 0.1


def test_an_interrupted_call_releases_its_hold() -> None:
    def stop(messages: object, seed: int) -> str:
        raise KeyboardInterrupt

    ledger = Ledger()
    metered = MeteredLLM(PricedScript(Price(1.0, 1.0), Usage(1, 1)), "target", ledger,
                         max_usd_per_night=1.0)
    metered.inner = ScriptedLLM(stop)
    with pytest.raises(KeyboardInterrupt):
        metered.complete(MESSAGES, max_tokens=10, temperature=0, seed=0)
    assert ledger.held_usd == 0.0 and ledger.calls == []
