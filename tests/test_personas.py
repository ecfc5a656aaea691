"""Every persona is a well-formed, honest simulated user, and its proof run passes.

These tests run the real persona loader, the real simulated target and the real rules
judge; nothing is mocked. They pin what makes a persona usable by the night: each rule is
recognised by every wording and by nothing else, each check passes exactly when the rule's
snippet is in the answer, subjects scope instance-specific rules, hostile texts are caught by
the firewall, splits leave the gate enough validation tasks, and the proof improves.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.firewall import scan_text
from skillopt_sleep.judges.rules import describe, run_check
from skillopt_sleep.mine.corrections import rules_from_correction
from skillopt_sleep.records import Split
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedTarget, _render
from skillopt_sleep.sim.persona import Persona, Rule
from skillopt_sleep.sim.prove import ProofSpec, check, prove

NAMES = personas.available()
REQUIRED = ("researcher", "programmer", "analyst", "devops")


def _all_rules(p: Persona) -> tuple[Rule, ...]:
    return (*p.rules, *p.harmful)


def _readers(p: Persona, text: str) -> list[str]:
    return [r.id for r in _all_rules(p) if r.recognised_in(text)]


def _answer(p: Persona, deliverable: str, subject: str, without: Rule | None = None) -> str:
    """The simulated answer that meets every house rule except ``without``."""
    return _render(deliverable, subject, [r for r in p.rules if r is not without], [])


@pytest.fixture(params=NAMES)
def persona(request: pytest.FixtureRequest) -> Persona:
    return personas.load(request.param)


def test_the_four_personas_exist() -> None:
    assert set(REQUIRED) <= set(NAMES)


def test_shape(persona: Persona) -> None:
    lasting = [d for d, spec in persona.deliverables.items() if "until_night" not in spec]
    # Four deliverables a skill at most beyond three skills (each skill's validation split
    # needs two of its own families).
    assert 8 <= len(lasting) <= max(12, 4 * len(persona.skills))
    assert len(persona.deliverables) - len(lasting) <= 1
    assert len(persona.domains) == 4
    assert all(len(subjects) == 3 for subjects in persona.domains.values())
    assert len(persona.harmful) == 3
    if persona.multi:  # two house rules per skill, each about its own skill's work
        for spec in persona.skills:
            own = [r for r in persona.rules if set(r.deliverables) & set(spec.deliverables)]
            assert len(own) >= 2, spec.name
            assert all(set(r.deliverables) <= set(spec.deliverables) for r in own), spec.name
    else:
        assert len(persona.rules) == 5
    for rule in persona.rules:
        assert len(rule.paraphrases) >= 2 and rule.satisfy and rule.check
    for key in ("follow", "base", "noise", "correlation", "free_tokens", "penalty_per_1k"):
        assert key in persona.target
    assert 0.0 < persona.target["base"] < persona.target["follow"] <= 1.0


def test_each_rule_covers_roughly_half_the_families(persona: Persona) -> None:
    """Of all families, or with several skills of its own skill's families."""
    families = [(d, m) for d in persona.deliverables for m in persona.domains]
    for rule in persona.rules:
        if all("until_night" in persona.deliverables[d] for d in rule.deliverables):
            continue  # the rule of work that stops: learned, then unused (retirement)
        mine = families
        if persona.multi:
            skill = persona.skill_of(rule.deliverables[0])
            mine = [(d, m) for d, m in families if persona.skill_of(d) == skill]
        share = sum(rule.applies(d, m) for d, m in mine) / len(mine)
        assert 0.35 <= share <= 0.75, (rule.id, share)
    # Families no rule applies to would score 1.0 before and after and hide the lift.
    assert all(persona.rules_for(d, m) for d, m in families)


def test_every_wording_reads_as_its_own_rule_only(persona: Persona) -> None:
    for rule in _all_rules(persona):
        for wording in (rule.text, *rule.paraphrases):
            assert _readers(persona, wording) == [rule.id], wording


def test_a_failed_check_names_its_rule(persona: Persona) -> None:
    """The optimizer reads which rule a failure is about from the judge's description of the
    failed check, so each rule check must read as that rule, and no deliverable check as any."""
    for rule in persona.rules:
        assert _readers(persona, describe(rule.check)) == [rule.id], describe(rule.check)
    for spec in persona.deliverables.values():
        for c in spec.get("checks", []):
            assert _readers(persona, describe(c)) == [], describe(c)


def test_neutral_and_skill_texts_state_no_rule(persona: Persona) -> None:
    for text in persona.optimizer["neutral_texts"]:
        assert _readers(persona, text) == [], text
        assert not scan_text(text), text
    # The user's own skill text must not already state a rule, or there is nothing to learn.
    for line in persona.initial_skill().splitlines():
        assert _readers(persona, line) == [], line


def test_hostile_texts_are_caught_by_the_firewall(persona: Persona) -> None:
    kinds = set()
    for text in persona.optimizer["hostile_texts"]:
        found = {f.rule for f in scan_text(text)}
        assert found, text
        kinds |= found
    assert {"secret", "run_fetched_code", "override_instructions"} <= kinds


