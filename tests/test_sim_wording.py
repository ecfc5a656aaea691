"""The simulator's words-differ knobs (``sim.wording``) and the optimizer's prompt-only rule.

Real persona files, the real simulated target and optimizer and the real reflection prompt;
nothing is mocked.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.judges.rules import describe
from skillopt_sleep.night.prompts import reflect_messages
from skillopt_sleep.night.usage import terms
from skillopt_sleep.records import Rollout, Score
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import wording
from skillopt_sleep.sim.models import SimulatedOptimizer, SimulatedTarget
from skillopt_sleep.sim.persona import Persona, Rule

ONE_SKILL = ("analyst", "devops", "programmer", "researcher")
SHIFTED = {"unworded": 1.0, "vocab_neutral": 1.0, "vocab_harmful": 1.0}


@pytest.fixture(params=ONE_SKILL)
def persona(request: pytest.FixtureRequest) -> Persona:
    return personas.load(request.param)


def _stated(p: Persona, line: str) -> tuple[set[str], set[str]]:
    return SimulatedTarget(p)._stated(p.initial_skill() + f"\n- {line}\n", "no subject")


def test_the_target_reads_every_wording_by_its_identity(persona: Persona) -> None:
    words = wording.checked_words(persona)
    for rule in persona.rules:
        assert rule.unworded, rule.id
        for said in rule.unworded:
            assert not terms(said) & words, said  # no word the judge checks ...
            assert _stated(persona, said) == ({rule.id}, set()), said  # ... read as the rule
    for rule in persona.harmful:
        for said in rule.vocab:
            assert terms(said) & words, said
            assert _stated(persona, said) == (set(), {rule.id}), said  # the harm only
    for text in persona.optimizer["vocab_neutral_texts"]:
        assert terms(text) & words, text
        assert _stated(persona, text) == (set(), set()), text  # checked words, no rule
        assert personas.classify(persona, "append", text) == "neutral"


def _prompt(p: Persona, rules: list[Rule], skill: str) -> list[dict[str, str]]:
    """A failure minibatch whose judge rationales evidence ``rules`` (and no other)."""
    items = []
    for i, rule in enumerate(rules * 2):
        task = next(t for t in personas.tasks(p, 0) if any(c.get("why") == rule.id
                                                            for c in t.judge.checks))
        task = dataclasses.replace(task, id=f"{task.id}#{i}")
        score = Score(hard=0.0, soft=0.5, rationale=f"failed: {describe(rule.check)}")
        items.append((task, Rollout(task.id, 0, "h", response="An answer.", score=score)))
    return list(reflect_messages(mode="failures", skill=skill, items=items, rejected=[],
                                 notes=[], max_edits=3))


def _proposals(p: Persona, messages: list[dict[str, str]], seeds: range) -> list[str]:
    opt = SimulatedOptimizer(p, seed=3)
    return [opt.complete(messages, seed=s).text for s in seeds]  # type: ignore[arg-type]


@pytest.mark.parametrize("knobs", [{}, SHIFTED])
def test_a_proposal_depends_only_on_what_its_prompt_shows(persona: Persona,
                                                          knobs: dict[str, float]) -> None:
    p = wording.tuned(persona, knobs)
    shown = list(p.rules[:2])
    messages = _prompt(p, shown, p.initial_skill())
    alone = dataclasses.replace(p, rules=tuple(shown))  # holds nothing the prompt hides
    extra = dataclasses.replace(shown[0], id="hidden", text="Sign every answer.",
                                paraphrases=(), keywords=(("sign every",),), unworded=())
    more = dataclasses.replace(p, rules=(*p.rules[2:], extra, *reversed(shown)))
    full = _proposals(p, messages, range(40))
    assert full == _proposals(alone, messages, range(40))
    assert full == _proposals(more, messages, range(40))
    edits = [e for reply in full if reply.startswith("{")
             for e in json.loads(reply).get("edits", [])]
    fixes = {e["rationale"] for e in edits if e["rationale"].startswith("fixes ")}
    assert fixes == {f"fixes {r.id}" for r in shown}  # the proposals do read the evidence


def test_the_knobs_choose_the_wordings_and_default_to_none(persona: Persona) -> None:
    messages = _prompt(persona, list(persona.rules[:3]), persona.initial_skill())
    words = wording.checked_words(persona)

    def texts(p: Persona, kind: str) -> list[str]:
        out = []
        for reply in _proposals(p, messages, range(60)):
            for e in json.loads(reply).get("edits", []) if reply.startswith("{") else []:
                if personas.classify(p, e["op"], e.get("text", ""), e.get("anchor", "")) == kind:
                    out.append(e.get("text", ""))
        return out

    shifted = wording.tuned(persona, SHIFTED)
    assert texts(persona, "correct") and all(terms(t) & words for t in texts(persona, "correct"))
    assert texts(shifted, "correct")
    assert not any(terms(t) & words for t in texts(shifted, "correct"))
    assert not any(terms(t) & words for t in texts(persona, "neutral"))
    assert texts(shifted, "neutral") and all(terms(t) & words for t in texts(shifted, "neutral"))
    # Knobs at 0 draw nothing: the same replies as a persona without the fields at all.
    zero = wording.tuned(persona, dict.fromkeys(SHIFTED, 0.0))
    assert _proposals(zero, messages, range(20)) == _proposals(persona, messages, range(20))


def test_a_bad_wording_is_a_clear_error(tmp_path: Path) -> None:
    text = personas.resolve("devops").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('"Preview every change before applying it."',
                                '"Preview every change with a dry run."'), encoding="utf-8")
    with pytest.raises(ConfigError, match="unworded"):
        personas.load(str(bad))
    with pytest.raises(ValueError, match="unknown simulator knob"):
        wording.tuned(personas.load("devops"), {"unwordd": 1.0})
    bare = dataclasses.replace(personas.load("devops"), optimizer={
        k: v for k, v in personas.load("devops").optimizer.items() if k != "vocab_neutral_texts"})
    with pytest.raises(ValueError, match="vocab_neutral"):
        wording.tuned(bare, {"vocab_neutral": 0.5})
