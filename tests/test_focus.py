"""Reflection's evidence: a failure's checks the skill mostly meets are set apart (night.focus).

Real rules judges, real prompts and the real simulated optimizer; nothing is mocked."""

from __future__ import annotations

import json

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.night import focus
from skillopt_sleep.night.prompts import reflect_messages
from skillopt_sleep.records import JudgeSpec, Rollout, Score, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedOptimizer, blocks

A = {"op": "contains", "text": "TL;DR:"}
B = {"op": "section_present", "section": "Limitations"}


def _task(i: int) -> Task:
    return Task(id=f"t{i}", family_id="f", intent=f"Summarize paper {i}.", split="train",
                judge=JudgeSpec(kind="rules", checks=[A, B]))


def _answer(task: Task, failed: list[dict[str, str]]) -> Rollout:
    why = "failed: " + "; ".join(describe(c) for c in failed) if failed else "all checks passed"
    return Rollout(task.id, 0, "h", "answer", Score(hard=float(not failed),
                                                   soft=1 - len(failed) / 2, rationale=why))


def test_pass_rates_count_each_check_over_the_answers_judged_on_it() -> None:
    tasks = [_task(i) for i in range(4)]
    held = [(t, _answer(t, [A] if i == 0 else [A, B])) for i, t in enumerate(tasks)]
    rates = focus.pass_rates(held)
    assert rates == {describe(A): 0.0, describe(B): 0.25}
    assert focus.pass_rates(held[:2]) == {}  # fewer than MIN_SEEN answers: not read


def test_a_mostly_met_check_moves_out_of_the_rationale() -> None:
    tasks = [_task(i) for i in range(4)]
    held = [(t, _answer(t, [A, B] if i == 0 else [A])) for i, t in enumerate(tasks)]
    rates = focus.pass_rates(held)  # A never passes, B passes 3 of 4
    shown, met = focus.focused(held, rates)
    assert shown[0][1].score.rationale == f"failed: {describe(A)}"
    assert met == {"t0": {describe(B): 0.75}}
    assert [r for _, r in shown[1:]] == [r for _, r in held[1:]]  # nothing to set apart
    # A failure whose every failed check is mostly met keeps its rationale as it was.
    only_b = [(tasks[0], _answer(tasks[0], [B]))]
    assert focus.focused(only_b, rates)[0] == only_b


def test_the_prompt_shows_what_was_set_apart_and_nothing_when_off() -> None:
    tasks = [_task(i) for i in range(4)]
    held = [(t, _answer(t, [A, B] if i == 0 else [A])) for i, t in enumerate(tasks)]
    train = [r for _, r in held]
    by_id = {t.id: t for t in tasks}
    scored, met = focus.shown(train, by_id, train)
    text = reflect_messages(mode="failures", skill="s", items=scored, rejected=[], notes=[],
                            max_edits=2, met=met)[1]["content"]
    items = json.loads(blocks(text)["minibatch"])
    assert items[0]["mostly_met"] == {describe(B): 0.75}
    assert all("mostly_met" not in item for item in items[1:])
    off, none = focus.shown(train, by_id, train, on=False)
    assert none == {} and off == held


def test_the_simulated_optimizer_stops_proposing_a_rule_the_skill_mostly_meets() -> None:
    """Researcher's TL;DR rule is met by three answers in four; every failure also misses
    the Limitations section. Shown as the judge wrote it, the optimizer proposes both rules;
    focused, only the one the skill does not meet yet."""
    p = personas.load("researcher")
    tldr, limits = p.rule("tldr").check, p.rule("limitations").check
    tasks = [Task(id=f"r{i}", family_id="f", intent=f"Summarize the BERT paper {i}.",
                  split="train",
                  judge=JudgeSpec(kind="rules", checks=[tldr, limits])) for i in range(8)]
    answers = [_answer(t, [tldr, limits] if i % 4 == 0 else [limits])
               for i, t in enumerate(tasks)]
    by_id = {t.id: t for t in tasks}

    def proposed(on: bool) -> set[str]:
        scored, met = focus.shown(answers, by_id, answers, on)
        failures = [(t, r) for t, r in scored if r.score.hard < 1]
        found: set[str] = set()
        for seed in range(40):
            prompt = reflect_messages(mode="failures", skill="# s", items=failures,
                                      rejected=[], notes=[], max_edits=3, met=met)
            reply = SimulatedOptimizer(p, seed).complete(prompt).text
            for edit in json.loads(reply).get("edits", []) if reply.startswith("{") else []:
                found |= {r.id for r in p.rules if r.recognised_in(edit.get("text", ""))}
        return found

    assert proposed(False) == {"tldr", "limitations"}
    assert proposed(True) == {"limitations"}