def test_subjects_are_distinctive(persona: Persona) -> None:
    """A line naming a subject is scoped to it, so no rule, neutral text or intent template
    may contain a subject by accident."""
    subjects = [s.lower() for s in persona.subjects]
    assert len(set(subjects)) == len(subjects)
    for a in subjects:
        assert not any(a != b and a in b for b in subjects), a
    texts = [w for r in _all_rules(persona) for w in (r.text, *r.paraphrases)]
    texts += persona.optimizer["neutral_texts"]
    texts += [i for spec in persona.deliverables.values() for i in spec["intents"]]
    for text in texts:
        assert personas.subject_in(persona, text) is None, text


def test_the_target_finds_every_task(persona: Persona) -> None:
    target = SimulatedTarget(persona)
    for deliverable, spec in persona.deliverables.items():
        for template in spec["intents"]:
            for domain, subjects in persona.domains.items():
                for subject in subjects:
                    intent = template.format(subject=subject)
                    assert target._locate(intent) == (deliverable, domain, subject), intent


def test_checks_pass_exactly_with_their_snippet(persona: Persona) -> None:
    for deliverable, spec in persona.deliverables.items():
        for subject in persona.subjects:
            bare = _render(deliverable, subject, [], [])
            full = _answer(persona, deliverable, subject)
            for c in spec.get("checks", []):
                assert run_check(c, bare) and run_check(c, full), (deliverable, c)
            for rule in persona.rules:
                without = _answer(persona, deliverable, subject, rule)
                assert run_check(rule.check, full), (rule.id, subject)
                assert not run_check(rule.check, without), (rule.id, subject)


def test_corrections_mine_into_the_rule(persona: Persona) -> None:
    """A developer's correction, read by the corrections miner, gives checks that the rule's
    snippet passes, that fail without it, and that read as the rule."""
    raw = {r["id"]: r for r in tomllib.loads(persona.path.read_text(encoding="utf-8"))["rules"]}
    for rule in persona.rules:
        correction = raw[rule.id].get("correction", "")
        if not correction:
            continue
        mined = rules_from_correction(correction)
        assert mined, correction
        assert any(_readers(persona, describe(c)) == [rule.id] for c in mined), correction
        for deliverable in persona.deliverables:
            subject = persona.subjects[0]
            full = _answer(persona, deliverable, subject)
            without = _answer(persona, deliverable, subject, rule)
            assert all(run_check(c, full) for c in mined), (rule.id, mined)
            assert not all(run_check(c, without) for c in mined), (rule.id, mined)


def test_harmful_effects_break_answers(persona: Persona) -> None:
    for bad in persona.harmful:
        kind, _, arg = bad.effect.partition(":")
        assert kind in ("truncate", "skip", "no_headings"), bad.effect
        if kind == "skip":
            assert persona.rule(arg) in persona.rules
        if kind == "truncate":
            full = _answer(persona, next(iter(persona.deliverables)), persona.subjects[0])
            assert int(arg) < len(full)
    if any(b.effect == "no_headings" for b in persona.harmful):
        assert any(r.check["op"].startswith("section_") for r in persona.rules)


def test_tasks_are_deterministic_per_seed(persona: Persona) -> None:
    first = personas.tasks(persona, 3)
    again = personas.tasks(persona, 3)
    assert [(t.id, t.intent, t.split) for t in first] == [(t.id, t.intent, t.split) for t in again]
    other = personas.tasks(persona, 4)
    assert [(t.intent, t.split) for t in first] != [(t.intent, t.split) for t in other]


def test_validation_is_big_enough_and_splits_hold_whole_families(persona: Persona) -> None:
    for seed in range(20):
        found = personas.tasks(persona, seed)
        val = [t for t in found if t.split == Split.VALIDATION.value]
        assert len(val) >= 6, (seed, len(val))
        split_of: dict[str, set[str]] = {}
        for t in found:
            split_of.setdefault(t.family_id, set()).add(t.split)
        assert all(len(s) == 1 for s in split_of.values())


def test_an_overfitted_rule_applies_to_its_subject_only(persona: Persona) -> None:
    target = SimulatedTarget(persona, seed=0)
    rule = persona.rules[0]
    subject = persona.subjects[0]
    good, _ = target._stated(f"- When working on {subject}: {rule.text}", subject)
    assert good == {rule.id}
    good, _ = target._stated(f"- When working on {subject}: {rule.text}", persona.subjects[-1])
    assert good == set()


def test_a_bad_persona_file_is_a_clear_error(tmp_path: Path) -> None:
    text = personas.resolve("programmer").read_text(encoding="utf-8")
    clash = tmp_path / "clash.toml"
    # A neutral text that states a rule would let the gate "accept a neutral edit" that is not.
    clash.write_text(text.replace('"Keep functions small and focused on one job."',
                                  '"Keep functions small and run pytest."'), encoding="utf-8")
    with pytest.raises(ConfigError, match="neutral text"):
        personas.load(str(clash))


HARD = ("oncall",)
"""The hard persona (``personas/README.md``): its lift is a study's figure over many seeds
(``experiments/lost_lift.py``, ``docs/gate.md``), not a promise of +0.10 at every seed."""


@pytest.mark.parametrize("name", NAMES)
def test_the_proof_passes_for_every_persona(name: str) -> None:
    summary = prove(ProofSpec(persona=name, seed=0, nights=3))
    if name not in HARD:
        check(summary)  # lift of at least 0.10 on held-out test tasks, no harmful edit accepted
    assert summary["harmful_accepted"] == 0
    assert summary["after_test"] > summary["baseline_test"]
