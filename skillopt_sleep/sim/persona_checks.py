"""What the persona loader refuses: rules that cannot be told apart, a routed persona's
deliverables without triggers or descriptions that read as rules, and a real skill that
already states a rule (``sim/persona.py`` calls ``validate`` on every persona it builds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillopt_sleep.sim.persona_model import Persona


def validate(persona: Persona) -> None:
    """Raise ``ValueError`` naming the first field at fault."""
    _check_keywords(persona)
    if persona.installed:
        from skillopt_sleep.sim.real_skill import stated_rules

        if stated := stated_rules(persona, persona.initial_skill()):
            raise ValueError(f"skill_file already states rules {stated}: the proof would "
                             "measure nothing for them")
    if persona.routed:
        _check_skills(persona)


def _check_keywords(persona: Persona) -> None:
    """Every wording of a rule must be recognised as that rule, and only that rule."""
    every = (*persona.rules, *persona.harmful, *persona.cross)
    for rule in every:
        for said in (rule.text, *rule.paraphrases, *rule.unworded, *rule.vocab):
            if not rule.recognised_in(said):
                raise ValueError(f"rule {rule.id}: wording not recognised: {said!r}")
            others = [r.id for r in every if r is not rule and r.recognised_in(said)]
            if others:
                raise ValueError(f"rule {rule.id}: {said!r} also reads as {others}")
    for text in (*persona.optimizer.get("neutral_texts", ()),
                 *persona.optimizer.get("vocab_neutral_texts", ())):
        hits = [r.id for r in every if r.recognised_in(text)]
        if hits:
            raise ValueError(f"neutral text {text!r} reads as rules {hits}")


def _check_skills(persona: Persona) -> None:
    """A several-skill persona: every deliverable has triggers its topic holds, and no
    description or topic a description may carry reads as a rule (the target reads the
    frontmatter with the rest of the skill)."""
    every = (*persona.rules, *persona.harmful, *persona.cross)
    for did in persona.deliverables:
        sets = persona.triggers(did)
        if not sets:
            raise ValueError(f"deliverable {did}: a routed persona needs triggers on every "
                             "deliverable")
        topic = persona.topic(did).lower()
        if not any(all(k in topic for k in keys) for keys in sets):
            raise ValueError(f"deliverable {did}: topic {topic!r} holds none of its triggers")
    texts = [s.description for s in persona.skills] + [persona.topic(d) for d in
                                                       persona.deliverables]
    for text in texts:
        if hits := [r.id for r in every if r.recognised_in(text)]:
            raise ValueError(f"description text {text!r} reads as rules {hits}")
    for cross in persona.cross:
        if cross.skill not in {s.name for s in persona.skills}:
            raise ValueError(f"cross rule {cross.id}: unknown skill {cross.skill!r}")
        if cross.helps not in {r.id for r in persona.rules}:
            raise ValueError(f"cross rule {cross.id}: helps unknown rule {cross.helps!r}")
