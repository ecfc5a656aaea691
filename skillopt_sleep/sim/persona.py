"""Simulated developers: the persona file format, and the tasks a persona asks for.

A persona (``personas/<name>.toml``, documented in ``personas/README.md``) describes a
developer's recurring work as *deliverables* (what they ask for, with paraphrased intents)
crossed with *domains* (what it is about, with concrete subjects). Each deliverable×domain
pair is a task family; each subject in it is one task. Hidden house *rules* say what a good
answer must contain; *harmful* rules sound plausible but break answers. The simulator in
``sim/models.py`` plays the target and the optimizer from this description.

A persona with several skills (``[[skills]]``) routes each deliverable to one skill; the
skills' descriptions decide, by the deliverables' ``triggers``, which skill the simulated
target picks for a task (``sim/routing.py``), and ``[[cross]]`` rules model an edit that
helps one skill but hurts another when both are loaded together.
"""

from __future__ import annotations

import hashlib
import random
import re
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_sleep.config import parse_toml
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.judges.rules import validate_checks
from skillopt_sleep.records import JudgeSpec, Split, Task
from skillopt_sleep.sim import wording
from skillopt_sleep.sim.persona_checks import validate
from skillopt_sleep.sim.persona_model import CrossRule, Persona, Rule, SkillSpec

PERSONA_DIR = Path(str(resources.files("skillopt_sleep.sim").joinpath("personas")))
"""The shipped personas: package data, so a wheel install has them."""


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
        unworded=wording.strings(data, "unworded"),
        vocab=wording.strings(data, "vocab"),
    )


def _cross(data: dict[str, Any]) -> CrossRule:
    base = _rule(data)
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    return CrossRule(**fields, skill=data["skill"], helps=data["helps"])


def _skills(data: dict[str, Any], deliverables: dict[str, dict[str, Any]],
            path: Path) -> tuple[SkillSpec, ...]:
    """``[[skills]]``, or the one skill of the top-level ``skill`` fields (with
    ``skill_file``, a real document beside the persona, read byte for byte)."""
    if "skill_file" in data:
        from skillopt_sleep.sim.real_skill import read_document

        document, description = read_document(path.parent / data["skill_file"])
        return (SkillSpec(data["skill"], description, "", tuple(deliverables), document),)
    if "skills" not in data:
        return (SkillSpec(data["skill"], data["skill_description"], data.get("user_text", ""),
                          tuple(deliverables)),)
    found = tuple(SkillSpec(s["name"], s["description"], s.get("user_text", ""),
                            tuple(s["deliverables"])) for s in data["skills"])
    routed = [d for s in found for d in s.deliverables]
    if sorted(routed) != sorted(deliverables):
        raise ValueError("[[skills]] must route every deliverable to exactly one skill "
                         f"(routed: {sorted(routed)}; deliverables: {sorted(deliverables)})")
    return found


def _build(data: dict[str, Any], path: Path) -> Persona:
    deliverables = {d["id"]: d for d in data["deliverables"]}
    for d in deliverables.values():
        validate_checks(d.get("checks", [{"op": "no_refusal"}]))
    skills = _skills(data, deliverables, path)
    persona = Persona(
        name=data["name"],
        description=data.get("description", ""),
        skill=skills[0].name,
        skill_description=skills[0].description,
        user_text=skills[0].user_text,
        deliverables=deliverables,
        domains={d["id"]: tuple(d["subjects"]) for d in data["domains"]},
        rules=tuple(_rule(r) for r in data["rules"]),
        harmful=tuple(_rule(r) for r in data.get("harmful", ())),
        target={k: float(v) for k, v in data["target"].items()},
        optimizer=dict(data["optimizer"]),
        path=path,
        skills=skills,
        cross=tuple(_cross(r) for r in data.get("cross", ())),
    )
    persona = wording.with_identities(persona)
    wording.check(persona)
    validate(persona)
    return persona


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

    Each skill's families are split on their own, so every skill's night has validation
    tasks (a persona with one skill splits all its families at once, as it always did)."""
    families = [f"{persona.name}:{d}:{m}" for d in persona.deliverables for m in persona.domains]
    splits: dict[str, str] = {}
    for owner in persona.skills:
        own = [f for f in families if f.split(":")[1] in owner.deliverables]
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
    one; ``cross``: states a cross rule (helps its skill, hurts another loaded beside it);
    ``hostile``: would be refused by the firewall; ``neutral``: anything else.
    """
    from skillopt_sleep.firewall import scan_text

    if scan_text(text):
        return "hostile"
    removed_good = any(r.recognised_in(anchor) for r in persona.rules) if anchor else False
    if op == "delete":
        return "harmful" if removed_good else "neutral"
    if any(r.recognised_in(text) for r in persona.harmful):
        return "harmful"
    if any(r.recognised_in(text) for r in persona.cross):
        return "cross"
    good = any(r.recognised_in(text) for r in persona.rules)
    if removed_good and not good:
        return "harmful"
    if good:
        return "overfit" if subject_in(persona, text) else "correct"
    return "neutral"


def asked_on(persona: Persona, task: Task, night: int) -> bool:
    """Does the developer still ask for ``task`` on night ``night`` (0-based)? A deliverable
    with ``until_night`` is asked for up to that night only: the work moved on."""
    until = persona.deliverables[task.meta["deliverable"]].get("until_night")
    return until is None or night <= int(until)
