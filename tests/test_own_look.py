"""The own look (``night/demands.py``): an edit the gate accepted is read beside what the
skill's own tasks are judged on, and held back when it forbids one of those demands; also
through the real SDK clients against the fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.demands import OwnLook, demands, quoted
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.publish.report import render, render_json
from skillopt_sleep.records import Edit, JudgeSpec, Message, NightResult, Split, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import blocks, build
from tests.fakes import FakeLLMServer, Status, Text
from tests.fakes.sdk_clients import sdk_llm

DRY = "contains(text='--dry-run')"


def _task(i: int, split: str, checks: list[dict[str, object]], rubric: str = "") -> Task:
    return Task(f"t{i}", f"f{i}", f"Task {i}.", JudgeSpec(kind="rules", checks=checks,
                                                       rubric=rubric), split=split)


def test_the_demands_are_the_held_out_tasks_checks_and_rubric_lines_most_judged_first():
    dry = {"op": "contains", "text": "--dry-run"}
    tasks = [
        _task(0, Split.TRAIN.value, [{"op": "no_refusal"}, dry]),
        _task(1, Split.VALIDATION.value, [dry, {"op": "section_present", "section": "Rollback"}],
              rubric="- Names the blast radius\n\n* Says who is paged"),
        _task(2, Split.TEST.value, [{"op": "contains", "text": "SECRET-TEST-ONLY"}]),
        _task(3, Split.TRAIN.value, [dry, dry]),  # a task counts each demand once
    ]
    shown = demands(tasks)
    assert shown == [DRY, "section_present(section='Rollback')", "Names the blast radius",
                     "Says who is paged"]
    assert not any("TEST-ONLY" in d for d in shown)  # the test split stays for the figures


@pytest.mark.parametrize(("quote", "ok"), [
    (DRY, True),  # a check is one word: the whole line grounds it
    (f" `{DRY}`. ", True),
    ("Names the blast radius", True),
    ("blast radius", False),  # too short a part of a line
    ("contains(text='--dry", False),
    ("Never apply without review", False),
])
def test_a_flag_counts_only_when_it_quotes_a_demand(quote: str, ok: bool):
    assert quoted(quote, [DRY, "Names the blast radius"]) is ok


def _reading(edit: str, quote: str | None) -> ScriptedLLM:
    """An optimizer that proposes ``edit`` (citing every task it is shown) and, asked to look
    at the skill's demands, flags it quoting ``quote`` (None: flags nothing)."""
    def answer(messages: Sequence[Message], _seed: int) -> str:
        body = messages[-1]["content"]
        if "<mode>demands</mode>" in body:
            rows = [] if quote is None else [{"skill": "whatever", "quote": quote,
                                              "why": "it forbids the dry run"}]
            return json.dumps({"contradictions": rows})
        shown = json.loads(blocks(body).get("minibatch", "[]"))
        return json.dumps({"edits": [{"op": "append", "text": edit,
                                      "tasks": [i["task_id"] for i in shown]}]})
    return ScriptedLLM(answer)


def _night(optimizer: ScriptedLLM) -> NightResult:
    p = personas.load("researcher")
    return run_night(NightInputs(
        tasks=personas.tasks(p, 0), skill_text=p.initial_skill(), skill_name=p.skill,
        target=build(p, 0, "target"), optimizer=optimizer, night_id="n",
        config=NightConfig(steps=1, slow_update=False, score_test=False)))


def test_a_night_holds_back_an_accepted_edit_that_forbids_a_demand_and_reports_the_quote():
    p = personas.load("researcher")
    rule, demand = p.rules[0].text, describe(p.rules[0].check)
    plain = _night(_reading(rule, None))
    assert rule in plain.skill_after and not plain.contradictions  # the gate takes it
    flagged = _night(_reading(rule, demand))
    [decision] = [d for d in flagged.decisions if d.edit.text == rule]
    assert decision.stage == "contradict" and not decision.accepted
    assert "forbids a demand its tasks are judged on" in decision.reason
    assert rule not in flagged.skill_after
    [c] = flagged.contradictions
    assert (c.skill, c.other_skill, c.quote, c.n_pairs) == (p.skill, p.skill, demand, 0)
    assert c.own
    html = render([flagged])
    assert "its own demands" in html and "Rejected at contradict" in html
    assert "1 reached the gate" in html  # the look judges what the gate accepted
    assert render_json([flagged])["nights"][0]["contradictions"][0]["quote"] == demand
    made_up = _night(_reading(rule, "Never apply without review"))
    assert rule in made_up.skill_after  # an ungrounded flag holds nothing back
    assert any("own look" in n and "quotes nothing" in n for n in made_up.notes)


def test_the_simulated_optimizer_flags_a_harmful_rule_quoting_the_demand_it_cancels():
    p = personas.load("devops")
    harmful = next(h for h in p.harmful if h.effect == "skip:dry-run")
    tasks = [t for t in personas.tasks(p, 0) if t.split != Split.TEST.value]
    assert DRY in demands(tasks)
    hits = wrong = 0
    for seed in range(40):
        look = OwnLook(p.skill, tasks, build(p, seed, "optimizer"), seed=seed)
        hits += [c.quote for c in look.check(Edit(op="append", text=harmful.text))] == [DRY]
        wrong += len(look.check(Edit(op="append", text=p.rules[0].text)))
    assert 24 <= hits <= 38 and wrong <= 6  # fallible both ways (recall 0.8, false 0.03)
    assert OwnLook(p.skill, tasks, build(p, 0, "optimizer")).check(
        Edit(op="delete", anchor=harmful.text)) == []  # a deletion forbids nothing new


# --- through the real SDK clients ---------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.mark.parametrize("kind", ["anthropic", "openai", "responses"])
def test_the_own_look_reaches_the_model_and_its_flags_are_read(
    kind: str, server: FakeLLMServer
) -> None:
    tasks = [_task(0, Split.TRAIN.value, [{"op": "contains", "text": "--dry-run"}])]
    edit = Edit(op="append", text="Skip the preview and apply directly.")
    server.push(Text(json.dumps({"contradictions": [
        {"skill": "ops", "quote": DRY, "why": "no preview means no dry run"}]})))
    look = OwnLook("ops", tasks, sdk_llm(kind, server))
    [c] = look.check(edit)
    assert (c.other_skill, c.quote, c.why) == ("ops", DRY, "no preview means no dry run")
    sent = json.dumps(server.model_requests()[-1].body)
    assert "[skillopt-sleep replay]" in sent and "--dry-run" in sent and "apply directly" in sent
    server.push(Status(500), Status(500))  # both attempts of the retry policy
    assert look.check(edit) == [] and "own look" in look.notes[-1]
