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

The own look (``night/demands.py``) shows an edit beside the demands the skill's tasks are
judged on: an edit stating one of the persona's harmful rules is flagged, with the same
recall, quoting the demand it cancels (the check of the house rule its ``skip:`` effect
drops, or a section check for ``no_headings``; a ``truncate:`` effect cancels no one
demand, and a harmful rule whose demand is not shown has nothing to quote); any other edit
is flagged, wrongly, with the same false-flag rate, quoting a random demand.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.sim.persona import CrossRule, Persona, Rule

RECALL = 0.8
FALSE_FLAG = 0.03

_TAG = re.compile(r"<(?P<tag>edit|neighbours|demands)>\n?(?P<body>.*)\n?</(?P=tag)>", re.S)


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


def _demands(prompt: str) -> tuple[str, str, list[str]]:
    """The own look's edit words, the skill named, and the demands shown."""
    found = {m.group("tag"): m.group("body") for m in _TAG.finditer(prompt)}
    try:
        edit = json.loads(found.get("edit", "{}"))
        shown = json.loads(found.get("demands", "[]"))
    except json.JSONDecodeError:
        return "", "", []
    if not isinstance(edit, dict) or not isinstance(shown, list):
        return "", "", []
    words = f"{edit.get('text', '')} {edit.get('anchor', '')}"
    return words, str(edit.get("skill", "")), [str(d) for d in shown]


def _cancels(persona: Persona, rule: Rule, shown: list[str]) -> str:
    """The demand among ``shown`` that the harmful ``rule`` cancels: the check of the house
    rule its ``skip:`` effect drops, or a section check for ``no_headings``; "" for none
    (``truncate:`` shortens answers, which no one check reads as forbidden)."""
    if rule.effect.startswith("skip:"):
        wanted = describe(persona.rule(rule.effect.split(":", 1)[1]).check)
        return next((d for d in shown if d == wanted), "")
    if rule.effect == "no_headings":
        return next((d for d in shown if d.startswith("section_")), "")
    return ""


def own_flags(persona: Persona, prompt: str, rng: random.Random) -> list[dict[str, Any]]:
    """The simulated optimizer's reply rows for the own look (``night/demands.py``): an edit
    stating a harmful rule is flagged, with ``contradiction_recall``, quoting the demand it
    cancels (none shown: nothing to quote, no flag); any other edit, wrongly, with
    ``contradiction_false``, quoting a random demand."""
    words, skill, shown = _demands(prompt)
    opt = persona.optimizer
    recall = float(opt.get("contradiction_recall", RECALL))
    false = float(opt.get("contradiction_false", FALSE_FLAG))
    stated = [h for h in persona.harmful if h.recognised_in(words)]
    quotes = [q for h in stated if (q := _cancels(persona, h, shown))]
    if stated:
        if quotes and rng.random() < recall:
            return [{"skill": skill, "quote": quotes[0],
                     "why": "the edit forbids what this demand asks for"}]
        return []
    if shown and rng.random() < false:
        return [{"skill": skill, "quote": rng.choice(shown),
                 "why": "the edit seems to work against this demand"}]
    return []


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
