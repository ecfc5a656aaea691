"""Tasks from families: judges from corrections, the LLM miner validated, splits honoured."""

from __future__ import annotations

import json
from collections.abc import Sequence

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.judges.rules import validate_checks
from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
from skillopt_sleep.mine.corrections import merge_checks, rules_from_correction
from skillopt_sleep.mine.embed import MockEmbedder
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.intent import parse
from skillopt_sleep.mine.judging import propose, valid_checks
from skillopt_sleep.mine.requests import Request
from skillopt_sleep.mine.route import LEARNED_SKILL, Route, SkillInfo
from skillopt_sleep.mine.tasks import FamilyEvidence, build_tasks
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.records import Message


def _plain(checks: Sequence[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in c.items() if k != "why"} for c in checks]


def test_corrections_become_the_rules_the_user_wants() -> None:
    assert _plain(rules_from_correction("no, use pytest -q")) == [
        {"op": "contains", "text": "pytest -q"}]
    assert _plain(rules_from_correction("use `uv run` instead of pip")) == [
        {"op": "contains", "text": "uv run"}, {"op": "not_contains", "text": "pip"}]
    assert _plain(rules_from_correction("never run git push --force")) == [
        {"op": "not_contains", "text": "git push --force"}]
    assert _plain(rules_from_correction("too long, be concise")) == [
        {"op": "max_chars", "n": 800}]
    # A length word that is the thing asked for is no length cap; beside another, it is.
    assert _plain(rules_from_correction("No, use `TL;DR:`, always.")) == [
        {"op": "contains", "text": "TL;DR:"}]
    assert _plain(rules_from_correction("tl;dr please, this is too long")) == [
        {"op": "max_chars", "n": 800}]
    assert {"op": "max_chars", "n": 800} in _plain(
        rules_from_correction("no, use `TL;DR:` and be concise"))
    # A negated length word asks for no length ("don't elaborate" is no call for more).
    assert _plain(rules_from_correction("not too long, no, use `Summary:`")) == [
        {"op": "contains", "text": "Summary:"}]
    assert rules_from_correction("no need to elaborate") == []
    assert rules_from_correction("it wasn't too short") == []
    assert all(c["op"] != "min_chars" for c in rules_from_correction("don't elaborate"))
    assert _plain(rules_from_correction("not bad, but too long")) == [
        {"op": "max_chars", "n": 800}]
    assert _plain(rules_from_correction("you refused again, just do it")) == [
        {"op": "no_refusal"}]
    assert _plain(rules_from_correction("add a Summary section")) == [
        {"op": "section_present", "section": "Summary"}]
    assert rules_from_correction("use it") == []
    assert rules_from_correction("thanks, looks good") == []
    checks = rules_from_correction("no, use pytest -q") + rules_from_correction("use pytest -q.")
    assert len(merge_checks([checks])) == 1
    clash = rules_from_correction("use ruff") + rules_from_correction("don't use ruff")
    assert merge_checks([clash]) == []


def _family(split: str, corrections: Sequence[str] = ()) -> FamilyEvidence:
    texts = ["run the tests", "run the tests again", "please run the tests"]
    members = [Request(id=f"r{i}", session_id=f"s{i}", project="/p", text=t, source="claude-code",
                       reaction="correction" if i < len(corrections) else "none",
                       correction=corrections[i] if i < len(corrections) else "")
               for i, t in enumerate(texts)]
    vectors = MockEmbedder(dim=8).embed(texts)
    return FamilyEvidence("fam-x", "/p", split, members, vectors)


def test_a_correction_makes_a_replayable_rules_task() -> None:
    tasks = build_tasks(_family("validation", ["no, use pytest -q"]), Route("testing", "loaded"))
    task = tasks[0]  # other members' wordings are real tasks too; nothing synthetic here
    assert not any(t.synthetic for t in tasks)
    assert task.id == "fam-x:0" and task.split == "validation" and task.skill == "testing"
    assert task.judge.kind == "rules" and _plain(task.judge.checks) == [
        {"op": "contains", "text": "pytest -q"}]
    validate_checks(task.judge.checks)
    assert task.meta["replayable"] and task.meta["outcomes"]["failure"] == 1


def test_nothing_checkable_is_kept_but_unreplayable() -> None:
    task = build_tasks(_family("test"), Route(LEARNED_SKILL, "catch-all"))[0]
    assert task.meta["replayable"] is False and "no correction" in task.meta["unreplayable_reason"]


