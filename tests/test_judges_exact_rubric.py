"""Exact and rubric judges, and the judge factory's load-time validation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from skillopt_sleep.errors import AuthError, BudgetExceeded, JudgeError, ModelError
from skillopt_sleep.judges import build_judge
from skillopt_sleep.judges.exact import ExactJudge
from skillopt_sleep.judges.rubric import RubricJudge, parse_verdict
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.models.openai import OpenAIChatLLM
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import FAST
from skillopt_sleep.records import SENTINEL, JudgeSpec, Message, Task, ToolCall
from tests.fakes import FakeLLMServer, Text


def task(**judge: object) -> Task:
    return Task(id="t1", family_id="f1", intent="Name the test runner.",
                judge=JudgeSpec(**judge))  # type: ignore[arg-type]


# --- exact ------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["pytest", "  PyTest. ", "`pytest`", "```\npytest\n```",
                                    "\"pytest\""])
def test_exact_forgives_case_quotes_fences_and_full_stops(answer: str) -> None:
    score = ExactJudge().score(task(kind="exact", reference="pytest"), answer)
    assert (score.hard, score.soft) == (1.0, 1.0)


def test_exact_gives_partial_credit_for_a_near_miss() -> None:
    spec = task(kind="exact", reference="run pytest -q")
    near = ExactJudge().score(spec, "run pytest")
    far = ExactJudge().score(spec, "use unittest")
    assert near.hard == far.hard == 0.0
    assert near.soft > far.soft == 0.0
    assert not near.failed


def test_exact_containment_option() -> None:
    spec = task(kind="exact", reference="pytest -q", contains=True)
    assert ExactJudge().score(spec, "You should run `pytest -q` in the root.").hard == 1.0
    strict = task(kind="exact", reference="pytest -q")
    assert ExactJudge().score(strict, "You should run pytest -q in the root.").hard == 0.0


# --- rubric parsing -----------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "score", "passed"), [
    ('{"score": 8, "pass": true, "reason": "good"}', 8, True),
    ('Sure!\n```json\n{"score": 3, "reason": "misses the rule"}\n```', 3, False),
    ('{"score": "9", "reason": "ok"}', 9, True),
    ("Score: 7/10 — mostly right", 7, True),
])
def test_rubric_replies_parse(reply: str, score: float, passed: bool) -> None:
    verdict = parse_verdict(reply)
    assert verdict is not None
    assert (verdict.score, verdict.passed) == (score, passed)


@pytest.mark.parametrize("reply", ["I think it is fine.", '{"score": 42}', '{"grade": "A"}',
                                   '{"score": "high"}', ""])
def test_rubric_garbage_does_not_parse(reply: str) -> None:
    assert parse_verdict(reply) is None


# --- rubric judging -----------------------------------------------------------------------


def rubric_task(repeats: int = 1) -> Task:
    return task(kind="rubric", rubric="Names pytest and the -q flag.", repeats=repeats)


def test_rubric_scores_and_explains() -> None:
    grader = ScriptedLLM('{"score": 9, "pass": true, "reason": "names pytest -q"}')
    score = RubricJudge(grader).score(rubric_task(), "pytest -q", [ToolCall("Bash")])
    assert (score.hard, score.soft, score.failed) == (1.0, 0.9, False)
    assert score.rationale == "names pytest -q"
    prompt = grader.calls[0]
    assert prompt[1]["content"].startswith(SENTINEL)
    assert "Names pytest and the -q flag." in prompt[1]["content"]
    assert "Bash(ok)" in prompt[1]["content"]


def test_unparseable_grader_is_retried_then_failed_never_zero() -> None:
    grader = ScriptedLLM("I refuse to use JSON.")
    score = RubricJudge(grader, attempts=3).score(rubric_task(), "pytest")
    assert score.failed
    assert score.rationale.startswith("judge failed: unparseable grader reply after 3")
    assert len(grader.calls) == 3


def test_retry_uses_a_new_sample_so_a_cache_cannot_replay_garbage() -> None:
    def reply(messages: Sequence[Message], seed: int) -> str:
        return "garbage" if seed == 0 else '{"score": 6, "reason": "partly"}'

    score = RubricJudge(ScriptedLLM(reply)).score(rubric_task(), "pytest")
    assert not score.failed and score.soft == 0.6 and score.hard == 0.0


def test_median_of_three() -> None:
    replies = {0: '{"score": 2, "reason": "low"}', 3: '{"score": 9, "reason": "high"}',
               6: '{"score": 7, "reason": "middle"}'}
    grader = ScriptedLLM(lambda m, seed: replies[seed])
    score = RubricJudge(grader).score(rubric_task(repeats=3), "pytest")
    assert score.soft == 0.7 and score.hard == 1.0
    assert score.rationale.startswith("middle (median of 3: 2, 7, 9")


def test_grader_model_error_is_a_failed_judgement() -> None:
    def down(messages: Sequence[Message], seed: int) -> str:
        raise ModelError("provider down")

    score = RubricJudge(ScriptedLLM(down)).score(rubric_task(), "pytest")
    assert score.failed and "provider down" in score.rationale


@pytest.mark.parametrize("error", [AuthError("not logged in"), BudgetExceeded("cap")])
def test_stopping_errors_are_not_swallowed(error: Exception) -> None:
    def stop(messages: Sequence[Message], seed: int) -> str:
        raise error

    with pytest.raises(type(error)):
        RubricJudge(ScriptedLLM(stop)).score(rubric_task(), "pytest")


def test_rubric_judge_over_a_real_sdk_backend() -> None:
    with FakeLLMServer([Text("no json here"), Text('{"score": 10, "reason": "exact"}')]) as srv:
        grader = OpenAIChatLLM("gpt-4o-mini", price=Price(0.15, 0.6), api_key="k",
                               base_url=srv.openai_base_url, policy=FAST)
        judge = build_judge(rubric_task().judge, grader)
        score = judge.score(rubric_task(), "pytest -q")
    assert (score.hard, score.soft) == (1.0, 1.0)
    assert len(srv.model_requests()) == 2


# --- factory ------------------------------------------------------------------------------


def test_factory_picks_by_kind() -> None:
    assert isinstance(build_judge(JudgeSpec(kind="exact", reference="x")), ExactJudge)
    checks = [{"op": "contains", "text": "pytest"}]
    rules = build_judge(JudgeSpec(kind="rules", checks=checks))
    assert rules.score(task(kind="rules", checks=checks), "use pytest").hard == 1.0


@pytest.mark.parametrize(("spec", "message"), [
    (JudgeSpec(kind="exact", reference="  "), "reference"),
    (JudgeSpec(kind="rubric", rubric=""), "rubric"),
    (JudgeSpec(kind="rubric", rubric="x", repeats=2), "odd"),
    (JudgeSpec(kind="rules", checks=[{"op": "nonsense"}]), "unknown op"),
    (JudgeSpec(kind="vibes"), "unknown judge kind"),  # type: ignore[arg-type]
])
def test_invalid_specs_are_rejected_at_load(spec: JudgeSpec, message: str) -> None:
    with pytest.raises(JudgeError, match=message):
        build_judge(spec, ScriptedLLM("{}"))


def test_rubric_without_grader_is_rejected() -> None:
    with pytest.raises(JudgeError, match="grader"):
        build_judge(JudgeSpec(kind="rubric", rubric="be right"))
