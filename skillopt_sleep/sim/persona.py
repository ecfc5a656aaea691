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
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_sleep.config import parse_toml
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

    def initial_skill(self) -> str:
        from skillopt_sleep.skilldoc import new_skill

        head = f"---\nname: {self.skill}\ndescription: {self.skill_description}\n---\n\n"
        return (
            head + self.user_text.rstrip("\n") + "\n"
            if self.user_text
            else new_skill(self.skill, self.skill_description)
        )


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
        data = parse_toml(path, "persona")
    except FileNotFoundError as exc:
        raise ConfigError(f"persona {path}: no such file") from exc
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
    )
    _check_keywords(persona)
    return persona


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
    """Every task of the persona, with a judge spec and a split; deterministic in ``seed``."""
    families = [f"{persona.name}:{d}:{m}" for d in persona.deliverables for m in persona.domains]
    splits = family_splits(families, seed, ratios)
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
                    skill=persona.skill,
                    meta={"deliverable": deliverable, "domain": domain, "subject": subject},
                )
            )
    return found


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
    one; ``hostile``: would be refused by the firewall; ``neutral``: anything else.
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
    if good:
        return "overfit" if subject_in(persona, text) else "correct"
    return "neutral"