def _miner_reply(messages: Sequence[Message], seed: int) -> str:
    assert messages[0]["content"].startswith("[skillopt-sleep replay]")
    return "Here you go:\n" + json.dumps({
        "checks": [{"op": "regex", "pattern": "pytest\\s+-q"}, {"op": "regex", "pattern": "(["},
                   {"op": "mentions", "text": "x"}, {"op": "contains"}],
        "rubric": "", "paraphrases": ["execute the unit tests quietly"]})


def test_llm_miner_output_is_validated_and_synthetics_stay_in_train() -> None:
    llm = ScriptedLLM(_miner_reply)
    train = build_tasks(_family("train"), Route("testing", "loaded"), llm=llm)
    main = train[0]
    assert _plain(main.judge.checks) == [{"op": "regex", "pattern": "pytest\\s+-q"}]
    rejected = " | ".join(main.meta["rejected_checks"])
    assert "unknown op 'mentions'" in rejected and "regex" in rejected and "missing" in rejected
    assert [t.synthetic for t in train] == [False, False, False, True]
    assert train[-1].intent == "execute the unit tests quietly"
    for split in ("validation", "test"):
        assert not any(t.synthetic for t in build_tasks(_family(split), Route("t", "loaded"),
                                                        llm=llm))


def test_shape_only_judges_are_flagged_and_bad_replies_counted() -> None:
    shape = ScriptedLLM(json.dumps({"checks": [{"op": "min_chars", "n": 50}]}))
    task = build_tasks(_family("test"), Route("t", "loaded"), llm=shape)[0]
    assert "shape-only" in task.meta["judge_flags"]
    garbage = ScriptedLLM("I cannot produce JSON today")
    proposal = propose(garbage, "run the tests", [], [], [])
    assert proposal.error and not proposal.checks
    task = build_tasks(_family("test"), Route("t", "loaded"), llm=garbage)[0]
    assert task.meta["replayable"] is False
    rubric = ScriptedLLM(json.dumps({"checks": [], "rubric": "Names the failing test."}))
    task = build_tasks(_family("test"), Route("t", "loaded"), llm=rubric)[0]
    assert task.judge.kind == "rubric" and task.meta["replayable"]


def test_valid_checks_agree_with_the_rules_judge() -> None:
    kept, rejected = valid_checks([{"op": "max_chars", "n": "ten"}, {"op": "no_refusal"},
                                   {"op": "tool_called", "tool": "Bash"}])
    assert [c["op"] for c in kept] == ["no_refusal", "tool_called"] and len(rejected) == 1
    validate_checks(kept)


def test_catalog_routes_dedupes_and_stores_tasks() -> None:
    archive = Archive(paths.archive_path())
    texts = {"run the tests": [1, 0, 0, 0], "run the tests again": [1, 0.1, 0, 0],
             "bump the version": [0, 1, 0, 0], "bump the version number": [0, 1, 0.1, 0],
             "testing: how we run pytest": [1, 0, 0.2, 0]}
    # Requests are embedded in canonical form, skills' routing text as written.
    mock = MockEmbedder(dim=4, vectors={parse(k).canonical: v for k, v in texts.items()} | texts)
    skill = SkillInfo("testing", "how we run pytest", text="Always use pytest -q.")
    requests = [
        Request("a1", "s1", "/p", "run the tests", reaction="correction",
                correction="no, use pytest -q"),
        Request("a2", "s2", "/p", "run the tests again"),
        Request("b1", "s3", "/p", "bump the version", skills_used=["release"]),
        Request("b2", "s4", "/p", "bump the version number"),
    ]
    settings = CatalogSettings(family=FamilySettings(threshold=0.8))
    result = Catalog(archive, mock, skills=[skill], settings=settings).refresh(requests)
    by_intent = {t.intent: t for t in result.tasks if t.id.endswith(":0")}
    tests_task = by_intent["run the tests"]
    assert tests_task.skill == "testing" and tests_task.meta["route"] == "nearest"
    assert tests_task.meta["already_stated"] == ["pytest -q"]
    assert by_intent["bump the version"].skill == "release"
    assert result.uncovered == []
    again = Catalog(archive, mock, skills=[skill], settings=settings).refresh(requests)
    assert again.report.counts.get("tasks_built", 0) == 0  # nothing changed, nothing rebuilt
    assert sorted(t.id for t in again.tasks) == sorted(t.id for t in result.tasks)
