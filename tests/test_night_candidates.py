"""What reaches the gate: restatements, repeats and one-task anecdotes are dropped first."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.candidates import admit, near_duplicate, restates, skill_lines
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.reflect import parse_edits
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.records import Edit, Message
from skillopt_sleep.skilldoc import parse
from tests.test_night import GOOD, make_tasks, target_reply

SKILL = """---
name: fix
description: d
---
# Fixing bugs

- Always end with a line 'Tests: pytest -q'.
- Write the regression test before the fix.
"""


def test_near_duplicates_are_the_same_words_give_or_take_punctuation_and_a_word():
    line = "Always end with a line 'Tests: pytest -q'."
    assert near_duplicate(line, "- always end with a line `Tests: pytest -q`", 0.8)
    assert near_duplicate(line, "Always end with one line 'Tests: pytest -q'.", 0.8)
    assert not near_duplicate(line, "Always end with a line 'Lint: ruff check'.", 0.8)
    assert not near_duplicate(line, "Name the failing test in the first line.", 0.8)
    # A scoped version adds words: not the same rule, so never dropped as one.
    assert not near_duplicate(line, "When fixing the parser: " + line, 0.8)
    assert not near_duplicate("", line, 0.8)


def test_an_edit_restating_a_line_of_the_skill_is_found_wherever_the_line_is():
    doc = parse(SKILL)
    lines = skill_lines(doc)
    assert "name: fix" not in lines and "# Fixing bugs" in lines
    user_line = Edit(op="append", text="Write the regression test before the fix")
    assert restates(user_line, lines, 0.8) == "- Write the regression test before the fix."
    assert restates(Edit(op="append", text="Name the failing test."), lines, 0.8) is None
    # Deleting adds nothing; replacing a line with itself reworded is not a restatement of it.
    assert restates(Edit(op="delete", anchor=GOOD), lines, 0.8) is None
    reword = Edit(op="replace", anchor="Write the regression test before the fix.",
                  text="Write the regression test before the fix!")
    assert restates(reword, lines, 0.8) is None


def test_admit_drops_restatements_repeats_and_one_task_edits_in_rank_order():
    doc = parse(SKILL)
    ranked = [
        Edit(op="append", text="Name the failing test in the answer.", support=3),
        Edit(op="append", text="Write the regression test before the fix.", support=4),
        Edit(op="append", text="Name the failing test in your answer.", support=2),
        Edit(op="append", text="Mention the Python version.", support=1),
        Edit(op="append", text="Quote the traceback's last line.", support=2),
    ]
    kept, dropped = admit(ranked, doc, min_support=2, overlap=0.8)
    assert [e.text for e in kept] == [ranked[0].text, ranked[4].text]
    reasons = [d.reason for d in dropped]
    assert reasons[0].startswith("restates the skill")
    assert reasons[1] == f"repeats candidate {ranked[0].id}"
    assert reasons[2] == "cites 1 task(s), fewer than 2"
    assert all(d.stage == "merge" and not d.accepted for d in dropped)
    # min_support 1 and an overlap above 1 turn every rule off.
    assert admit(ranked, doc, min_support=1, overlap=1.1)[0] == ranked
    # One anecdote a step, only when nothing of the step has the support: the best-ranked
    # under-supported candidate goes on then, and never beside a better-supported one.
    weak = [ranked[3], Edit(op="append", text="Quote the traceback's last line.", support=1)]
    kept, _ = admit(weak, doc, min_support=2, overlap=0.8, anecdotes=1)
    assert kept == weak[:1]
    kept, _ = admit(ranked, doc, min_support=2, overlap=0.8, anecdotes=1)
    assert [e.text for e in kept] == [ranked[0].text, ranked[4].text]


def test_support_counts_only_the_tasks_the_optimizer_was_shown():
    reply = json.dumps({"edits": [{"op": "append", "text": "x", "tasks": ["t1", "t2", "zz"]},
                                  {"op": "append", "text": "y", "tasks": ["made-up"]},
                                  {"op": "append", "text": "z"}]})
    edits = parse_edits(reply, "failure", frozenset({"t1", "t2", "t3"}))
    assert [e.support for e in edits] == [2, 1, 1]
    assert [e.support for e in parse_edits(reply, "failure")] == [3, 1, 1]


def _night(skill: str, edits: list[dict], **cfg: object) -> tuple[list[str], object]:
    seen: list[str] = []

    def target(messages: Sequence[Message], seed: int) -> str:
        seen.append(messages[0]["content"])
        return target_reply(messages, seed)

    inputs = NightInputs(
        tasks=make_tasks(), skill_text=skill, skill_name="fix", target=ScriptedLLM(target),
        optimizer=ScriptedLLM(json.dumps({"edits": edits}), name="optimizer"), night_id="n",
        config=NightConfig(**{"steps": 1, "slow_update": False, "score_test": False, **cfg}),  # type: ignore[arg-type]
    )
    return seen, run_night(inputs)


def test_a_restated_rule_never_reaches_the_gate():
    restated = {"op": "append", "text": "Write the regression test before the fix",
                "tasks": ["t0", "t1"]}
    seen, result = _night(SKILL, [restated])
    (decision,) = result.decisions  # type: ignore[attr-defined]
    assert decision.stage == "merge" and decision.reason.startswith("restates the skill")
    assert decision.n_pairs == 0
    # The target only ever read the skill as it was: no candidate was replayed.
    assert {s.count("regression test") for s in seen} == {1}
    # With the check off, the same edit is gated (and costs replays of a candidate skill).
    seen, result = _night(SKILL, [restated], restate_overlap=2.0)
    assert [d.stage for d in result.decisions] == ["gate"]  # type: ignore[attr-defined]
    assert any(s.count("regression test") == 2 for s in seen)


def test_edits_citing_one_task_are_gated_only_as_the_steps_anecdote_or_if_allowed():
    skill = "---\nname: fix\ndescription: d\n---\nFix bugs.\n"
    one = {"op": "append", "text": GOOD, "tasks": ["t0"]}
    other = {"op": "append", "text": "Say which input broke the code, and why it broke it.",
             "tasks": ["t1"]}
    _, result = _night(skill, [one, other])  # the defaults: one anecdote a step
    stages = {d.edit.text: (d.stage, d.reason) for d in result.decisions}  # type: ignore[attr-defined]
    assert stages[GOOD][0] == "gate" and GOOD in result.skill_after  # type: ignore[attr-defined]
    assert stages[other["text"]] == ("merge", "cites 1 task(s), fewer than 2")
    _, result = _night(skill, [one], anecdotes=0)
    assert [d.stage for d in result.decisions] == ["merge"]  # type: ignore[attr-defined]
    assert GOOD not in result.skill_after  # type: ignore[attr-defined]
    _, result = _night(skill, [one], anecdotes=0, min_support=1)
    assert GOOD in result.skill_after  # type: ignore[attr-defined]
    _, result = _night(skill, [dict(one, tasks=["t0", "t1"])], anecdotes=0)
    assert GOOD in result.skill_after  # type: ignore[attr-defined]


def test_bad_candidate_settings_are_refused(tmp_path: Path):
    with pytest.raises(ConfigError, match="min_support"):
        NightConfig(min_support=0)
    with pytest.raises(ConfigError, match="anecdotes"):
        NightConfig(anecdotes=-1)
    with pytest.raises(ConfigError, match="idle_steps"):
        NightConfig(idle_steps=-1)
    with pytest.raises(ConfigError, match="familiar_alpha"):
        NightConfig(familiar_alpha=0)


def test_idle_steps_stop_a_night_that_keeps_accepting_nothing():
    skill = "---\nname: fix\ndescription: d\n---\nFix bugs.\n"
    useless = [{"op": "append", "text": "Be careful.", "tasks": ["t0", "t1"]}]
    _, patient = _night(skill, useless, steps=3)
    _, idle = _night(skill, useless, steps=3, idle_steps=2)
    assert len(patient.steps) == 3 and len(idle.steps) == 2  # type: ignore[attr-defined]
    assert idle.calls_by_role["optimizer"] < patient.calls_by_role["optimizer"]  # type: ignore[attr-defined]
