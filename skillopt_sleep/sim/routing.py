"""Which skill the simulated target loads, and how the simulated optimizer rewrites a
description: the persona side of the trigger check (``night/trigger.py``).

*Routing.* Shown the installed skills' descriptions and a task, the target finds the task's
deliverable and picks the skill whose description holds the most of that deliverable's
``triggers`` keyword sets (all words of a set, lower-cased substrings); a tie is broken by
a seeded draw (a description that also names another skill's work steals about half of its
tasks), no match is ``none``. With probability ``route_noise`` it answers a random installed
skill or ``none`` instead. The draws depend on the task, the sample and the seed, never on
the descriptions, so two descriptions are compared on paired answers.

*Description proposals.* The optimizer reads the skill's own text and the tasks it missed,
and proposes, with the persona's ``describe_*`` weights: every topic both name (``full``),
only the missed tasks' topics (``missed``), the full one plus several other skills' topics
(``broad``: it steals their tasks), or a rewording that names no topic (``neutral``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable

import yaml

from skillopt_sleep.sim.persona import Persona

Locate = Callable[[str], "tuple[str, str, str] | None"]

_TAG = re.compile(r"<(?P<tag>installed_skills|task|skill|missed|false_triggers|rejected)>\n?"
                  r"(?P<body>.*?)\n?</(?P=tag)>", re.S)
_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_DESCRIBE_KINDS = ("full", "missed", "broad", "neutral")
_DEFAULT_WEIGHTS = {"full": 0.45, "missed": 0.2, "broad": 0.2, "neutral": 0.15}


def _draw(*parts: object) -> float:
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def parts(prompt: str) -> dict[str, str]:
    return {m.group("tag"): m.group("body") for m in _TAG.finditer(prompt)}


def installed(block: str) -> list[tuple[str, str]]:
    """``(name, description)`` of each skill in an ``<installed_skills>`` block."""
    try:
        rows = json.loads(block)
    except json.JSONDecodeError:
        return []
    if not isinstance(rows, list):
        return []
    return [(str(r.get("name", "")), str(r.get("description", ""))) for r in rows
            if isinstance(r, dict)]


def matches(persona: Persona, deliverable: str, description: str) -> int:
    """How many of the deliverable's trigger sets the description holds."""
    low = description.lower()
    return sum(all(k in low for k in keys) for keys in persona.triggers(deliverable))


def route(persona: Persona, prompt: str, locate: Locate, seed: int, sample: int) -> str:
    """The simulated target's answer to a routing prompt: a skill name or ``none``."""
    found = parts(prompt)
    skills = installed(found.get("installed_skills", "[]"))
    intent = found.get("task", "")
    where = locate(intent)
    if where is None or not skills:
        return "none"
    names = [name for name, _ in skills]
    if _draw("route-noise", seed, intent, sample) < persona.target.get("route_noise", 0.0):
        choices = [*names, "none"]
        return choices[int(_draw("route-pick", seed, intent, sample) * len(choices))]
    scored = [(matches(persona, where[0], description), name) for name, description in skills]
    best = max(score for score, _ in scored)
    if best == 0:
        return "none"
    tied = sorted(name for score, name in scored if score == best)
    return tied[int(_draw("route-tie", seed, intent, sample, *tied) * len(tied))]


def _topics(persona: Persona, text: str, own: tuple[str, ...]) -> list[str]:
    """The skill's deliverables whose trigger sets ``text`` holds, as topics."""
    return [persona.topic(d) for d in own if matches(persona, d, text)]


def _join(topics: list[str]) -> str:
    return topics[0] if len(topics) == 1 else ", ".join(topics[:-1]) + " and " + topics[-1]


def _skill_of(persona: Persona, skill_text: str) -> tuple[str, str, str]:
    """The skill's name, description and body, read from the ``<skill>`` block."""
    match = _FRONTMATTER.match(skill_text)
    try:
        head = yaml.safe_load(match.group(1)) if match else {}
    except yaml.YAMLError:
        head = {}
    head = head if isinstance(head, dict) else {}
    body = skill_text[match.end():] if match else skill_text
    return str(head.get("name") or persona.skill), str(head.get("description") or ""), body


def skill_name(persona: Persona, skill_text: str) -> str:
    """The ``name`` in a skill text's frontmatter (the persona's first skill without one)."""
    return _skill_of(persona, skill_text)[0]


def propose(persona: Persona, prompt: str, locate: Locate, rng: random.Random) -> list[str]:
    """The simulated optimizer's description proposals for a ``description`` prompt."""
    found = parts(prompt)
    name, current, body = _skill_of(persona, found.get("skill", ""))
    try:
        spec = persona.skill_spec(name)
    except KeyError:
        return []
    missed_rows = _rows(found.get("missed", "[]"))
    missed = {where[0] for row in missed_rows
              if (where := locate(str(row.get("intent", "")))) is not None}
    missed_topics = [persona.topic(d) for d in spec.deliverables if d in missed]
    full = sorted(set(_topics(persona, body, spec.deliverables)) | set(missed_topics),
                  key=lambda t: [persona.topic(d) for d in spec.deliverables].index(t))
    rejected = {str(r.get("description", "")).strip().lower()
                for r in _rows(found.get("rejected", "[]"))}
    opt = persona.optimizer
    weights = [float(opt.get(f"describe_{k}", _DEFAULT_WEIGHTS[k])) for k in _DESCRIBE_KINDS]
    out: list[str] = []
    for _ in range(int(opt.get("describe_per_call", 3))):
        for _attempt in range(2):  # steer away from a rejected proposal once
            kind = rng.choices(_DESCRIBE_KINDS, weights=weights)[0]
            text = _one(persona, kind, current, full, missed_topics, spec.deliverables, rng)
            if text.strip().lower() not in rejected:
                break
        if text and text not in out:
            out.append(text)
    return out


def _one(persona: Persona, kind: str, current: str, full: list[str], missed: list[str],
         own: tuple[str, ...], rng: random.Random) -> str:
    stem = current.strip().rstrip(".") + "." if current.strip() else ""
    if kind == "broad" and full:
        others = [d for d in persona.deliverables if d not in own]
        stolen = rng.sample(others, k=rng.randint(max(1, len(others) // 2), len(others)))
        return f"{stem} Use it for {_join(full + [persona.topic(d) for d in stolen])}.".strip()
    topics = full if kind == "full" else missed if kind == "missed" else []
    if topics:
        return f"{stem} Use it for {_join(topics)}.".strip()
    texts = persona.optimizer.get("neutral_descriptions") or ["A helper for this project."]
    return str(rng.choice(texts))


def _rows(text: str) -> list[dict[str, object]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
