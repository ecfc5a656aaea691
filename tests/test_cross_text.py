"""The cross check's choice of a neighbour's tasks (the ones an edit touches first) and its
text-level look (the optimizer flags an edit that contradicts a neighbour's document), the
latter also through the real SDK clients against the fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillopt_sleep.judges.build import default_judge_for
from skillopt_sleep.models.base import LLM, ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.contradict import Flag, grounded, parse_flags, read_flags
from skillopt_sleep.night.cross import CrossCheck, Neighbour, focus, withdraw
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.publish.report import render, render_json
from skillopt_sleep.records import Edit, JudgeSpec, Message, NightResult, Split, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import blocks, build
from skillopt_sleep.skilldoc import apply_edit, parse
from tests.fakes import FakeLLMServer, Status, Text
from tests.fakes.sdk_clients import sdk_llm

DUO = str(Path(__file__).parent / "fixtures" / "personas" / "duo.toml")
RULE = "Never touch CHANGELOG.md; list only the source files a change affects."
NEUTRAL = "Use a friendly, professional tone."
RELEASE_DOC = ("---\nname: release-notes\ndescription: Release work.\n---\n\n# Release notes\n\n"
               "Help me ship releases: changelog updates, release notes and version bumps.\n")
QUOTE = "changelog updates, release notes and version bumps"


def _task(family: str, i: int, check: str) -> Task:
    return Task(f"{family}:{i}", family, f"Do {family} number {i}.",
                JudgeSpec(kind="rules", checks=[{"op": "contains", "text": check}]),
                split="validation", skill="release-notes")


POOL = tuple([_task(f"bump-{d}", i, "Semver:") for d in "abc" for i in range(3)]
             + [_task(f"changelog-{d}", i, "Changelog entry:") for d in "ab" for i in range(3)])


# --- which of the neighbour's tasks a check replays ---------------------------------------

def test_an_edit_is_checked_first_on_the_tasks_it_touches_one_family_at_a_time():
    near = Neighbour("release-notes", RELEASE_DOC, POOL)
    chosen = focus(near, RULE, 4, seed=3)
    assert [t.family_id.split("-")[0] for t in chosen] == ["changelog"] * 4
    assert {t.family_id for t in chosen[:2]} == {"changelog-a", "changelog-b"}
    everything = focus(near, RULE, 100, seed=3)
    assert len(everything) == len(POOL) and len({t.id for t in everything}) == len(POOL)
    assert {t.family_id for t in everything[6:9]} == {"bump-a", "bump-b", "bump-c"}
    # Seeded: the pool's order does not matter, the seed does (within a family's tasks).
    assert focus(Neighbour("release-notes", RELEASE_DOC, POOL[::-1]), RULE, 4, seed=3) == chosen
    assert any(focus(near, RULE, 4, seed=s) != chosen for s in range(4, 12))


def test_an_edit_that_touches_nothing_gets_a_sample_spread_over_families():
    chosen = focus(Neighbour("release-notes", RELEASE_DOC, POOL), NEUTRAL, 5, seed=1)
    assert len({t.family_id for t in chosen}) == 5


# --- the text-level look ------------------------------------------------------------------

@pytest.mark.parametrize(("flag", "ok"), [
    (Flag("release-notes", QUOTE, "forbids it"), True),
    (Flag("release-notes", f"  “{QUOTE.upper()}.”  ", "case, spacing, quotes"), True),
    (Flag("release-notes", "changelog updates", "too short to ground anything"), False),
    (Flag("release-notes", "always bump the major version", "not in the document"), False),
    (Flag("code-review", QUOTE, "not a neighbour shown"), False),
])
def test_a_flag_counts_only_when_it_quotes_the_neighbour_it_names(flag: Flag, ok: bool):
    assert grounded(flag, {"release-notes": RELEASE_DOC}) is ok


def test_flags_are_read_from_a_reply_and_an_unreadable_one_is_an_error():
    reply = ('Sure:\n```json\n{"contradictions": [{"skill": "release-notes", "quote": "q", '
             '"why": "w"}]}\n```')
    assert parse_flags(reply) == [Flag("release-notes", "q", "w")]
    assert parse_flags('{"contradictions": []}') == []
    with pytest.raises(ValueError):
        parse_flags("No contradiction that I can see.")


def _flagging(quote: str = QUOTE, edit: str = RULE) -> ScriptedLLM:
    """An optimizer that proposes ``edit`` (citing every task it is shown) and flags it
    against release-notes, quoting ``quote``."""
    def answer(messages: Sequence[Message], _seed: int) -> str:
        body = messages[-1]["content"]
        if "<mode>contradiction</mode>" in body:
            rows = ([{"skill": "release-notes", "quote": quote, "why": "it forbids them"}]
                    if edit in body else [])
            return json.dumps({"contradictions": rows})
        shown = json.loads(blocks(body).get("minibatch", "[]"))
        return json.dumps({"edits": [{"op": "append", "text": edit,
                                      "tasks": [i["task_id"] for i in shown]}]})
    return ScriptedLLM(answer)


def test_an_ungrounded_flag_is_dropped_with_a_note_and_a_failed_call_is_no_flag():
    notes: list[str] = []
    docs = {"release-notes": RELEASE_DOC}
    edit = Edit(op="append", text=RULE)
    assert read_flags(_flagging("the agent must never sleep"), "code-review", edit, docs, 0,
                      notes) == []
    assert "quotes nothing of what it was shown" in notes[-1]
    assert read_flags(ScriptedLLM("not json"), "code-review", edit, docs, 0, notes) == []
    assert "contradiction check" in notes[-1]


def _check(reader: LLM | None, pool: ThreadPoolExecutor) -> CrossCheck:
    duo = personas.load(DUO)
    val = [t for t in personas.tasks(duo, 0)
           if t.skill == "release-notes" and t.split != Split.TEST.value]
    near = Neighbour("release-notes", RELEASE_DOC, tuple(val))
    return CrossCheck("py-fix", [near], build(duo, 0, "target"), default_judge_for,
                      NightConfig(), pool, reader=reader)


def test_a_flagged_edit_is_held_back_with_the_quote_and_never_replayed():
    duo = personas.load(DUO)
    before = duo.initial_skill()
    after = apply_edit(parse(before), Edit(op="append", text=RULE))[0].text
    with ThreadPoolExecutor(2) as pool:
        check = _check(_flagging(), pool)
        found = check.check(before, after, Edit(op="append", text=RULE))
        assert [(c.other_skill, c.quote, c.n_pairs) for c in found] == [
            ("release-notes", QUOTE, 0)]
        assert not check._drawn  # no replay for a flagged edit
        # The re-check of an entry replays only: the optimizer is never asked. The entry the
        # text look flagged stays (replay finds no harm in it); duo's cross rule, which
        # replay shows lowering release-notes, is withdrawn on that evidence alone.
        silent = ScriptedLLM(lambda _m, _s: pytest.fail("the re-check asked the optimizer"))
        clash = duo.cross[0].text
        both = apply_edit(parse(after), Edit(op="append", text=clash))[0]
        recheck = _check(silent, pool)
        kept, decisions = withdraw(recheck, both, ("release-notes",))
    assert recheck._drawn  # it replayed
    assert [d.edit.anchor for d in decisions] == [clash]
    assert all(d.reason.startswith("withdrawn: lowers release-notes") for d in decisions)
    assert all("contradicts" not in d.reason for d in decisions)
    assert RULE in kept.entries("learned") and clash not in kept.entries("learned")


def test_a_night_rejects_the_flagged_edit_at_the_cross_stage_and_reports_the_quote():
    """duo's cross rule wins py-fix's own gate (it reads as py-fix's house rule); flagged,
    it is rejected at the cross stage with the quote, before any replay."""
    duo = personas.load(DUO)
    clash = duo.cross[0].text
    tasks = [t for t in personas.tasks(duo, 0) if t.skill == "py-fix"]
    val = [t for t in personas.tasks(duo, 0)
           if t.skill == "release-notes" and t.split != Split.TEST.value]

    def night(optimizer: LLM) -> NightResult:
        return run_night(NightInputs(
            tasks=tasks, skill_text=duo.initial_skill(), skill_name="py-fix",
            target=build(duo, 0, "target"), optimizer=optimizer, night_id="n",
            config=NightConfig(steps=1, slow_update=False, score_test=False),
            neighbours=[Neighbour("release-notes", RELEASE_DOC, tuple(val))]))

    unflagged = night(_flagging(edit=clash, quote="the agent must never sleep"))
    assert [c.quote for c in unflagged.contradictions] == [""]  # the replay found it
    assert any("quotes nothing" in n for n in unflagged.notes)
    r = night(_flagging(edit=clash))
    [decision] = [d for d in r.decisions if d.edit.text == clash]
    assert decision.stage == "cross" and not decision.accepted
    assert "contradicts release-notes" in decision.reason and clash not in r.skill_after
    assert r.contradictions[0].quote == QUOTE and r.counts["rejected_cross"] == 1
    assert not r.contradictions[0].own
    assert QUOTE in render([r])
    assert render_json([r])["nights"][0]["contradictions"][0]["quote"] == QUOTE


def test_the_simulated_optimizer_flags_the_cross_rule_and_quotes_the_neighbour():
    maintainer = personas.load("maintainer")
    rule = maintainer.cross[0].text
    docs = {s.name: s.initial_text() for s in maintainer.skills if s.name != "code-review"}
    hits, wrong = 0, 0
    for seed in range(40):
        optimizer = build(maintainer, seed, "optimizer")
        notes: list[str] = []
        flags = read_flags(optimizer, "code-review", Edit(op="append", text=rule), docs, 0,
                           notes)
        hits += any(f.skill == "release-notes" and "changelog" in f.quote.lower()
                    for f in flags)
        wrong += sum(f.skill != "release-notes" for f in flags)
        wrong += len(read_flags(optimizer, "code-review", Edit(op="append", text=NEUTRAL),
                                docs, 0, notes))
    assert 24 <= hits <= 38 and wrong <= 8  # fallible both ways (recall 0.8, false 0.03)


# --- through the real SDK clients ---------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.mark.parametrize("kind", ["anthropic", "openai", "responses"])
def test_the_contradiction_prompt_reaches_the_model_and_its_flags_are_read(
    kind: str, server: FakeLLMServer
) -> None:
    docs = {"release-notes": RELEASE_DOC}
    server.push(Text(json.dumps({"contradictions": [
        {"skill": "release-notes", "quote": QUOTE, "why": "forbids the changelog"}]})))
    notes: list[str] = []
    flags = read_flags(sdk_llm(kind, server), "code-review", Edit(op="append", text=RULE), docs,
                       0, notes)
    assert flags == [Flag("release-notes", QUOTE, "forbids the changelog")] and not notes
    sent = json.dumps(server.model_requests()[-1].body)
    assert "[skillopt-sleep replay]" in sent and "CHANGELOG.md" in sent
    assert "Help me ship releases" in sent
    server.push(Status(500), Status(500))  # both attempts of the retry policy
    assert read_flags(sdk_llm(kind, server), "code-review", Edit(op="append", text=RULE), docs,
                      0, notes) == []
    assert "contradiction check" in notes[-1]
