"""The cross check once at the night's end (``night.settle``): every
entry at once first, entry by entry only where that finds a drop; tonight's withdrawn
entries count as rejections, older ones as withdrawals."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillopt_sleep.judges.build import default_judge_for
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.night import settle as settle_module
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import CrossCheck, Neighbour
from skillopt_sleep.night.settle import bare, settle, tonight
from skillopt_sleep.records import Edit, GateDecision, Split
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.skilldoc import apply_edit, parse

DUO = str(Path(__file__).parent / "fixtures" / "personas" / "duo.toml")
CLASH = "Leave the release files untouched in a fix; releases own them."
NEUTRAL = "Prefer small steps that are easy to review."


@pytest.fixture(scope="module")
def duo() -> personas.Persona:
    return personas.load(DUO)


def _with(text: str, *lines: str) -> str:
    doc = parse(text)
    for line in lines:
        doc = apply_edit(doc, Edit(op="append", text=line))[0]
    return doc.text


def _check(p: personas.Persona, ledger: Ledger) -> CrossCheck:
    val = [t for t in personas.tasks(p, 0)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value]
    neighbour = Neighbour("release-notes", p.initial_skill("release-notes"), tuple(val))
    target = MeteredLLM(build(p, 0, "target"), "target", ledger)
    return CrossCheck("py-fix", [neighbour], target, default_judge_for, NightConfig(),
                      ThreadPoolExecutor(2))


def test_bare_drops_every_managed_entry_and_keeps_the_users_words(duo):
    doc = parse(_with(duo.initial_skill(), CLASH, NEUTRAL))
    stripped = bare(doc)
    assert stripped.entries("learned") == () and stripped.entries("slow") == ()
    assert stripped.user_text().strip() == doc.user_text().strip()


def test_settle_withdraws_the_entry_that_lowers_a_neighbour_and_keeps_the_rest(duo):
    ledger = Ledger()
    doc = parse(_with(duo.initial_skill(), CLASH, NEUTRAL))
    after, gone = settle(_check(duo, ledger), doc, ["release-notes"])
    assert [g.edit.anchor for g in gone] == [CLASH]
    assert all(g.accepted and g.stage == "cross" for g in gone)
    assert CLASH not in after.text and NEUTRAL in after.text


def test_settle_replays_nothing_without_entries_or_neighbours_to_check(duo):
    ledger = Ledger()
    check = _check(duo, ledger)
    plain = bare(parse(duo.initial_skill()))  # duo's py-fix arrives with an entry
    assert settle(check, plain, ["release-notes"]) == (plain, [])
    doc = parse(_with(duo.initial_skill(), CLASH))
    assert settle(check, doc, []) == (doc, [])
    assert not ledger.calls


def test_the_joint_look_ends_a_check_no_entry_is_tried_alone(duo, monkeypatch):
    """A harmless entry: the joint comparison finds no drop, so ``withdraw`` (one comparison
    per entry) never runs."""
    tried: list[object] = []
    monkeypatch.setattr(settle_module, "withdraw", lambda *a: tried.append(a) or (a[1], []))
    doc = parse(_with(duo.initial_skill(), NEUTRAL))
    assert settle(_check(duo, Ledger()), doc, ["release-notes"]) == (doc, [])
    assert tried == []


def test_tonight_turns_tonights_withdrawn_entries_into_rejections():
    new = GateDecision(Edit(op="append", text="Say  what changed."), True, "better")
    other = GateDecision(Edit(op="append", text="Something else."), True, "better")
    steps = [[new, other]]
    gone = [GateDecision(Edit(op="delete", anchor=a), True, "withdrawn: lowers b")
            for a in ("Say what changed.", "An older entry.")]
    old, rejected = tonight(steps, gone)
    assert [g.edit.anchor for g in old] == ["An older entry."]
    assert [d.edit.text for d in rejected] == ["Say  what changed."]
    assert steps[0][0].accepted is False and steps[0][0].stage == "cross"
    assert steps[0][0].reason == "withdrawn: lowers b" and steps[0][1] is other


def test_the_looks_at_acceptance_read_and_never_replay(duo):
    """An edit the gate accepts is read beside the neighbours' documents, and its replays
    wait for the night's end: the looks make no target call, whatever the edit says."""
    from skillopt_sleep.night import gate
    from skillopt_sleep.night.demands import OwnLook
    from skillopt_sleep.night.looks import Looks

    ledger = Ledger()
    check = _check(duo, ledger)
    own = OwnLook("py-fix", [], None)  # type: ignore[arg-type]
    verdict = gate.Verdict(True, "better", gate.Comparison(0.2, 0.01, 12, {}, 0.5, 0.7))
    before = duo.initial_skill()
    for line in (CLASH, NEUTRAL):
        held = Looks(own, check).after(verdict, before, _with(before, line),
                                       Edit(op="append", text=line))
        assert held.verdict.accepted and held.stage == "gate"
    assert not ledger.calls
