"""Wordings the simulator knows by identity, not by words: the words-differ knobs.

A real optimizer often states the right rule without any word the judge checks ("preview
every change before applying it" for a check on ``--dry-run``), and writes platitudes or
bad advice that reuse the tasks' checked vocabulary ("make sure the TL;DR reads
naturally"). A real target reads both by meaning. The persona file models both:

- ``unworded`` (a ``[[rules]]`` field): wordings of the rule that share no word with what
  any task is checked on (``checked_words``). The target still reads them as the rule.
- ``vocab`` (a ``[[harmful]]`` field): wordings of the harmful rule that reuse a checked
  word; the target reads them as the harmful rule only.
- ``vocab_neutral_texts`` (``[optimizer]``): neutral texts that reuse a checked word; the
  target reads them as no rule at all.

A wording listed here is known by identity: a line holding it is read as its own rule (or,
for a neutral text, as nothing), whatever keyword sets of other rules its words match
(``Rule.recognised_in``, through the rule's ``wordings`` and ``masks``). How often the
simulated optimizer uses them is set by ``[optimizer]`` knobs, all 0 by default so a
persona without them behaves as it always did: ``unworded`` (share of rule proposals worded
so), ``vocab_neutral`` (share of neutral proposals drawn from ``vocab_neutral_texts``) and
``vocab_harmful`` (share of harmful proposals drawn from ``vocab``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from skillopt_sleep.sim.persona_model import Persona, Rule

R = TypeVar("R", bound="Rule")

KNOBS = ("unworded", "vocab_neutral", "vocab_harmful")
"""The ``[optimizer]`` shares that choose these wordings (see the module)."""


def norm(text: str) -> str:
    """A wording as it is matched: lower case, single spaces."""
    return " ".join(text.lower().split())


def checked_words(persona: Persona) -> set[str]:
    """Every word any of the persona's tasks is judged on (``night.usage.terms`` of the
    checks' arguments: what the gate's word-based rules read)."""
    from skillopt_sleep.night.usage import terms

    checks = [c for spec in persona.deliverables.values()
              for c in spec.get("checks", [{"op": "no_refusal"}])]
    checks += [r.check for r in persona.rules if r.check]
    return set().union(*(terms(" ".join(str(v) for k, v in c.items() if k not in ("op", "why")))
                         for c in checks))


def with_identities(persona: Persona) -> Persona:
    """The persona with each rule's identity wordings and masks filled in: a rule's own
    ``unworded``/``vocab`` wordings read as it, every other known wording (and every
    ``vocab_neutral_texts`` entry) is masked before its keyword sets are matched."""
    neutral = tuple(norm(t) for t in persona.optimizer.get("vocab_neutral_texts", ()))
    own = {r.id: tuple(norm(w) for w in (*r.unworded, *r.vocab))
           for r in (*persona.rules, *persona.harmful, *persona.cross)}
    known = [w for ws in own.values() for w in ws]

    def fill(rule: R) -> R:
        mine = own[rule.id]
        masks = tuple(w for w in (*known, *neutral) if w not in mine)
        return dataclasses.replace(rule, wordings=mine, masks=masks)

    return dataclasses.replace(
        persona, rules=tuple(fill(r) for r in persona.rules),
        harmful=tuple(fill(r) for r in persona.harmful),
        cross=tuple(fill(r) for r in persona.cross))


def check(persona: Persona) -> None:
    """Unworded wordings share no checked word; vocabulary ones share at least one; a knob
    above 0 has wordings to draw from (``ValueError`` otherwise)."""
    words = checked_words(persona)
    from skillopt_sleep.night.usage import terms

    for rule in persona.rules:
        for w in rule.unworded:
            if shared := terms(w) & words:
                raise ValueError(f"rule {rule.id}: unworded {w!r} holds checked {sorted(shared)}")
    vocab = [*persona.optimizer.get("vocab_neutral_texts", ()),
             *(w for r in persona.harmful for w in r.vocab)]
    for w in vocab:
        if not terms(w) & words:
            raise ValueError(f"vocabulary wording {w!r} holds no checked word")
    needs = {"unworded": any(r.unworded for r in persona.rules),
             "vocab_neutral": bool(persona.optimizer.get("vocab_neutral_texts")),
             "vocab_harmful": any(r.vocab for r in persona.harmful)}
    for knob, present in needs.items():
        if float(persona.optimizer.get(knob, 0.0)) > 0 and not present:
            raise ValueError(f"[optimizer] {knob} > 0 but the persona has no such wordings")


def tuned(persona: Persona, knobs: Mapping[str, float]) -> Persona:
    """The persona with ``[optimizer]`` knobs set (any key of ``KNOBS``), checked."""
    unknown = set(knobs) - set(KNOBS)
    if unknown:
        raise ValueError(f"unknown simulator knob(s) {sorted(unknown)}; known: {KNOBS}")
    out = dataclasses.replace(persona, optimizer={**persona.optimizer, **knobs})
    check(out)
    return out


def knob(optimizer: Mapping[str, Any], name: str) -> float:
    return float(optimizer.get(name, 0.0))


def strings(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value: Iterable[Any] = data.get(key, ())
    return tuple(str(v) for v in value)
