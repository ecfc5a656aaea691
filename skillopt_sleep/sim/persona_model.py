"""A persona's parts as records: its rules, its skills, the persona itself.

Apart from ``sim.persona`` (which reads a persona file and builds its tasks) so the modules
that check or reword a persona (``persona_checks``, ``wording``, ``real_skill``) can name
these types without importing the loader that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CrossRule", "Persona", "Rule", "SkillSpec"]


@dataclass(frozen=True)
class Rule:
    """A house rule a good skill states. Recognised by any of its keyword sets."""

    id: str
    text: str
    paraphrases: tuple[str, ...]
    keywords: tuple[tuple[str, ...], ...]
    check: dict[str, Any] = field(default_factory=dict)
    satisfy: str = ""
    violate: str = ""
    deliverables: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    effect: str = ""
    correction: str = ""
    unworded: tuple[str, ...] = ()
    """Wordings sharing no checked word (``sim.wording``): read as this rule by identity."""
    vocab: tuple[str, ...] = ()
    """A harmful rule's wordings that reuse checked words (``sim.wording``)."""
    wordings: tuple[str, ...] = ()
    masks: tuple[str, ...] = ()
    """Filled at load (``wording.with_identities``): normalised wordings read as this rule
    whatever their words, and those read as something else whatever their words."""

    def recognised_in(self, line: str) -> bool:
        low = " ".join(line.lower().split())
        if any(w in low for w in self.wordings):
            return True
        for mask in self.masks:
            low = low.replace(mask, " ")
        return any(all(k in low for k in keys) for keys in self.keywords)

    def applies(self, deliverable: str, domain: str) -> bool:
        return deliverable in self.deliverables or domain in self.domains


@dataclass(frozen=True)
class CrossRule(Rule):
    """An edit one skill's optimizer proposes that helps that skill and hurts another.

    Stated in a loaded skill, it counts as stating the house rule ``helps`` (so the
    proposing skill's own gate sees a gain) and applies ``effect`` to every task answered
    while it is loaded (so another skill's tasks lose when both are loaded together)."""

    skill: str = ""
    helps: str = ""


@dataclass(frozen=True)
class SkillSpec:
    """One of the persona's skills: its starting document and the deliverables routed to it."""

    name: str
    description: str
    user_text: str
    deliverables: tuple[str, ...]
    document: str = ""
    """The real document the skill starts as, byte for byte (a persona's ``skill_file``)."""

    def initial_text(self) -> str:
        from skillopt_sleep.skilldoc import new_skill, yaml_scalar

        if self.document:
            return self.document
        head = f"---\nname: {self.name}\ndescription: {yaml_scalar(self.description)}\n---\n\n"
        return (
            head + self.user_text.rstrip("\n") + "\n"
            if self.user_text
            else new_skill(self.name, self.description)
        )


@dataclass(frozen=True)
class Persona:
    name: str
    description: str
    skill: str
    skill_description: str
    user_text: str
    deliverables: dict[str, dict[str, Any]]
    domains: dict[str, tuple[str, ...]]
    rules: tuple[Rule, ...]
    harmful: tuple[Rule, ...]
    target: dict[str, float]
    optimizer: dict[str, Any]
    path: Path
    skills: tuple[SkillSpec, ...] = ()
    """Every skill; a persona without ``[[skills]]`` has one, built from ``skill``."""
    cross: tuple[CrossRule, ...] = ()

    @property
    def multi(self) -> bool:
        """Whether tasks are routed to several skills (a ``[[skills]]`` persona)."""
        return len(self.skills) > 1

    @property
    def routed(self) -> bool:
        """Whether the target routes tasks by description (the trigger check runs): a
        several-skill persona, or one skill whose deliverables have ``triggers``."""
        return self.multi or any(d.get("triggers") for d in self.deliverables.values())

    @property
    def installed(self) -> bool:
        """Whether the skill exists before any night (a real document, ``skill_file``): its
        sessions load it, and the full proof installs it in the skill roots."""
        return any(s.document for s in self.skills)

    def skill_of(self, deliverable: str) -> str:
        """The skill a deliverable's tasks are routed to."""
        return next(s.name for s in self.skills if deliverable in s.deliverables)

    def skill_spec(self, name: str) -> SkillSpec:
        for spec in self.skills:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def triggers(self, deliverable: str) -> tuple[tuple[str, ...], ...]:
        """Keyword sets a description must hold (all words of one set) to match the
        deliverable's tasks; lower-cased."""
        raw = self.deliverables[deliverable].get("triggers", ())
        return tuple(tuple(k.lower() for k in keys) for keys in raw)

    def topic(self, deliverable: str) -> str:
        """How a description names the deliverable (it holds one of its trigger sets)."""
        spec = self.deliverables[deliverable]
        sets = self.triggers(deliverable)
        return str(spec.get("topic") or (" ".join(sets[0]) if sets else deliverable))

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(s for subs in self.domains.values() for s in subs)

    def rule(self, rule_id: str) -> Rule:
        for rule in (*self.rules, *self.harmful, *self.cross):
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    def rules_for(self, deliverable: str, domain: str) -> list[Rule]:
        return [r for r in self.rules if r.applies(deliverable, domain)]

    def initial_skill(self, name: str | None = None) -> str:
        """The starting document of skill ``name`` (default: the first skill)."""
        return self.skill_spec(name or self.skill).initial_text()
