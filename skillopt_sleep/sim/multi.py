"""Several skills of one persona, night after night: the cross-skill check and retirement.

``companions`` gives one skill's night what the pipeline gives it from the archive: the
persona's other skills as neighbours (the simulated agent loads all of them in every
session) and, on a retirement night, the learned entries no task exercised for
``retire_after`` nights. ``run_persona`` runs ``nights`` nights of every skill, each night
on the tasks the developer still asks for (``persona.asked_on``) and with the trigger check
(``sim.skill_figures.trigger_setup``) as in ``run`` and the proof, and returns the figures
the cross-skill experiment prints: harmful cross-skill edits proposed and accepted, every
skill's held-out test score with the others' first and last documents beside it, and what
the retirements removed and cost.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.models.base import LLM
from skillopt_sleep.night import gate, usage
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import Neighbour, changed, dropped, together
from skillopt_sleep.night.memory import recall, remember
from skillopt_sleep.night.replay import mean_score, replay
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.night.trigger import RouteAnswers
from skillopt_sleep.records import NightResult, Rollout, Split
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.skill_figures import trigger_setup
from skillopt_sleep.skilldoc import apply_edit, parse

__all__ = ["Companions", "MultiSpec", "companions", "run_persona"]


def _entries(text: str) -> tuple[str, ...]:
    doc = parse(text)
    return (*doc.entries("learned"), *doc.entries("slow"))


def _names(p: personas.Persona) -> list[str]:
    return [s.name for s in p.skills]


@dataclass(frozen=True)
class Companions:
    neighbours: list[Neighbour]
    retire: list[str]
    recheck: tuple[str, ...] = ()


def companions(p: personas.Persona, seed: int, skill: str, texts: dict[str, str],
               archive: Archive, night: int, *, night_id: str = "", cross_tasks: int = 12,
               retire_every: int = 7, retire_after: int = 14,
               previous: dict[str, str] | None = None) -> Companions:
    """What night ``night`` of ``skill`` needs beyond its own tasks (see the module)."""
    neighbours = []
    for other in _names(p):
        # The neighbour's train and validation tasks: held out from this skill, and its test
        # split stays untouched for the figures.
        val = [t for t in personas.tasks(p, seed) if t.skill == other and
               t.split != Split.TEST.value and personas.asked_on(p, t, night)]
        if other == skill or not val or not cross_tasks:
            continue
        neighbours.append(Neighbour(other, texts[other], tuple(val), "loaded together"))
    retire: list[str] = []
    if usage.retire_night(night, retire_every):
        retire = usage.stale(archive, f"persona:{p.name}", skill, texts[skill],
                             night_id or f"sim-{night}", night, retire_after)
    return Companions(neighbours, retire, changed(previous, neighbours, skill, texts[skill]))


@dataclass(frozen=True)
class MultiSpec:
    persona: str
    seed: int = 0
    nights: int = 6
    cross: bool = True
    trigger: bool = True
    """The trigger check in every night (as ``run`` and the proof have it)."""
    config: NightConfig = field(default_factory=lambda: NightConfig(score_test=False))
    retire_every: int = 3
    retire_after: int = 3
    test_repeats: int = 3
    concurrency: int = 4
    optimizer: tuple[tuple[str, float], ...] = ()
    """Persona ``[optimizer]`` values to play instead (``contradiction_recall = 0``: the
    text checks never flag, so the replays are all that guard)."""


def _night(p: personas.Persona, spec: MultiSpec, archive: Archive, skill: str,
           texts: dict[str, str], n: int, target: LLM,
           seen: dict[str, dict[str, str]], answers: RouteAnswers) -> NightResult:
    asked = [t for t in personas.tasks(p, spec.seed) if personas.asked_on(p, t, n)]
    tasks = [t for t in asked if t.skill == skill]
    extra = companions(p, spec.seed, skill, texts, archive, n,
                       cross_tasks=12 if spec.cross else 0, retire_every=spec.retire_every,
                       retire_after=spec.retire_after, previous=seen.get(skill))
    project = f"persona:{p.name}"
    result = run_night(NightInputs(
        tasks=tasks, skill_text=texts[skill], skill_name=skill, target=target,
        optimizer=build(p, spec.seed * 7919 + n * 31 + _names(p).index(skill),
                        "optimizer"),
        night_id=f"sim-{n}", project=project, config=spec.config,
        memory=recall(archive, project, skill), seed=spec.seed * 100 + n,
        trigger=trigger_setup(p, skill, texts, asked, answers) if spec.trigger else None,
        neighbours=extra.neighbours, retire=extra.retire, recheck=extra.recheck,
        cross_tasks=12))
    seen[skill] = result.neighbours_seen
    remember(archive, result)
    usage.keep(archive, result, tasks, n)
    return result


def _test(p: personas.Persona, spec: MultiSpec, skill: str, context: Callable[[str], str],
          own: str, target: LLM, night: int) -> list[Rollout]:
    """``skill``'s held-out test rollouts with ``own`` in ``context``, on the tasks the
    developer still asks for on night ``night``."""
    tasks = [t for t in personas.tasks(p, spec.seed) if t.skill == skill and
             t.split == Split.TEST.value and personas.asked_on(p, t, night)]
    with ThreadPoolExecutor(max_workers=spec.concurrency) as pool:
        return replay(tasks, context(own), target, samples=spec.test_repeats, executor=pool,
                      temperature=spec.config.temperature)


def _compare(before: list[Rollout], after: list[Rollout], spec: MultiSpec) -> dict[str, Any]:
    """Test score before and after, and whether the fall is beyond noise: the gate's paired
    test on the same (task, sample) pairs, the other way round (``cross.dropped``)."""
    verdict = dropped(before, after, cfg=spec.config, test=gate.gate_test(spec.config.gate_test))
    c = verdict.comparison
    return {"before": mean_score(before, spec.config.metric),
            "after": mean_score(after, spec.config.metric), "delta": round(c.mean_delta, 4),
            "p_drop": round(c.p_value, 4), "dropped": verdict.accepted}


def _loaded(texts: dict[str, str], skill: str) -> Callable[[str], str]:
    """The context of ``skill``'s tasks: every other skill's document beside its own."""
    def context(own: str) -> str:
        for other, text in sorted(texts.items()):
            own = together(own, text) if other != skill else own
        return own
    return context


def _retirements(p: personas.Persona, spec: MultiSpec, results: list[NightResult],
                 target: LLM) -> dict[str, Any]:
    """What the accepted retirements removed, and the held-out score just before and after."""
    tried = retired = 0
    checks = []
    for r in results:
        done = [d for d in r.retired if d.accepted]
        tried, retired = tried + len(r.retired), retired + len(done)
        if not done:
            continue
        before = parse(r.skill_before)
        after = before
        for d in done:
            after = apply_edit(after, d.edit)[0]
        night = int(r.night_id.rsplit("-", 1)[1])
        same = _loaded({}, r.skill)
        checks.append(_compare(_test(p, spec, r.skill, same, before.text, target, night),
                               _test(p, spec, r.skill, same, after.text, target, night), spec))
    return {"retire_tried": tried, "retired": retired, "retire_test": checks}


def run_persona(spec: MultiSpec, progress: Callable[[str], None] = lambda _m: None
                ) -> dict[str, Any]:
    """``spec.nights`` nights of every skill of the persona; the figures (see the module)."""
    p = personas.load(spec.persona)
    if spec.optimizer:
        p = replace(p, optimizer={**p.optimizer, **dict(spec.optimizer)})
    config = replace(spec.config, concurrency=spec.concurrency)
    spec = replace(spec, config=config)
    target = build(p, spec.seed, "target")
    first = {s: p.initial_skill(s) for s in _names(p)}
    texts = dict(first)
    results: list[NightResult] = []
    seen: dict[str, dict[str, str]] = {}
    answers = RouteAnswers()  # the routing replies of this run, shared by its nights
    with tempfile.TemporaryDirectory(prefix="skillopt-multi-") as tmp:
        archive = Archive(Path(tmp) / "archive.sqlite3")
        try:
            for n in range(spec.nights):
                progress(f"night {n + 1}/{spec.nights}")
                for skill in _names(p):
                    result = _night(p, spec, archive, skill, texts, n, target, seen, answers)
                    texts[skill] = result.skill_after
                    results.append(result)
        finally:
            archive.close()
    last = spec.nights - 1
    kinds = [personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor)
             for r in results for d in r.decisions]
    accepted = [personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor)
                for r in results for d in r.accepted]
    others: dict[str, dict[str, Any]] = {}
    for skill in _names(p):
        # The skill's own last document, with the others' first and then last beside it.
        own = texts[skill]
        others[skill] = _compare(_test(p, spec, skill, _loaded(first, skill), own, target, last),
                                 _test(p, spec, skill, _loaded(texts, skill), own, target, last),
                                 spec)
    return {
        "persona": p.name, "seed": spec.seed, "cross": spec.cross,
        "cross_proposed": kinds.count("cross"), "cross_accepted": accepted.count("cross"),
        "harmful_accepted": accepted.count("harmful"),
        "cross_skill_rejected": sum(d.stage == "cross" for r in results for d in r.decisions),
        "cross_withdrawn": sum(personas.classify(p, "append", d.edit.anchor) == "cross"
                               for r in results for d in r.withdrawn),
        "withdrawn": sum(len(r.withdrawn) for r in results),
        "cross_in_final": sum(personas.classify(p, "append", e) == "cross"
                              for t in texts.values() for e in _entries(t)),
        "contradictions": sum(len(r.contradictions) for r in results),
        "beside_others": others, **_retirements(p, spec, results, target),
        "final": texts}
