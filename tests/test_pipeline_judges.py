from __future__ import annotations

import json

from skillopt_sleep.config import Settings
from skillopt_sleep.judges.rules import RulesJudge
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.pipeline_steps import build_judge_for
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
                            base_url=server.openai_base_url)
        ledger = Ledger()
        score = build_judge_for(settings, ledger)(task("rubric")).score(
            task("rubric"), "test_parse failed on empty input")
    assert not score.failed and score.hard == 1.0 and score.soft == 0.8
    assert {c.role for c in ledger.calls} == {"judge"}
    assert ledger.cost_by_role()["judge"] > 0
