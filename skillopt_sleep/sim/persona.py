"""Simulated developers: the persona file format, and the tasks a persona asks for.

A persona (``personas/<name>.toml``, documented in ``personas/README.md``) describes a
developer's recurring work as *deliverables* (what they ask for, with paraphrased intents)
crossed with *domains* (what it is about, with concrete subjects). Each deliverable×domain
pair is a task family; each subject in it is one task. Hidden house *rules* say what a good
answer must contain; *harmful* rules sound plausible but break answers. The simulator in
``sim/models.py`` plays the target and the optimizer from this description.
"""

from __future__ import annotations

import hashlib
import random
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.judges.rules import validate_checks
from skillopt_sleep.records import JudgeSpec, Split, Task

PERSONA_DIR = Path(str(resources.files("skillopt_sleep.sim").joinpath("personas")))
"""The shipped personas: package data, so a wheel install has them."""


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
    clash: str = ""
    """An effect (same forms as a harmful rule's ``effect``) this rule, stated in a loaded
    skill, has on the tasks of families it does not apply to: a rule one skill needs that
    contradicts another skill loaded beside it."""

    def recognised_in(self, line: str) -> bool:
        low = line.lower()
        return any(all(k in low for k in keys) for keys in self.keywords)

    def applies(self, deliverable: str, domain: str) -> bool:
        return deliverable in self.deliverables or domain in self.domains


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
    skills: dict[str, SkillSpec] = field(default_factory=dict)
    """Skills beyond ``skill``, each with the deliverables routed to it (``[[skills]]``)."""

    @property
    def skill_names(self) -> tuple[str, ...]:
        """Every skill the persona's agent loads: ``skill`` first, then ``[[skills]]``."""
        return (self.skill, *self.skills)

    def skill_of(self, deliverable: str) -> str:
        return str(self.deliverables[deliverable].get("skill") or self.skill)

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(s for subs in self.domains.values() for s in subs)

    def rule(self, rule_id: str) -> Rule:
        for rule in (*self.rules, *self.harmful):
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    def rules_for(self, deliverable: str, domain: str) -> list[Rule]:
        return [r for r in self.rules if r.applies(deliverable, domain)]

    def initial_skill(self, name: str = "") -> str:
        """The text of skill ``name`` (default: ``skill``) before any night."""
        from skillopt_sleep.skilldoc import new_skill

        spec = self.skills.get(name) if name and name != self.skill else None
        skill = spec.name if spec else self.skill
        description = spec.description if spec else self.skill_description
        user_text = spec.user_text if spec else self.user_text
        head = f"---\nname: {skill}\ndescription: {description}\n---\n\n"
        return (
            head + user_text.rstrip("\n") + "\n"
            if user_text
            else new_skill(skill, description)
        )


@dataclass(frozen=True)
class SkillSpec:
    """A further skill of a persona with several (``[[skills]]``)."""

    name: str
    description: str
    user_text: str = ""


def resolve(name_or_path: str) -> Path:
    """A shipped persona's name (``skillopt_sleep/sim/personas/``) or a path to a TOML file."""
    path = Path(name_or_path).expanduser()
    if path.suffix == ".toml" and path.is_file():
        return path
    candidate = PERSONA_DIR / f"{name_or_path}.toml"
    if candidate.is_file():
        return candidate
    known = ", ".join(sorted(available())) or "none found"
    raise ConfigError(f"unknown persona {name_or_path!r} (known: {known}; or give a .toml path)")


def available() -> list[str]:
    return sorted(p.stem for p in PERSONA_DIR.glob("*.toml")) if PERSONA_DIR.is_dir() else []


def load(name_or_path: str) -> Persona:
    path = resolve(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"persona {path}: {exc}") from exc
    try:
        return _build(data, path)
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"persona {path}: bad or missing field: {exc}") from exc


def _rule(data: dict[str, Any]) -> Rule:
    keywords = tuple(tuple(k.lower() for k in keys) for keys in data["keywords"])
    if data.get("check"):
        validate_checks([data["check"]])
    return Rule(
        id=data["id"],
        text=data["text"],
        paraphrases=tuple(data.get("paraphrases", ())),
        keywords=keywords,
        check=dict(data.get("check", {})),
        satisfy=data.get("satisfy", ""),
        violate=data.get("violate", ""),
        deliverables=tuple(data.get("deliverables", ())),
        domains=tuple(data.get("domains", ())),
        effect=data.get("effect", ""),
        correction=data.get("correction", ""),
        clash=data.get("clash", ""),
    )


def _build(data: dict[str, Any], path: Path) -> Persona:
    deliverables = {d["id"]: d for d in data["deliverables"]}
    for d in deliverables.values():
        validate_checks(d.get("checks", [{"op": "no_refusal"}]))
    persona = Persona(
        name=data["name"],
        description=data.get("description", ""),
        skill=data["skill"],
        skill_description=data["skill_description"],
        user_text=data.get("user_text", ""),
        deliverables=deliverables,
        domains={d["id"]: tuple(d["subjects"]) for d in data["domains"]},
        rules=tuple(_rule(r) for r in data["rules"]),
        harmful=tuple(_rule(r) for r in data.get("harmful", ())),
        target={k: float(v) for k, v in data["target"].items()},
        optimizer=dict(data["optimizer"]),
        path=path,
        skills={s["name"]: SkillSpec(s["name"], s["description"], s.get("user_text", ""))
                for s in data.get("skills", ())},
    )
    _check_keywords(persona)
    _check_skills(persona)
    return persona


