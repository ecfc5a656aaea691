from __future__ import annotations

import pytest

from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.records import Edit, EditOutcome
from skillopt_sleep.skilldoc import apply_edit, ensure_regions, new_skill, parse

USER = "---\nname: tests\ndescription: run the tests\n---\n\n# Tests\n\nUse pytest. Never push.\n"


def doc_with(*entries: str):
    doc = ensure_regions(parse(USER))
    for e in entries:
        doc, outcome = apply_edit(doc, Edit(op="append", text=e))
        assert outcome is EditOutcome.APPLIED
    return doc


def test_frontmatter_and_user_text_parsed():
    doc = parse(USER)
    assert (doc.name, doc.description) == ("tests", "run the tests")
    assert doc.regions == {}


def test_regions_appended_keep_user_text_byte_identical():
    doc = ensure_regions(parse(USER))
    assert doc.text.startswith(USER)
    assert set(doc.regions) == {"learned", "slow"}
    assert doc.user_text().startswith(USER)


def test_start_marker_without_end_is_an_error():
    text = USER + "<!-- skillopt-sleep:learned:start -->\n- a rule\n"
    with pytest.raises(SkillDocError, match="no end marker"):
        parse(text)


def test_end_marker_without_start_and_duplicate_start_are_errors():
    with pytest.raises(SkillDocError, match="without a start"):
        parse(USER + "<!-- skillopt-sleep:learned:end -->\n")
    twice = USER + "<!-- skillopt-sleep:learned:start -->\n<!-- skillopt-sleep:learned:start -->\n"
    with pytest.raises(SkillDocError, match="second start"):
        parse(twice)


def test_append_and_no_change_on_duplicate():
    doc = doc_with("Run pytest -q.")
    assert doc.entries() == ("Run pytest -q.",)
    same, outcome = apply_edit(doc, Edit(op="append", text="run   PYTEST -q."))
    assert outcome is EditOutcome.NO_CHANGE and same.text == doc.text


def test_insert_after_places_entry_after_anchor():
    doc = doc_with("first rule", "third rule")
    new, outcome = apply_edit(doc, Edit(op="insert_after", anchor="first", text="second rule"))
    assert outcome is EditOutcome.APPLIED
    assert new.entries() == ("first rule", "second rule", "third rule")


def test_replace_and_replace_with_same_text():
    doc = doc_with("use tabs")
    new, outcome = apply_edit(doc, Edit(op="replace", anchor="use tabs", text="use four spaces"))
    assert outcome is EditOutcome.APPLIED and new.entries() == ("use four spaces",)
    _, outcome = apply_edit(new, Edit(op="replace", anchor="four spaces", text="Use four spaces"))
    assert outcome is EditOutcome.NO_CHANGE


def test_delete_removes_only_the_anchored_entry():
    doc = doc_with("run the tests before commit", "tests live in tests/", "lint with ruff")
    new, outcome = apply_edit(doc, Edit(op="delete", anchor="lint with ruff"))
    assert outcome is EditOutcome.APPLIED
    assert new.entries() == ("run the tests before commit", "tests live in tests/")


def test_ambiguous_and_missing_anchors_are_typed_outcomes():
    doc = doc_with("run the tests before commit", "tests live in tests/")
    _, outcome = apply_edit(doc, Edit(op="delete", anchor="tests"))
    assert outcome is EditOutcome.ANCHOR_AMBIGUOUS
    _, outcome = apply_edit(doc, Edit(op="delete", anchor="nothing like this"))
    assert outcome is EditOutcome.ANCHOR_NOT_FOUND


def test_anchor_in_user_text_is_outside_region_and_user_text_untouched():
    doc = doc_with("a learned rule")
    new, outcome = apply_edit(doc, Edit(op="replace", anchor="Never push.", text="Push freely."))
    assert outcome is EditOutcome.OUTSIDE_REGION and new.text == doc.text


def test_step_edits_cannot_touch_slow_region_and_markers_are_invalid():
    doc = doc_with()
    _, outcome = apply_edit(doc, Edit(op="append", text="x", region="slow"))
    assert outcome is EditOutcome.OUTSIDE_REGION
    _, outcome = apply_edit(doc, Edit(op="append", text="<!-- skillopt-sleep:learned:end -->"))
    assert outcome is EditOutcome.INVALID
    new, outcome = apply_edit(
        doc, Edit(op="append", text="durable", region="slow"), allow_slow=True
    )
    assert outcome is EditOutcome.APPLIED and new.entries("slow") == ("durable",)


def test_every_edit_keeps_user_text_identical():
    doc = doc_with("one", "two")
    for edit in [
        Edit(op="append", text="three"),
        Edit(op="delete", anchor="one"),
        Edit(op="replace", anchor="two", text="deux"),
    ]:
        doc, _ = apply_edit(doc, edit)
        assert doc.text.startswith(USER)


def test_new_skill_parses_with_both_regions():
    doc = parse(new_skill("skillopt-sleep-learned", "What your sessions taught: rules: yes"))
    assert doc.name == "skillopt-sleep-learned"
    assert doc.description == "What your sessions taught: rules: yes"
    assert set(doc.regions) == {"learned", "slow"}


def test_a_first_edit_adds_only_the_region_it_writes():
    # Every line of a skill is loaded with it in every session that uses it: a region
    # nothing has written yet would be context spent on markup.
    doc, outcome = apply_edit(parse(USER), Edit(op="append", text="Run ruff first."))
    assert outcome is EditOutcome.APPLIED
    assert set(doc.regions) == {"learned"}
    assert doc.text.startswith(USER)
    assert "Durable guidance" not in doc.text and "slow:start" not in doc.text


def test_a_region_left_empty_keeps_its_markers_and_drops_its_heading():
    doc = doc_with("Run ruff first.")
    assert "## Learned from your sessions" in doc.text
    doc, outcome = apply_edit(doc, Edit(op="delete", anchor="Run ruff first."))
    assert outcome is EditOutcome.APPLIED
    assert doc.entries("learned") == ()
    assert "## Learned" not in doc.text
    assert "<!-- skillopt-sleep:learned:start -->\n<!-- skillopt-sleep:learned:end -->" in doc.text
    assert parse(doc.text).regions.keys() == doc.regions.keys()
    assert doc.text.startswith(USER)
