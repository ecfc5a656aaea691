"""How the simulated optimizer answers the text-level contradiction check
(``night/contradict.py``).

Shown an edit and the documents of the skills loaded beside it, it flags a neighbour when
the edit states one of the persona's ``[[cross]]`` rules that hurts that neighbour (its
``effect`` skips a house rule of the neighbour's deliverables, or acts on every answer),
with probability ``contradiction_recall`` (the persona's ``[optimizer]``, default
``RECALL``), quoting the line of the neighbour's document that names the harmed work (a
keyword set of the harmed rule or a trigger set of one of its deliverables; one that
shares a word with the edit first). A neighbour
whose document names none of that work gives it nothing to quote, so nothing is flagged:
a real model has no more to go on. Any other edit is flagged, wrongly, with probability
``contradiction_false`` (default ``FALSE_FLAG``), quoting a random line of a random
neighbour. It is fallible both ways; the night's checks sort it out.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from skillopt_sleep.sim.persona import CrossRule, Persona

RECALL = 0.8
FALSE_FLAG = 0.03

_TAG = re.compile(r"<(?P<tag>edit|neighbours)>\n?(?P<body>.*)\n?</(?P=tag)>", re.S)


def _parts(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    """The edit's words and each neighbour's ``(name, document)``."""
    found = {m.group("tag"): m.group("body") for m in _TAG.finditer(prompt)}
    try:
        edit = json.loads(found.get("edit", "{}"))
        rows = json.loads(found.get("neighbours", "[]"))
    except json.JSONDecodeError:
        return "", []
    words = f"{edit.get('text', '')} {edit.get('anchor', '')}" if isinstance(edit, dict) else ""
    docs = [(str(r.get("name", "")), str(r.get("document", ""))) for r in rows
            if isinstance(r, dict)] if isinstance(rows, list) else []
    return words, docs


def _harmed(persona: Persona, rule: CrossRule, skill: str) -> list[tuple[str, ...]]:
    """Keyword sets naming the work of ``skill`` that ``rule`` hurts (empty: none)."""
    if not rule.effect.startswith("skip:"):
        own = [d for s in persona.skills if s.name == skill for d in s.deliverables]
        return [k for d in own for k in persona.triggers(d)]
    hurt = persona.rule(rule.effect.split(":", 1)[1])
    own = [d for d in hurt.deliverables if persona.skill_of(d) == skill]
    return [*hurt.keywords, *(k for d in own for k in persona.triggers(d))] if own else []


def _line(document: str, keys: list[tuple[str, ...]], words: str) -> str:
    """The first line of ``document`` holding one of ``keys`` (all words of a set), those
    that share a word with the edit first."""
    low = words.lower()
    near = [ks for ks in keys if any(w in low for k in ks for w in k.split())]
    return _first(document, near) or _first(document, keys)


def _first(document: str, keys: list[tuple[str, ...]]) -> str:
    for line in document.splitlines():
        low = line.lower()
        if any(all(k in low for k in ks) for ks in keys):
            return line.strip()
    return ""


def flags(persona: Persona, prompt: str, rng: random.Random) -> list[dict[str, Any]]:
    """The simulated optimizer's reply rows for a ``contradiction`` prompt."""
    words, docs = _parts(prompt)
    opt = persona.optimizer
    recall = float(opt.get("contradiction_recall", RECALL))
    false = float(opt.get("contradiction_false", FALSE_FLAG))
    stated = [c for c in persona.cross if c.recognised_in(words)]
    out = []
    for name, document in docs:
        keys = [k for c in stated for k in _harmed(persona, c, name)]
        if keys:
            quote = _line(document, keys, words)
            if quote and rng.random() < recall:
                out.append({"skill": name, "quote": quote,
                            "why": "the edit forbids work this skill's document asks for"})
            continue
        lines = [ln.strip() for ln in document.splitlines() if len(ln.split()) >= 3]
        if lines and rng.random() < false:
            out.append({"skill": name, "quote": rng.choice(lines),
                        "why": "the edit seems to work against this skill"})
    return out
