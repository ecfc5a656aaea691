"""Routing replies asked once per run: every skill's night of a run, and each measurement of
a night, share the run's ``RouteAnswers``; the results are those of asking every time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.archive import route_replies
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.firewall import Context
from skillopt_sleep.judges.build import default_judge_for
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.models.openai import OpenAIChatLLM
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import RetryPolicy
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.describe import Describer, TriggerSetup
from skillopt_sleep.night.trigger import Pick, RouteAnswers, SkillCard, route_one
from skillopt_sleep.pipeline.skill_night import SkillNights
from skillopt_sleep.records import JudgeSpec, Message, Task, utcnow
from skillopt_sleep.sim import prove as proving
from skillopt_sleep.skilldoc import new_skill, parse
from tests.fakes import FakeLLMServer, RecordedRequest, Status, Text

POLICY = RetryPolicy(attempts=2, initial_wait_s=0.01, max_wait_s=0.02, timeout_s=2.0)
DESCRIPTIONS = {"release-notes": "Writes changelog updates and release notes.",
                "code-review": "Reviews every pull request."}
INTENTS = {"release-notes": "Update the changelog for {s} module {i}.",
           "code-review": "Review the {s} pull request number {i}."}


@pytest.fixture
def server() -> Any:
    with FakeLLMServer() as s:
        yield s


def _llm(server: FakeLLMServer) -> OpenAIChatLLM:
    return OpenAIChatLLM("gpt-4.1-mini", price=Price(1.0, 5.0),
                         base_url=server.openai_base_url, api_key="test-key", policy=POLICY)


def _route(body: str) -> str:
    """A stand-in model that loads the skill whose description names the task's work."""
    cards = json.loads(body.split("<installed_skills>\n", 1)[1].split("\n</installed_skills>")[0])
    task = body.split("<task>\n", 1)[1].split("\n</task>")[0].lower()
    topic = "changelog" if "changelog" in task else "pull request"
    hits = [c["name"] for c in cards if topic in c["description"].lower()]
    return hits[0] if hits else "none"


def _wire_router(request: RecordedRequest) -> Text:
    messages = request.body["messages"]
    return Text(_route(messages[-1]["content"]))


def _tasks(skill: str, splits: Sequence[str] = ("train", "validation")) -> list[Task]:
    return [Task(f"{skill}:{s}:{i}", f"{skill}:{s}", INTENTS[skill].format(s=s, i=i), JudgeSpec(),
                 split=s, skill=skill) for s in splits for i in range(4)]


def _describe_both(llm: OpenAIChatLLM, answers: RouteAnswers | None,
                   server: FakeLLMServer) -> tuple[list[dict[str, Any]], list[int]]:
    """Each skill's description step in turn, as one run's nights; the reports and the
    model requests each night made."""
    reports, made = [], []
    for skill in sorted(DESCRIPTIONS):
        other = next(s for s in DESCRIPTIONS if s != skill)
        own = _tasks(skill)
        setup = TriggerSetup([SkillCard(other, DESCRIPTIONS[other])], _tasks(other),
                             answers=answers)
        start = parse(f"---\nname: {skill}\ndescription: {DESCRIPTIONS[skill]}\n---\n\n# S\n")
        before = len(server.model_requests())
        with ThreadPoolExecutor(4) as pool:
            describer = Describer(skill, llm, llm, setup,
                                  {s: [t for t in own if t.split == s]
                                   for s in ("train", "validation")},
                                  NightConfig(val_repeats=2, score_test=False), pool, Context())
            reports.append(describer.run(start)[1])
        made.append(len(server.model_requests()) - before)
    return reports, made


def test_a_second_skill_night_asks_no_routing_question_the_first_asked(
    server: FakeLLMServer,
) -> None:
    server.default = _wire_router
    alone, alone_made = _describe_both(_llm(server), None, server)
    answers = RouteAnswers()
    shared, shared_made = _describe_both(_llm(server), answers, server)
    assert shared == alone  # the same picks, the same figures
    assert alone[0]["recall_after"] == 1.0 and alone[0]["false_trigger_after"] == 0.0
    # Each night routes 8 tasks a split (4 own, 4 of the other skill): the train ones once,
    # the validation ones once (the train picks show nothing wrong, so one sample decides),
    # and once more on fresh samples for the report (``test_repeats`` of them: the night
    # does not score the test split here).
    assert alone_made == [8 * 3, 8 * 3]
    assert shared_made == [8 * 3, 0]
    assert (answers.asked, answers.reused) == (24, 24)


def test_a_failed_routing_call_is_never_stored(server: FakeLLMServer) -> None:
    llm, answers = _llm(server), RouteAnswers()
    server.default = Text("none")
    cards = [SkillCard(s, d) for s, d in sorted(DESCRIPTIONS.items())]
    task = _tasks("release-notes")[0]
    server.push(Status(500), Status(500), Text("release-notes"))  # both retry attempts fail
    failed = route_one(llm, cards, task, 0, True, 0.0, answers)
    assert not failed.usable and "model call failed" in failed.error
    again = route_one(llm, cards, task, 0, True, 0.0, answers)
    assert again == Pick(task.id, 0, True, "release-notes")
    assert len(server.model_requests()) == 3
    assert route_one(llm, cards, task, 0, True, 0.0, answers) == again
    other_sample = route_one(llm, cards, task, 1, True, 0.0, answers)  # never another sample's
    assert other_sample == Pick(task.id, 1, True, None) and len(server.model_requests()) == 4