def _check_skills(persona: Persona) -> None:
    """Every deliverable routes to a known skill; every extra skill has a deliverable."""
    for did in persona.deliverables:
        if persona.skill_of(did) not in persona.skill_names:
            raise ValueError(f"deliverable {did}: unknown skill {persona.skill_of(did)!r}")
    for name in persona.skills:
        if not any(persona.skill_of(d) == name for d in persona.deliverables):
            raise ValueError(f"skill {name}: no deliverable is routed to it")


def _check_keywords(persona: Persona) -> None:
    """Every wording of a rule must be recognised as that rule, and only that rule."""
    for rule in (*persona.rules, *persona.harmful):
        for wording in (rule.text, *rule.paraphrases):
            if not rule.recognised_in(wording):
                raise ValueError(f"rule {rule.id}: wording not recognised: {wording!r}")
            others = [
                r.id
                for r in (*persona.rules, *persona.harmful)
                if r is not rule and r.recognised_in(wording)
            ]
            if others:
                raise ValueError(f"rule {rule.id}: {wording!r} also reads as {others}")
    for text in persona.optimizer.get("neutral_texts", ()):
        hits = [r.id for r in (*persona.rules, *persona.harmful) if r.recognised_in(text)]
        if hits:
            raise ValueError(f"neutral text {text!r} reads as rules {hits}")


# --- tasks -------------------------------------------------------------------------------


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()[:8], "big")


def family_splits(
    families: list[str], seed: int, ratios: tuple[int, int, int] = (2, 1, 7)
) -> dict[str, str]:
    """Assign whole families to splits in the given ratio, in an order set by ``seed``."""
    order = sorted(families, key=lambda f: _digest("split", seed, f))
    total = sum(ratios)
    n_train = max(1, round(len(order) * ratios[0] / total))
    n_val = max(1, round(len(order) * ratios[1] / total))
    result = {}
    for i, fam in enumerate(order):
        split = (
            Split.TRAIN if i < n_train else Split.VALIDATION if i < n_train + n_val else Split.TEST
        )
        result[fam] = split.value
    return result


def tasks(persona: Persona, seed: int, ratios: tuple[int, int, int] = (2, 1, 7)) -> list[Task]:
    """Every task of the persona, with a judge spec and a split; deterministic in ``seed``.
    With several skills, each skill's families are split on their own (each skill's night
    has its own splits and needs its own validation tasks)."""
    families = [f"{persona.name}:{d}:{m}" for d in persona.deliverables for m in persona.domains]
    splits: dict[str, str] = {}
    for name in persona.skill_names:
        own = [f for f in families if persona.skill_of(f.split(":")[1]) == name]
        splits |= family_splits(own, seed, ratios)
    found = []
    for family in families:
        _, deliverable, domain = family.split(":")
        spec = persona.deliverables[deliverable]
        checks = [*spec.get("checks", [{"op": "no_refusal"}])]
        checks += [dict(r.check, why=r.id) for r in persona.rules_for(deliverable, domain)]
        for i, subject in enumerate(persona.domains[domain]):
            rng = random.Random(_digest("intent", seed, family, i))
            intent = rng.choice(spec["intents"]).format(subject=subject)
            found.append(
                Task(
                    id=f"{family}:{i}",
                    family_id=family,
                    intent=intent,
                    judge=JudgeSpec(kind="rules", checks=checks),
                    split=splits[family],
                    project=f"persona:{persona.name}",
                    skill=persona.skill_of(deliverable),
                    meta={"deliverable": deliverable, "domain": domain, "subject": subject},
                )
            )
    return found


def asked_on(persona: Persona, task: Task, night: int) -> bool:
    """Does the developer still ask for ``task`` on night ``night`` (0-based)? A deliverable
    with ``until_night`` is asked for up to that night only: the work moved on."""
    until = persona.deliverables[task.meta["deliverable"]].get("until_night")
    return until is None or night <= int(until)


_SUBJECT_CACHE: dict[Path, re.Pattern[str]] = {}


def subject_in(persona: Persona, line: str) -> str | None:
    """The persona subject a skill line is scoped to, if it names one."""
    pattern = _SUBJECT_CACHE.get(persona.path)
    if pattern is None:
        alternatives = sorted(persona.subjects, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(s.lower()) for s in alternatives))
        _SUBJECT_CACHE[persona.path] = pattern
    match = pattern.search(line.lower())
    return match.group(0) if match else None


def classify(persona: Persona, op: str, text: str, anchor: str = "") -> str:
    """What an edit is, judged with the persona's hidden knowledge (for the proof's counts).

    ``correct``: states a house rule for every subject; ``overfit``: states one for a
    single subject; ``harmful``: states a harmful rule, or deletes/replaces away a correct
    one; ``clash``: states a rule with a ``clash`` (right for its own skill, harmful to the
    others loaded beside it); ``hostile``: would be refused by the firewall; ``neutral``:
    anything else.
    """
    from skillopt_sleep.firewall import scan_text

    if scan_text(text):
        return "hostile"
    removed_good = any(r.recognised_in(anchor) for r in persona.rules) if anchor else False
    if op == "delete":
        return "harmful" if removed_good else "neutral"
    if any(r.recognised_in(text) for r in persona.harmful):
        return "harmful"
    good = any(r.recognised_in(text) for r in persona.rules)
    if removed_good and not good:
        return "harmful"
    if any(r.clash and r.recognised_in(text) for r in persona.rules):
        return "clash"
    if good:
        return "overfit" if subject_in(persona, text) else "correct"
    return "neutral"
