"""What the proof adds for a persona with several skills: the trigger check's setup for
each skill's night, and the figures ``prove --json`` reports per skill.

Figures (all on the held-out *test* split; a routing answer per test task, sample 0):

- ``triggers``: per skill, ``recall_before/after`` (share of its own test tasks the target
  loads it for) and ``false_trigger_before/after`` (share of the other skills' test tasks
  it loads it for), with every skill's first descriptions installed, then every skill's
  last ones; and ``description_before/after``.
- ``trigger_skill``: the skill with the lowest recall before (the under-described one),
  and its four rates flat: ``trigger_recall_before``, ``trigger_recall_after``,
  ``false_trigger_before``, ``false_trigger_after``.
- ``skill_tests``: per skill, ``baseline_test`` and ``after_test`` on its own test tasks.
- ``descriptions_proposed`` / ``descriptions_accepted``: over every night's trigger check;
  ``broad_descriptions_proposed`` / ``_accepted``: those naming another skill's work (by
  the persona's triggers), which steal its tasks.
- ``failed_picks``: routing answers that failed or could not be read (excluded above).
- ``figure_calls``: the target calls these figures made beyond the proof's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.describe import TriggerSetup
from skillopt_sleep.night.replay import mean_score, replay
from skillopt_sleep.night.trigger import Pick, RouteAnswers, SkillCard, route_one
from skillopt_sleep.records import NightResult, Split, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.skilldoc import parse


def trigger_setup(p: personas.Persona, skill: str, texts: Mapping[str, str],
                  tasks: Sequence[Task], answers: RouteAnswers | None = None
                  ) -> TriggerSetup | None:
    """The other skills' current cards and their tasks, and the run's routing replies
    (``answers``, shared by its nights); None for a persona whose target does not route
    (``Persona.routed``: one skill without ``triggers``)."""
    if not p.routed:
        return None
    others = [SkillCard(name, parse(text).description) for name, text in texts.items()
              if name != skill]
    return TriggerSetup(others=others, foreign_tasks=[t for t in tasks if t.skill != skill],
                        answers=answers)


def _cards(texts: Mapping[str, str]) -> list[SkillCard]:
    return sorted((SkillCard(n, parse(t).description) for n, t in texts.items()),
                  key=lambda c: c.name)


def _picks(target: LLM, cards: list[SkillCard], tasks: Sequence[Task], temperature: float,
           pool: ThreadPoolExecutor) -> list[Pick]:
    futures = [pool.submit(route_one, target, cards, t, 0, True, temperature) for t in tasks]
    return [f.result() for f in futures]


def _rates(skill: str, tasks: Sequence[Task], picks: Sequence[Pick]) -> tuple[float | None,
                                                                              float | None]:
    own = [p for t, p in zip(tasks, picks, strict=True) if p.usable and t.skill == skill]
    other = [p for t, p in zip(tasks, picks, strict=True) if p.usable and t.skill != skill]
    recall = sum(p.picked == skill for p in own) / len(own) if own else None
    false = sum(p.picked == skill for p in other) / len(other) if other else None
    return _round(recall), _round(false)


def figures(p: personas.Persona, seed: int, config: NightConfig,
            results: Sequence[NightResult], target: LLM, concurrency: int) -> dict[str, Any]:
    """The several-skill figures of one proof (see the module docstring)."""
    tasks = [t for t in personas.tasks(p, seed) if t.split == Split.TEST.value]
    first = {s.name: s.initial_text() for s in p.skills}
    last = dict(first) | {r.skill: r.skill_after for r in results}
    calls = 0
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        before = _picks(target, _cards(first), tasks, config.temperature, pool)
        after = _picks(target, _cards(last), tasks, config.temperature, pool)
        calls += len(before) + len(after)
        tests: dict[str, dict[str, float | None]] = {}
        for name in first:
            own = [t for t in tasks if t.skill == name]
            scores = []
            for text in (first[name], last[name]):
                rollouts = replay(own, text, target, samples=config.test_repeats,
                                  executor=pool, max_tokens=config.max_tokens,
                                  temperature=config.temperature)
                calls += len(rollouts)
                scores.append(_round(mean_score(rollouts, config.metric)))
            tests[name] = {"baseline_test": scores[0], "after_test": scores[1]}
    triggers = {}
    for name in first:
        rb, fb = _rates(name, tasks, before)
        ra, fa = _rates(name, tasks, after)
        triggers[name] = {"recall_before": rb, "recall_after": ra, "false_trigger_before": fb,
                          "false_trigger_after": fa,
                          "description_before": parse(first[name]).description,
                          "description_after": parse(last[name]).description}
    weakest = min(first, key=lambda n: triggers[n]["recall_before"] or 0.0)
    decisions = [(r.skill, d) for r in results for d in r.trigger.get("decisions", [])]
    broad = [d for skill, d in decisions if _broad(p, skill, d["description"])]
    return {
        "trigger_skill": weakest,
        "trigger_recall_before": triggers[weakest]["recall_before"],
        "trigger_recall_after": triggers[weakest]["recall_after"],
        "false_trigger_before": triggers[weakest]["false_trigger_before"],
        "false_trigger_after": triggers[weakest]["false_trigger_after"],
        "triggers": triggers,
        "skill_tests": tests,
        "descriptions_proposed": len(decisions),
        "descriptions_accepted": sum(1 for _, d in decisions if d["accepted"]),
        "broad_descriptions_proposed": len(broad),
        "broad_descriptions_accepted": sum(1 for d in broad if d["accepted"]),
        "failed_picks": sum(1 for x in (*before, *after) if not x.usable),
        "figure_calls": calls,
    }


def _broad(p: personas.Persona, skill: str, description: str) -> bool:
    """Whether a description names work of another skill (by the persona's triggers)."""
    low = description.lower()
    return any(all(k in low for k in keys) for d in p.deliverables if p.skill_of(d) != skill
               for keys in p.triggers(d))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