def _scripted_target() -> ScriptedLLM:
    def reply(messages: Sequence[Message], _seed: int) -> str:
        body = messages[-1]["content"]
        return _route(body) if "<installed_skills>" in body else "Done."
    return ScriptedLLM(reply)


def _routing_calls(llm: ScriptedLLM) -> int:
    return sum("<installed_skills>" in m[-1]["content"] for m in llm.calls)


def test_the_pipeline_nights_of_a_run_share_their_routing_answers(tmp_path: Path) -> None:
    by_skill = {s: _tasks(s, ("train", "validation", "test")) for s in DESCRIPTIONS}
    target, optimizer = _scripted_target(), ScriptedLLM("{}")
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        nights = SkillNights(archive, Settings(target="simulated", optimizer="simulated"),
                             "p", "n1", by_skill, [tmp_path / "skills"],
                             default_judge_for, lambda _m: None, DESCRIPTIONS)
        made = []
        for skill in sorted(DESCRIPTIONS):
            before = _routing_calls(target)
            result = nights.run(skill, new_skill(skill, DESCRIPTIONS[skill]),
                                (target, optimizer), 7)
            made.append(_routing_calls(target) - before)
            assert result.trigger["recall_after"] == 1.0
        assert made[0] > 0 and made[1] == 0
    finally:
        archive.close()


def test_the_proof_results_are_those_of_asking_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = proving.ProofSpec(persona="maintainer", seed=3, nights=2)
    shared = proving.prove(spec)
    monkeypatch.setattr(proving, "RouteAnswers", lambda: None)
    alone = proving.prove(spec)
    counts = {"target_calls", "ungated_calls", "live_calls", "model_calls", "seconds"}
    assert {k: v for k, v in shared.items() if k not in counts} == \
        {k: v for k, v in alone.items() if k not in counts}
    assert shared["target_calls"] < alone["target_calls"]
    assert shared["ungated_calls"] < alone["ungated_calls"]


def _wire_target(request: RecordedRequest) -> Text:
    body = request.body["messages"][-1]["content"]
    return Text(_route(body) if "<installed_skills>" in body else "Done.")


def _routing_requests(server: FakeLLMServer) -> int:
    return sum("<installed_skills>" in r.body["messages"][-1]["content"]
               for r in server.model_requests())


def _pipeline_run(server: FakeLLMServer, archive: Archive, night_id: str,
                  descriptions: dict[str, str]) -> int:
    """One run's nights of both skills through the real SDK client; the routing requests
    the fake server saw."""
    by_skill = {s: _tasks(s, ("train", "validation", "test")) for s in descriptions}
    before = _routing_requests(server)
    nights = SkillNights(archive, Settings(target="simulated", optimizer="simulated"),
                         "p", night_id, by_skill, [], default_judge_for, lambda _m: None,
                         descriptions)
    for skill in sorted(descriptions):
        result = nights.run(skill, new_skill(skill, descriptions[skill]),
                            (_llm(server), ScriptedLLM("{}")), 7)
        assert result.trigger["recall_after"] == 1.0
    nights.keep()
    return _routing_requests(server) - before


def test_the_next_run_asks_no_routing_question_an_earlier_run_asked(
    server: FakeLLMServer, tmp_path: Path,
) -> None:
    server.default = _wire_target
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        first = _pipeline_run(server, archive, "n1", DESCRIPTIONS)
        assert first > 0
        assert _pipeline_run(server, archive, "n2", DESCRIPTIONS) == 0
        # A changed description is another routing prompt for every skill: asked afresh.
        changed = {**DESCRIPTIONS, "code-review": "Reviews every pull request and its diff."}
        assert _pipeline_run(server, archive, "n3", changed) == first
        kept = route_replies.stored(archive, "p")
        assert len(kept) == 2 * first and route_replies.stored(archive, "other") == {}
        # A week on, nothing stored is reused, and the next keep drops it.
        later = utcnow() + timedelta(days=route_replies.MAX_AGE_DAYS, hours=1)
        assert route_replies.stored(archive, "p", now=later) == {}
        route_replies.keep(archive, "p", {"k": "code-review"}, now=later)
        assert route_replies.stored(archive, "p", now=later) == {"k": "code-review"}
        assert archive.conn.execute("SELECT COUNT(*) FROM route_replies").fetchone()[0] == 1
    finally:
        archive.close()


def test_a_run_keeps_only_the_replies_it_asked_for() -> None:
    answers = RouteAnswers({"old": "code-review"})
    target = ScriptedLLM("release-notes")
    cards = [SkillCard(s, d) for s, d in sorted(DESCRIPTIONS.items())]
    task = _tasks("release-notes")[0]
    assert route_one(target, cards, task, 0, True, 0.0, answers).picked == "release-notes"
    assert list(answers.new().values()) == ["release-notes"] and "old" not in answers.new()
