"""Cross-skill non-regression: an edit for one skill that hurts a skill loaded beside it is
rejected and reported; a harmless one is not held back."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillopt_sleep.judges.build import default_judge_for
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night import cross, gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import CrossCheck, Neighbour, changed, dropped, seen, together
from skillopt_sleep.night.replay import replay_one
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.publish.report import render, render_json
from skillopt_sleep.records import (
    Contradiction,
    Edit,
    GateDecision,
    JudgeSpec,
    Message,
    NightResult,
    Rollout,
    Score,
    Split,
    StepResult,
    Task,
    sha256_text,
)
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.multi import MultiSpec, run_persona
from skillopt_sleep.sim.prove import ProofSpec, prove
from skillopt_sleep.skilldoc import apply_edit, parse

DUO = str(Path(__file__).parent / "fixtures" / "personas" / "duo.toml")
CLASH = "Leave the release files untouched in a fix; releases own them."
NEUTRAL = "Prefer small steps that are easy to review."


@pytest.fixture(scope="module")
def duo() -> personas.Persona:
    return personas.load(DUO)


def _with(text: str, line: str) -> str:
    return apply_edit(parse(text), Edit(op="append", text=line))[0].text


def _check(p: personas.Persona, seed: int = 0) -> CrossCheck:
    val = [t for t in personas.tasks(p, seed)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value]
    neighbour = Neighbour("release-notes", p.initial_skill("release-notes"), tuple(val))
    return CrossCheck("py-fix", [neighbour], build(p, seed, "target"), default_judge_for,
                      NightConfig(), ThreadPoolExecutor(2))


def test_an_edit_that_hurts_a_neighbour_is_found_and_a_harmless_one_is_not(duo):
    check = _check(duo)
    before = duo.initial_skill()
    found = check.check(before, _with(before, CLASH), Edit(op="append", text=CLASH))
    assert [c.other_skill for c in found] == ["release-notes"]
    assert found[0].mean_delta < -0.05 and found[0].p_value < 0.05
    assert found[0].after < found[0].before
    assert check.check(before, _with(before, NEUTRAL), Edit(op="append", text=NEUTRAL)) == []


def test_the_cross_rule_hurts_only_with_both_skills_loaded(duo):
    """The persona's cross rule lands on the other skill's tasks, with both in context."""
    target = build(duo, 0, "target")
    task = next(t for t in personas.tasks(duo, 0) if t.skill == "release-notes")
    b = duo.initial_skill("release-notes")
    a = _with(duo.initial_skill(), CLASH)
    def changelog(skill: str, s: int) -> bool:
        answer = replay_one(task, s, skill, target, default_judge_for, max_tokens=1024,
                            temperature=0.7).response
        return "## Changelog" in answer

    alone = [changelog(b, s) for s in range(12)]
    beside = [changelog(together(a, b), s) for s in range(12)]
    own = [changelog(together(duo.initial_skill(), b), s) for s in range(12)]
    assert sum(alone) >= 9 and sum(own) >= 9 and sum(beside) <= sum(own) - 4


def _rollouts(scores: list[float]) -> list[Rollout]:
    return [Rollout(f"t{i % 6}", i // 6, "h", score=Score(s, s)) for i, s in enumerate(scores)]


def test_dropped_uses_the_gate_test_the_other_way_round():
    cfg, test = NightConfig(), gate.SIGN
    before = _rollouts([1.0] * 24)
    worse = dropped(before, _rollouts([0.0] * 12 + [1.0] * 12), cfg=cfg, test=test)
    assert worse.accepted and worse.comparison.mean_delta == pytest.approx(-0.5)
    assert worse.comparison.candidate == pytest.approx(0.5)
    noisy = dropped(before, _rollouts([0.0] * 2 + [1.0] * 22), cfg=cfg, test=test)
    assert not noisy.accepted


def _night(p: personas.Persona, seed: int, neighbours: bool) -> list[str]:
    """Classified accepted edits of three nights of py-fix (with or without its neighbour),
    and the stages of every decision."""
    tasks = [t for t in personas.tasks(p, seed) if t.skill == "py-fix"]
    val = [t for t in personas.tasks(p, seed)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value]
    near = [Neighbour("release-notes", p.initial_skill("release-notes"), tuple(val))]
    text, kinds, stages = p.initial_skill(), [], []
    for n in range(3):
        r = run_night(NightInputs(
            tasks=tasks, skill_text=text, skill_name="py-fix", target=build(p, seed, "target"),
            optimizer=build(p, seed * 7919 + n, "optimizer"), night_id=f"n{n}",
            config=NightConfig(score_test=False), seed=seed * 100 + n,
            neighbours=near if neighbours else ()))
        text = r.skill_after
        kinds += [personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor)
                  for d in r.accepted]
        stages += [d.stage for d in r.decisions]
        # Every cross rejection is reported as (at least) one contradiction.
        assert len(r.contradictions) >= sum(d.stage == "cross" for d in r.decisions)
    return kinds + [f"stage:{s}" for s in stages]


def test_a_night_with_its_neighbour_refuses_the_clash_it_accepts_alone(duo):
    alone = [k for seed in range(4) for k in _night(duo, seed, neighbours=False)]
    beside = [k for seed in range(4) for k in _night(duo, seed, neighbours=True)]
    assert "cross" in alone
    assert "cross" not in beside and "stage:cross" in beside


def test_multi_skill_run_reports_rejections_and_keeps_the_other_skill(duo):
    on = [run_persona(MultiSpec(DUO, seed=s, nights=3, retire_every=0)) for s in range(3)]
    off = [run_persona(MultiSpec(DUO, seed=s, nights=3, retire_every=0, cross=False))
           for s in range(3)]
    assert sum(r["cross_skill_rejected"] for r in on) >= 1
    assert all(r["contradictions"] >= r["cross_skill_rejected"] for r in on)
    assert sum(r["cross_accepted"] for r in on) == 0 < sum(r["cross_accepted"] for r in off)
    hurt = [r["beside_others"]["release-notes"] for r in off if r["cross_accepted"]]
    assert all(c["dropped"] and c["delta"] < -0.2 for c in hurt)
    # No harm of that size with the check (a single comparison may still read p < 0.05 by
    # chance: three of them are tested here).
    assert all(r["beside_others"]["release-notes"]["delta"] > -0.1 for r in on)


def test_prove_json_counts_cross_skill_rejections(duo):
    summary = prove(ProofSpec(persona=DUO, seed=1, nights=3))
    assert summary["cross_skill_rejected"] >= 1
    assert summary["cross_accepted"] == 0
    assert "retired" in summary


def test_prove_cli_json_has_cross_skill_rejected_and_retired():
    done = subprocess.run([sys.executable, "-m", "skillopt_sleep", "prove", "--persona", DUO,
                           "--json", "--seed", "1"], capture_output=True, text=True, timeout=120)
    data = json.loads(done.stdout)
    assert data["cross_skill_rejected"] >= 1 and data["retired"] == 0
    assert data["cross_accepted"] == 0


def test_report_shows_contradictions_in_html_and_json(duo):
    edit = Edit(op="append", text=CLASH)
    night = NightResult("n1", "py-fix", skill_before=duo.initial_skill(),
                        skill_after=duo.initial_skill())
    night.steps.append(StepResult(0, 4, 1, decisions=[
        GateDecision(edit, False, "hurts release-notes loaded beside it", stage="cross")]))
    night.contradictions.append(Contradiction("py-fix", "release-notes", edit, -0.2, 0.001, 18,
                                              before=0.8, after=0.6))
    html = render([night])
    assert "Contradictions (1)" in html and "release-notes" in html
    assert "Rejected at cross" in html
    data = render_json([night])
    assert data["nights"][0]["contradictions"][0]["other_skill"] == "release-notes"


def _recheck_night(p: personas.Persona, text: str, recheck: tuple[str, ...]) -> NightResult:
    val = [t for t in personas.tasks(p, 0)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value]
    near = [Neighbour("release-notes", p.initial_skill("release-notes"), tuple(val))]
    return run_night(NightInputs(
        tasks=[t for t in personas.tasks(p, 0) if t.skill == "py-fix"], skill_text=text,
        skill_name="py-fix", target=build(p, 0, "target"), optimizer=build(p, 1, "optimizer"),
        night_id="w", config=NightConfig(steps=0, slow_update=False, score_test=False),
        neighbours=near, recheck=recheck))


def test_an_entry_that_now_hurts_a_changed_neighbour_is_withdrawn_and_reported(duo):
    text = _with(_with(duo.initial_skill(), CLASH), NEUTRAL)
    kept = _recheck_night(duo, text, recheck=())
    assert CLASH in kept.skill_after and not kept.withdrawn
    r = _recheck_night(duo, text, recheck=("release-notes",))
    assert [d.edit.anchor for d in r.withdrawn] == [CLASH]
    assert CLASH not in r.skill_after and NEUTRAL in r.skill_after
    assert [c.other_skill for c in r.contradictions] == ["release-notes"]
    assert r.counts["withdrawn"] == 1 and r.neighbours_seen.keys() == {"release-notes", r.skill}
    assert "Withdrawn from this skill (1)" in render([r])


def test_a_neighbour_change_is_what_triggers_the_recheck_against_that_neighbour():
    a, c = Neighbour("b", "v1", ()), Neighbour("c", "w1", ())
    assert changed(None, [a]) == ()  # the first night: nothing to re-check
    assert changed(seen([a, c]), [a, c]) == ()
    assert changed(seen([a, c]), [Neighbour("b", "v2", ()), c]) == ("b",)
    assert changed(seen([a]), [a, c]) == ("c",)  # a new neighbour
    # The skill's document is not what its last night left (a rollback, a hand edit):
    # every neighbour, since its entries were checked against other versions.
    assert changed(seen([a, c], "s", "mine v1"), [a, c], "s", "mine v1") == ()
    assert changed(seen([a, c], "s", "mine v1"), [a, c], "s", "mine v2") == ("b", "c")


def test_a_night_records_the_document_it_left_for_the_next_nights_comparison(duo):
    text = _with(duo.initial_skill(), NEUTRAL)
    r = _recheck_night(duo, text, recheck=())
    assert r.neighbours_seen["py-fix"] == sha256_text(r.skill_after)[:16]
    assert changed(r.neighbours_seen, [], "py-fix", r.skill_after) == ()


def test_a_drop_in_the_grey_zone_earns_a_look_with_more_samples(duo, monkeypatch):
    """Two tasks sampled 3 times each (past the screen's one sample each): the 6 pairs show
    a drop that is not significant (p = 0.125, the grey zone); the grey-zone look's 18 pairs
    show it."""
    val = [t for t in personas.tasks(duo, 0)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value][:2]
    neighbour = Neighbour("release-notes", duo.initial_skill("release-notes"), tuple(val))

    def found(extend: int) -> list[Contradiction]:
        monkeypatch.setattr(cross, "EXTEND", extend)
        check = CrossCheck("py-fix", [neighbour], build(duo, 0, "target"), default_judge_for,
                           NightConfig(), ThreadPoolExecutor(2))
        before = duo.initial_skill()
        return check.check(before, _with(before, CLASH), Edit(op="append", text=CLASH))

    extend = cross.EXTEND
    assert found(1) == []  # no grey-zone look: the drop is not significant
    got = found(extend)
    assert [c.other_skill for c in got] == ["release-notes"] and got[0].n_pairs == 6 * extend



def test_the_screen_ends_a_check_the_neighbour_does_not_answer_worse_on():
    """One sample of each task first: an edit the neighbour answers the same with stops
    there (one replay a task per side); the clash goes on to ``val_repeats`` samples and is
    found."""
    judge = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "## Changelog"}])
    tasks = tuple(Task(id=f"r{i}", family_id=f"f{i}", intent=f"release {i}", judge=judge,
                       split="validation", skill="release-notes") for i in range(8))
    target = ScriptedLLM(lambda m, _s: "Notes." if CLASH in m[0]["content"]
                         else "Notes.\n## Changelog\n- fixed")
    check = CrossCheck("py-fix", [Neighbour("release-notes", "Write release notes.\n", tasks)],
                       target, default_judge_for, NightConfig(), ThreadPoolExecutor(2))
    before = "Fix bugs.\n"
    assert check.check(before, _with(before, NEUTRAL), Edit(op="append", text=NEUTRAL)) == []
    assert len(target.calls) == 2 * len(tasks) * cross.SCREEN
    found = check.check(before, _with(before, CLASH), Edit(op="append", text=CLASH))
    assert [c.n_pairs for c in found] == [len(tasks) * NightConfig().val_repeats]
    assert cross.leans_worse([-1.0, 0.0, -0.5, 1.0]) and not cross.leans_worse([-1.0, 1.0, 0.0])


def test_a_look_that_stops_leaning_worse_ends_the_check_before_the_test():
    """The screens go one sample at a time: the first sample leans worse (task r0 loses its
    changelog with the edit), the second evens it out (r1 loses it without the edit), so the
    check ends at two samples a task, with no drop and no third sample drawn."""
    judge = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "## Changelog"}])
    tasks = tuple(Task(id=f"r{i}", family_id=f"f{i}", intent=f"release {i}", judge=judge,
                       split="validation", skill="release-notes") for i in range(8))
    good, bad = "Notes.\n## Changelog\n- fixed", "Notes."

    def reply(m: Sequence[Message], sample: int) -> str:
        task, edited = m[-1]["content"], NEUTRAL in m[0]["content"]
        lost = (edited and sample == 0 and "release 0" in task) or (
            not edited and sample == 1 and "release 1" in task)
        return bad if lost else good

    target = ScriptedLLM(reply)
    check = CrossCheck("py-fix", [Neighbour("release-notes", "Write release notes.\n", tasks)],
                       target, default_judge_for, NightConfig(), ThreadPoolExecutor(2))
    before = "Fix bugs.\n"
    assert check.check(before, _with(before, NEUTRAL), Edit(op="append", text=NEUTRAL)) == []
    assert len(target.calls) == 2 * len(tasks) * 2 < 2 * len(tasks) * NightConfig().val_repeats
    assert cross.screens(3) == [1, 2] and cross.screens(1) == []
    # What the plan counts: the screens' samples, and the typical share past each.
    assert 1 < cross.typical_samples(3) < 3 and cross.typical_samples(1) == cross.SCREEN


def test_recheck_names_neighbours_and_a_flag_is_a_clear_error(duo):
    with pytest.raises(TypeError, match="names of the neighbours"):
        _recheck_night(duo, duo.initial_skill(), recheck=True)  # type: ignore[arg-type]
