"""The night's last look (``night.whole``): an edit the gate accepted on the tasks it
touches alone, which makes every other answer worse, does not reach the skill."""

from __future__ import annotations

import json
from collections.abc import Sequence

from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.records import JudgeSpec, Message, Task

SKILL = "---\nname: fix\ndescription: d\n---\nFix bugs.\nEnd with a line 'Tests: pytest -q'.\n"
CHANGELOG = "Close every answer with a changelog entry."


def tasks(touched: int, untouched: int) -> list[Task]:
    """Validation tasks checked for a changelog line (``touched``) or for the tests line."""
    changelog = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "Changelog entry:"}])
    tests = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "pytest -q"}])
    rows = [("train", tests)] * 4 + [("validation", changelog)] * touched
    rows += [("validation", tests)] * untouched + [("test", tests)] * 6 + [("test", changelog)] * 2
    return [Task(id=f"t{i}", family_id=f"f{i}", intent=f"fix bug number {i}", judge=judge,
                 split=split) for i, (split, judge) in enumerate(rows)]


def target(messages: Sequence[Message], seed: int) -> str:
    """Follows the skill: the changelog line replaces the tests line."""
    system = messages[0]["content"]
    if "changelog entry" in system:
        return "Fixed the bug.\nChangelog entry: guard the empty list."
    if "pytest -q" in system:
        return "Fixed the bug.\nTests: pytest -q"
    return "Fixed the bug."


def run(touched: int, untouched: int):
    optimizer = ScriptedLLM(json.dumps({"edits": [
        {"op": "append", "text": CHANGELOG, "tasks": ["t0", "t1"]}]}), name="optimizer")
    return run_night(NightInputs(
        tasks=tasks(touched, untouched), skill_text=SKILL, skill_name="fix",
        target=ScriptedLLM(target), optimizer=optimizer, night_id="n", project="p",
        config=NightConfig(steps=1, slow_update=False, score_test=False)))


def test_an_edit_that_helps_what_it_touches_and_hurts_the_rest_is_held_back():
    result = run(touched=3, untouched=15)
    gate = [d for d in result.decisions if d.stage == "gate"]
    # The gate decided on the three touched tasks' nine pairs, all better, and never drew
    # an untouched task: that is the order's price.
    assert [d.accepted for d in gate] == [True] and gate[0].n_pairs == 9
    assert result.skill_after == SKILL
    assert any("did worse on every validation task once" in w and "stays as it was" in w
               for w in result.warnings)
    held = [d for d in result.buffered if "part of a night held back" in d.reason]
    assert [d.edit.text for d in held] == [CHANGELOG]
    assert "significantly worse" in held[0].reason


def test_the_gate_sees_the_harm_itself_when_the_touched_tasks_do_not_decide():
    """Two touched tasks give six pairs, too few to accept on: the untouched ones that
    follow are worse, and the gate turns the edit down; the last look is not needed."""
    result = run(touched=2, untouched=15)
    assert not any(d.accepted for d in result.decisions)
    assert result.skill_after == SKILL
    assert not any("every validation task once" in w for w in result.warnings)


def test_a_night_whose_edit_helps_everywhere_is_kept():
    def helpful(messages: Sequence[Message], seed: int) -> str:
        answer = target(messages, seed)
        return answer + "\nTests: pytest -q" if "changelog entry" in answer.lower() else answer

    optimizer = ScriptedLLM(json.dumps({"edits": [
        {"op": "append", "text": CHANGELOG, "tasks": ["t0", "t1"]}]}), name="optimizer")
    result = run_night(NightInputs(
        tasks=tasks(3, 15), skill_text=SKILL, skill_name="fix", target=ScriptedLLM(helpful),
        optimizer=optimizer, night_id="n", project="p",
        config=NightConfig(steps=1, slow_update=False, score_test=False)))
    assert CHANGELOG in result.skill_after
    assert not result.warnings


def test_what_the_night_did_before_its_steps_stands_when_the_steps_are_held_back():
    """A retirement before the steps has its own test (the skill without the entry is no
    worse); the last look holds back the steps' edit, not the retirement."""
    from skillopt_sleep.records import Edit
    from skillopt_sleep.skilldoc import apply_edit, parse

    stale = "Mention the ticket number."
    text = apply_edit(parse(SKILL), Edit(op="append", text=stale))[0].text
    optimizer = ScriptedLLM(json.dumps({"edits": [
        {"op": "append", "text": CHANGELOG, "tasks": ["t0", "t1"]}]}), name="optimizer")
    result = run_night(NightInputs(
        tasks=tasks(3, 15), skill_text=text, skill_name="fix", target=ScriptedLLM(target),
        optimizer=optimizer, night_id="n", project="p", retire=[stale],
        config=NightConfig(steps=1, slow_update=False, score_test=False)))
    assert [d.accepted for d in result.retired] == [True]
    assert any("did worse on every validation task once" in w for w in result.warnings)
    assert stale not in result.skill_after and CHANGELOG not in result.skill_after
    assert "pytest -q" in result.skill_after
