"""A persona with several skills: routing by description, skills loaded together, the cross
rule, and the loader's checks. Real loader, real simulator, real rules judge; no mocks."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.judges.rules import run_check
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.records import Split
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import routing
from skillopt_sleep.sim.models import SimulatedOptimizer, SimulatedTarget
from skillopt_sleep.sim.persona import Persona


@pytest.fixture(scope="module")
def maintainer() -> Persona:
    return personas.load("maintainer")


def _route_prompt(cards: list[tuple[str, str]], intent: str) -> str:
    rows = [{"name": n, "description": d} for n, d in cards]
    return f"<installed_skills>\n{json.dumps(rows)}\n</installed_skills>\n<task>\n{intent}\n</task>"


def _cards(p: Persona, **override: str) -> list[tuple[str, str]]:
    return [(s.name, override.get(s.name.replace("-", "_"), s.description)) for s in p.skills]


def _picks(p: Persona, cards: list[tuple[str, str]], skill: str) -> Counter[str]:
    target = SimulatedTarget(p, seed=0)
    found: Counter[str] = Counter()
    for task in personas.tasks(p, 0):
        if task.skill == skill:
            found[routing.route(p, _route_prompt(cards, task.intent), target._locate, 0, 0)] += 1
    return found


def test_three_skills_each_with_its_own_tasks_and_validation(maintainer: Persona) -> None:
    assert [s.name for s in maintainer.skills] == ["code-review", "release-notes", "test-writer"]
    assert maintainer.multi and maintainer.skill == "code-review"
    for seed in range(20):
        found = personas.tasks(maintainer, seed)
        for spec in maintainer.skills:
            own = [t for t in found if t.skill == spec.name]
            assert {t.meta["deliverable"] for t in own} == set(spec.deliverables)
            val = [t for t in own if t.split == Split.VALIDATION.value]
            assert len(val) >= 6, (seed, spec.name, len(val))  # a night never abstains


def test_one_skill_personas_keep_one_skill() -> None:
    p = personas.load("researcher")
    assert not p.multi and [s.name for s in p.skills] == [p.skill]
    assert {t.skill for t in personas.tasks(p, 0)} == {p.skill}


def test_the_under_described_skill_is_never_picked_until_its_description_names_the_work(
    maintainer: Persona,
) -> None:
    start = _picks(maintainer, _cards(maintainer), "release-notes")
    total = sum(start.values())
    assert start["release-notes"] <= 0.1 * total and start["none"] >= 0.8 * total
    for other in ("code-review", "test-writer"):
        picks = _picks(maintainer, _cards(maintainer), other)
        assert picks[other] >= 0.9 * sum(picks.values()), (other, picks)
    named = "Housekeeping. Use it for changelog updates, release notes, version bumps and " \
            "upgrade guides."
    after = _picks(maintainer, _cards(maintainer, release_notes=named), "release-notes")
    assert after["release-notes"] >= 0.9 * total


def test_a_broad_description_steals_other_skills_tasks(maintainer: Persona) -> None:
    broad = "Use it for changelog updates, code reviews of pull requests and unit tests."
    picks = _picks(maintainer, _cards(maintainer, release_notes=broad), "code-review")
    review = [t for t in personas.tasks(maintainer, 0)
              if t.skill == "code-review" and t.meta["deliverable"] == "review"]
    # About half of the review tasks (a tie with code-review's own description) go astray.
    assert 0.2 * len(review) <= picks["release-notes"] <= 0.8 * len(review)


def test_routing_draws_are_paired_across_descriptions(maintainer: Persona) -> None:
    """The noise of a routing answer depends on the task and sample, not the descriptions,
    so comparing two descriptions compares paired answers."""
    target = SimulatedTarget(maintainer, seed=3)
    task = next(t for t in personas.tasks(maintainer, 0) if t.skill == "test-writer")
    a = _route_prompt(_cards(maintainer), task.intent)
    b = _route_prompt(_cards(maintainer, release_notes="Release notes."), task.intent)
    answers = [(routing.route(maintainer, a, target._locate, 3, s),
                routing.route(maintainer, b, target._locate, 3, s)) for s in range(400)]
    assert all(x == y for x, y in answers)
    assert len({x for x, _ in answers}) > 1  # the noise is there, shared by both


def _score(p: Persona, skill_text: str, deliverable: str) -> list[bool]:
    """Whether each of the deliverable's tasks' answers passes all its checks."""
    target = SimulatedTarget(p, seed=0)
    passed = []
    for task in personas.tasks(p, 0):
        if task.meta["deliverable"] != deliverable:
            continue
        for sample in range(4):
            answer = target.complete(replay_messages(skill_text, task), seed=sample).text
            passed.append(all(run_check(c, answer) for c in task.judge.checks))
    return passed


def _with(p: Persona, skill: str, *lines: str) -> str:
    return p.initial_skill(skill) + "\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def test_the_cross_rule_helps_its_skill_and_hurts_another_loaded_beside_it(
    maintainer: Persona,
) -> None:
    cross = maintainer.cross[0]
    assert cross.skill == "code-review" and cross.helps == "files-touched"
    plain = _with(maintainer, "code-review")
    crossed = _with(maintainer, "code-review", cross.text)
    assert sum(_score(maintainer, crossed, "refactor-plan")) > sum(
        _score(maintainer, plain, "refactor-plan"))
    notes = _with(maintainer, "release-notes", maintainer.rule("changelog-entry").text)
    alone = sum(_score(maintainer, notes, "changelog"))
    # Loaded together: two <skill> blocks in one system prompt.
    together = notes + "\n</skill>\n<skill>\n" + crossed
    beside_plain = notes + "\n</skill>\n<skill>\n" + plain
    assert sum(_score(maintainer, together, "changelog")) < 0.5 * alone
    assert sum(_score(maintainer, beside_plain, "changelog")) >= 0.8 * alone


def test_the_optimizer_proposes_the_cross_rule_for_its_own_skill_only(
    maintainer: Persona,
) -> None:
    opt = SimulatedOptimizer(maintainer, seed=0)
    failing = {"files-touched": ["t1"]}
    rng = random.Random(0)
    found = [opt._one(rng, failing, [{"task_id": "t1"}], [], "code-review") for _ in range(200)]
    texts = [e["text"] for e in found if e]
    assert any(maintainer.cross[0].recognised_in(t) for t in texts)
    rng = random.Random(0)
    other = [opt._one(rng, failing, [{"task_id": "t1"}], [], "release-notes") for _ in range(200)]
    assert not any(maintainer.cross[0].recognised_in(e["text"]) for e in other if e)


def test_description_proposals_name_the_skills_work(maintainer: Persona) -> None:
    target = SimulatedTarget(maintainer, seed=0)
    missed = [{"task_id": t.id, "intent": t.intent} for t in personas.tasks(maintainer, 0)
              if t.skill == "release-notes"][:4]
    prompt = (f"<mode>description</mode>\n<skill>\n{maintainer.initial_skill('release-notes')}"
              f"\n</skill>\n<missed>\n{json.dumps(missed)}\n</missed>")
    seen: set[str] = set()
    for seed in range(30):
        seen.update(routing.propose(maintainer, prompt, target._locate, random.Random(seed)))
    full = [d for d in seen if all(maintainer.topic(x) in d for x in
                                   maintainer.skill_spec("release-notes").deliverables)]
    assert full, seen
    assert any("unit tests" in d or "security audits" in d for d in seen)  # a broad one
    assert all(d.startswith("Housekeeping") or d in maintainer.optimizer["neutral_descriptions"]
               for d in seen)


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = personas.resolve("maintainer").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "message"), [
    ('deliverables = ["unit-tests", "test-plan", "flaky-test", "fixtures", "py2-shims"]',
     'deliverables = ["unit-tests", "test-plan", "flaky-test", "fixtures"]', "exactly one skill"),
    ('helps = "files-touched"', 'helps = "nothing"', "helps unknown rule"),
    ('topic = "test fixtures"', 'topic = "mocks"', "holds none"),
    ('description = "Housekeeping helper for the maintainers of this project."',
     'description = "Housekeeping: a Changelog entry per change."', "reads as rules"),
])
def test_a_bad_several_skill_persona_is_a_clear_error(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        personas.load(str(_broken(tmp_path, old, new)))


# --- the proof of a several-skill persona ---------------------------------------------------

TRIGGER_KEYS = {"trigger_skill", "trigger_recall_before", "trigger_recall_after",
                "false_trigger_before", "false_trigger_after", "triggers", "skill_tests",
                "descriptions_proposed", "descriptions_accepted", "failed_picks",
                "figure_calls"}


def test_the_proof_trains_every_skill_and_reports_trigger_rates() -> None:
    from skillopt_sleep.sim.prove import ProofSpec, prove

    # A seed whose code-review optimizer proposes the cross rule.
    s = prove(ProofSpec(persona="maintainer", seed=2))
    assert set(s) >= TRIGGER_KEYS
    assert s["trigger_skill"] == "release-notes"
    assert s["trigger_recall_before"] <= 0.1 and s["trigger_recall_after"] >= 0.8
    assert s["false_trigger_after"] <= 0.1
    notes = s["triggers"]["release-notes"]
    assert notes["description_before"] != notes["description_after"]
    for other in ("code-review", "test-writer"):  # already well described: left alone
        assert s["triggers"][other]["description_before"] == \
            s["triggers"][other]["description_after"]
    for skill, scores in s["skill_tests"].items():
        assert scores["after_test"] > scores["baseline_test"], skill
    assert s["descriptions_proposed"] > s["descriptions_accepted"] >= 1
    # The cross rule is among the edit kinds (as for any persona), and the check refuses it.
    assert s["cross_proposed"] >= 1 and s["cross_accepted"] == 0


SHIMS = str(Path(__file__).parent / "fixtures" / "personas" / "maintainer_shims.toml")


def test_a_skill_whose_validation_shows_one_kind_of_work_still_gets_a_full_description(
) -> None:
    """Seed 10 of the variant with a fifth test-writer deliverable: release-notes'
    validation families are both upgrade guides, so after "release notes and upgrade
    guides" is accepted every fuller description ties on them; it grows by the skill's own
    words instead of staying at a test recall of 0.24."""
    from skillopt_sleep.sim.prove import ProofSpec, prove

    shims = personas.load(SHIMS)
    val = {t.meta["deliverable"] for t in personas.tasks(shims, 10)
           if t.skill == "release-notes" and t.split == Split.VALIDATION.value}
    assert val == {"upgrade-guide"}
    s = prove(ProofSpec(persona=SHIMS, seed=10))
    assert s["trigger_recall_after"] >= 0.8 and s["false_trigger_after"] <= 0.1
    assert s["broad_descriptions_accepted"] == 0


def test_without_the_gate_broad_descriptions_steal_other_skills_tasks() -> None:
    from skillopt_sleep.sim.prove import ProofSpec, prove

    # Most seeds show it (skills_study --no-gate: 17 of 20 miss the targets); three seeds
    # so that one night's course going another way does not hide it.
    worst = max(prove(ProofSpec(persona="maintainer", seed=seed, gate=False))
                ["false_trigger_after"] for seed in (0, 1, 2))
    assert worst > 0.2


def test_a_one_skill_proof_has_no_trigger_figures() -> None:
    from skillopt_sleep.sim.prove import ProofSpec, prove

    s = prove(ProofSpec(persona="researcher", seed=0, nights=1))
    assert not TRIGGER_KEYS & set(s)


def test_the_description_night_keeps_the_name_and_the_users_text(maintainer: Persona) -> None:
    from skillopt_sleep.sim.prove import ProofSpec, _simulated_models, run_nights
    from skillopt_sleep.skilldoc import parse

    results = run_nights(maintainer, ProofSpec(persona="maintainer", seed=0, nights=1), True,
                         _simulated_models(maintainer), score_test=False)
    notes = next(r for r in results if r.skill == "release-notes")
    before, after = parse(notes.skill_before), parse(notes.skill_after)
    assert after.name == before.name == "release-notes"
    assert after.description != before.description
    assert after.user_text().split("\n---\n", 1)[1].startswith(
        before.text.split("\n---\n", 1)[1].rstrip("\n"))
    assert notes.trigger["recall_after"] > notes.trigger["recall_before"]
    assert notes.trigger["split"] == "validation"  # the proof scores the test split itself


def test_the_full_proof_refuses_a_several_skill_persona_clearly() -> None:
    from skillopt_sleep.sim.prove_full import FullSpec, prove_full

    with pytest.raises(ConfigError, match="several skills") as info:
        prove_full(FullSpec(persona="maintainer"))
    # It says why, and what measures such a persona instead.
    assert "installs no skill" in str(info.value)
    assert "`prove --persona maintainer` without --full" in str(info.value)
