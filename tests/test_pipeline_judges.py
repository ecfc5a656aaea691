from __future__ import annotations

import json

from skillopt_sleep.config import Settings
from skillopt_sleep.judges.build import build_judge_for
from skillopt_sleep.judges.rules import RulesJudge
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.records import JudgeSpec, Task
from tests.fakes import FakeLLMServer, Text


def task(kind: str) -> Task:
    spec = (JudgeSpec(kind="rubric", rubric="Names the failing test.") if kind == "rubric"
            else JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "pytest"}]))
    return Task(id=f"t-{kind}", family_id="f", intent="why did CI fail?", judge=spec)


def test_rules_tasks_never_build_a_grader():
    ledger = Ledger()
    judge_for = build_judge_for(Settings(optimizer="openai:no-price-needed-here"), ledger)
    assert isinstance(judge_for(task("rules")), RulesJudge)
    assert ledger.calls == []


def test_rubric_tasks_are_graded_by_the_judge_model_metered_as_judge(monkeypatch):
    reply = json.dumps({"score": 8, "pass": True, "reason": "names test_parse"})
    with FakeLLMServer(default=Text(reply)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "dummy")
        settings = Settings(optimizer="simulated", judge="openai:gpt-5-mini",
                            judge_base_url=server.openai_base_url)
        ledger = Ledger()
        score = build_judge_for(settings, ledger)(task("rubric")).score(
            task("rubric"), "test_parse failed on empty input")
    assert not score.failed and score.hard == 1.0 and score.soft == 0.8
    assert {c.role for c in ledger.calls} == {"judge"}
    assert ledger.cost_by_role()["judge"] > 0


def test_a_configured_miner_model_proposes_judges_metered_as_miner(tmp_path, monkeypatch):
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.sessions import save_batch
    from skillopt_sleep.mine.collect import collect_tasks
    from skillopt_sleep.records import Session, Turn

    proposal = json.dumps({"checks": [{"op": "contains", "text": "pytest -q"}]})
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    archive = Archive(tmp_path / "a.sqlite3")
    sessions = [Session(source="claude-code", session_id=f"s{i}", project="/p", turns=[
        Turn(id=f"claude-code:s{i}:0", index=0, request="run the unit tests please")])
        for i in range(3)]
    save_batch(archive, [(None, sessions)])
    with FakeLLMServer(default=Text(proposal)) as server:
        settings = Settings(miner="openai:gpt-5-mini", miner_base_url=server.openai_base_url,
                            embedder="hashing")
        ledger = Ledger()
        tasks, _ = collect_tasks(archive, tmp_path, settings, "/p", [], ledger)
        asked = len(server.model_requests())
    assert tasks and asked >= 1
    assert all("miner-model" in t.meta["judge_source"] for t in tasks)
    assert tasks[0].judge.checks[0]["text"] == "pytest -q"
    assert {c.role for c in ledger.calls} == {"miner"}
