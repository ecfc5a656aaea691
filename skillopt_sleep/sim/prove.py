"""The proof run: nights over a simulated persona, gated and ungated, with honest counts.

``prove`` runs ``nights`` nights for a persona and reports the held-out *test* score before
and after, the same nights with the gate off, and how many edits of each kind (judged with
the persona's hidden knowledge, never shown to the night) were proposed and accepted.

The test split is scored only where a reported figure needs it: once for the persona's
first skill, once for the gated nights' last skill and once for the gate-off twin's (the
nights themselves never score it; it never gates), each time on the sample a night's report
scores (``night.measure``), the lift with its interval (``lift_margin``). Every call is
counted by role through one ledger per arm, failed calls included.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import AssertionFailed
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.meter import Ledger, MeteredLLM, live_and_cached
from skillopt_sleep.night import usage
from skillopt_sleep.night.config import MIN_LIFT, NightConfig
from skillopt_sleep.night.evidence import evidence_rows
from skillopt_sleep.night.measure import lift_margin, measured
from skillopt_sleep.night.memory import recall, remember
from skillopt_sleep.night.replay import mean_score, replay
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.night.trigger import RouteAnswers
from skillopt_sleep.records import NightResult, Rollout, Split, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import real_skill, skill_figures, wording
from skillopt_sleep.sim.multi import companions

KINDS = ("correct", "overfit", "neutral", "harmful", "hostile", "cross")


@dataclass(frozen=True)
class ProofSpec:
    persona: str = "researcher"
    seed: int = 0
    nights: int = 3
    gate: bool = True
    config: NightConfig = field(default_factory=NightConfig)
    target: str = "simulated"
    optimizer: str = "simulated"
    base_url: str | None = None
    target_base_url: str | None = None
    optimizer_base_url: str | None = None
    cache: str = ""
    concurrency: int = 4
    """Replays run at once (the results do not depend on it)."""
    retire_every: int = 7
    retire_after: int = 14
    sim: tuple[tuple[str, float], ...] = ()
    """Simulator knobs set over the persona file's (``sim.wording.KNOBS``)."""


@dataclass
class Arm:
    """One arm of the proof (gated, or the gate-off twin): its nights and every call."""

    results: list[NightResult]
    ledger: Ledger
    after_test: TestScore | None = None
    test_calls: int = 0
    """Of the ledger's calls, those that scored the last skill on the test split."""


ModelFactory = Callable[[str, str, int], LLM]


def load_persona(spec: ProofSpec) -> personas.Persona:
    """The spec's persona, with its simulator knobs (``spec.sim``) set."""
    p = personas.load(spec.persona)
    return wording.tuned(p, dict(spec.sim)) if spec.sim else p


def _simulated_models(p: personas.Persona) -> ModelFactory:
    from skillopt_sleep.sim.models import build

    return lambda spec, role, seed: build(p, seed, role)


def run_nights(
    p: personas.Persona,
    spec: ProofSpec,
    gate: bool,
    models: ModelFactory,
    progress: Callable[[str], None] = lambda _m: None,
    ledger: Ledger | None = None,
    score_test: bool = True,
) -> list[NightResult]:
    """``spec.nights`` consecutive nights, each starting from the last one's skill; each
    night scores the test split for its own report unless ``score_test`` is False (the
    proof scores it once itself). A persona with several skills trains each skill every
    night, in turn, with the trigger check (``sim.skill_figures.trigger_setup``) and the
    others as its neighbours (``sim.multi.companions``); the routing replies are asked once
    per run (``trigger.RouteAnswers``), shared by its skills and nights."""
    ledger = ledger if ledger is not None else Ledger()
    config = replace(spec.config, score_test=score_test, concurrency=spec.concurrency)
    skills = {s.name: s.initial_text() for s in p.skills}
    results = []
    with tempfile.TemporaryDirectory(prefix="skillopt-prove-") as tmp:
        run = _ProofNights(p, spec, Archive(Path(tmp) / "archive.sqlite3"),
                           MeteredLLM(models(spec.target, "target", spec.seed), "target", ledger),
                           config if gate else replace(config, gate_test="accept-all"))
        try:
            for n in range(spec.nights):
                progress(f"night {n + 1}/{spec.nights}{'' if gate else ' (gate off)'}")
                optimizer = MeteredLLM(models(spec.optimizer, "optimizer", spec.seed * 7919 + n),
                                       "optimizer", ledger)
                for name in skills:
                    result = run.night(n, name, skills, optimizer)
                    results.append(result)
                    skills[name] = result.skill_after
        finally:
            run.archive.close()
    return results


@dataclass
class _ProofNights:
    """What the nights of one proof arm share: the persona's tasks, the archive that is
    their memory, the target, the settings, and the routing replies asked so far."""

    p: personas.Persona
    spec: ProofSpec
    archive: Archive
    target: LLM
    config: NightConfig
    # Looked up at each proof, not bound here, so a comparison can run without the store.
    answers: RouteAnswers | None = field(default_factory=lambda: RouteAnswers())
    seen: dict[str, dict[str, str]] = field(default_factory=dict)
    tasks: list[Task] = field(init=False)

    def __post_init__(self) -> None:
        self.tasks = personas.tasks(self.p, self.spec.seed)

    def night(self, n: int, name: str, skills: dict[str, str], optimizer: LLM) -> NightResult:
        """Night ``n`` of skill ``name`` (``skills``: every skill's text so far); its lessons
        go to the archive for the next night."""
        p, spec, project = self.p, self.spec, f"persona:{self.p.name}"
        night_id = f"prove-{p.name}-{spec.seed}-{n}"
        extra = companions(p, spec.seed, name, skills, self.archive, n, night_id=night_id,
                           retire_every=spec.retire_every, retire_after=spec.retire_after,
                           previous=self.seen.get(name))
        asked = [t for t in self.tasks if personas.asked_on(p, t, n)]
        inputs = NightInputs(
            tasks=[t for t in asked if t.skill == name], skill_text=skills[name],
            skill_name=name, target=self.target, optimizer=optimizer, night_id=night_id,
            project=project, config=self.config, memory=recall(self.archive, project, name),
            seed=spec.seed * 100 + n,
            trigger=skill_figures.trigger_setup(p, name, skills, asked, self.answers),
            neighbours=extra.neighbours, retire=extra.retire, recheck=extra.recheck,
            cross_tasks=12,
        )
        result = run_night(inputs)
        self.seen[name] = result.neighbours_seen
        remember(self.archive, result)
        usage.keep(self.archive, result, inputs.tasks, n)
        return result


@dataclass
class TestScore:
    """The held-out test figure of one skill set: the tasks scored and their answers."""

    tasks: list[Task]
    rollouts: list[Rollout]
    metric: str

    @property
    def mean(self) -> float | None:
        return mean_score(self.rollouts, self.metric) if self.tasks else None


def score_test(
    p: personas.Persona, spec: ProofSpec, skill: str | Mapping[str, str], models: ModelFactory,
    ledger: Ledger,
) -> TestScore:
    """The held-out test score of ``skill`` (``test_repeats`` samples of each task of each
    skill's test sample, ``night.measure``, as a night's report scores it); with several
    skills, ``skill`` maps each to its text and each task is answered with its own skill's."""
    # What the developer still asks for by the last night (a persona's ``until_night``).
    tasks = [t for t in personas.tasks(p, spec.seed) if t.split == Split.TEST.value
             and personas.asked_on(p, t, spec.nights - 1)]
    texts = {p.skill: skill} if isinstance(skill, str) else dict(skill)
    target = MeteredLLM(models(spec.target, "target", spec.seed), "target", ledger)
    scored = TestScore([], [], spec.config.metric)
    with ThreadPoolExecutor(max_workers=spec.concurrency) as pool:
        for name, text in texts.items():
            own = measured([t for t in tasks if t.skill == name or isinstance(skill, str)],
                           spec.config.test_tasks)
            scored.tasks += own
            scored.rollouts += replay(
                own,
                text,
                target,
                samples=spec.config.test_repeats,
                executor=pool,
                max_tokens=spec.config.max_tokens,
                temperature=spec.config.temperature,
            )
    return scored


def _test_figures(baseline: TestScore, arm: Arm, twin: Arm) -> dict[str, Any]:
    """The held-out figures: before, after (gated and not), the lift, its sample and interval."""
    after = _round(arm.after_test.mean if arm.after_test else None)
    before = _round(baseline.mean)
    return {
        "baseline_test": before,
        "after_test": after,
        "ungated_after_test": _round(twin.after_test.mean if twin.after_test else None),
        "test_tasks": len(baseline.tasks),
        "lift_margin": _round(_margin(baseline, arm.after_test)),
        "lift": _round((after or 0.0) - (before or 0.0)),
    }


def _margin(before: TestScore, after: TestScore | None) -> float | None:
    """The 95 % interval's half-width of the test lift (``night.measure.lift_margin``)."""
    if after is None:
        return None
    rows = evidence_rows(before.tasks, Split.TEST.value, before.metric, before.rollouts,
                         after.rollouts)
    return lift_margin(before.tasks, rows)


def _arm(
    p: personas.Persona,
    spec: ProofSpec,
    gate: bool,
    models: ModelFactory,
    progress: Callable[[str], None],
) -> Arm:
    arm = Arm([], Ledger())
    arm.results = run_nights(p, spec, gate, models, progress, arm.ledger, score_test=False)
    before = len(arm.ledger.calls)
    final = {r.skill: r.skill_after for r in arm.results}
    arm.after_test = score_test(p, spec, final, models, arm.ledger)
    arm.test_calls = len(arm.ledger.calls) - before
    return arm


def _calls(ledger: Ledger) -> dict[str, int]:
    roles = ledger.by_role()
    return {
        **{f"{role}_calls": roles.get(role, {}).get("calls", 0)
           for role in ("target", "optimizer", "judge")},
        "failed_calls": sum(row["errors"] for row in roles.values()),
    }


def _kind_counts(p: personas.Persona, results: list[NightResult]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for r in results:
        for d in r.decisions:
            kind = personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor)
            counts[f"{kind}_proposed"] += 1
            counts[f"{kind}_accepted"] += int(d.accepted)
    return {f"{k}_{w}": counts[f"{k}_{w}"] for k in KINDS for w in ("proposed", "accepted")}


def _edit_figures(p: personas.Persona, gated: list[NightResult]) -> dict[str, int]:
    """What the gated nights proposed and did with it: per kind, per rejecting stage,
    withdrawn and retired."""
    decisions = [d for r in gated for d in r.decisions]
    return {
        "edits_proposed": sum(s.proposed for r in gated for s in r.steps),
        "edits_accepted": sum(1 for d in decisions if d.accepted),
        **_kind_counts(p, gated),
        "firewall_rejected": sum(1 for d in decisions if d.stage == "firewall"),
        "cross_skill_rejected": sum(1 for d in decisions if d.stage == "cross"),
        "own_look_rejected": sum(1 for d in decisions if d.stage == "contradict"),
        "own_look_rejected_harmful": sum(
            personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor) == "harmful"
            for d in decisions if d.stage == "contradict"),
        "withdrawn": sum(len(r.withdrawn) for r in gated),
        "cross_withdrawn": sum(personas.classify(p, "append", d.edit.anchor) == "cross"
                               for r in gated for d in r.withdrawn),
        "retired": sum(1 for r in gated for d in r.retired if d.accepted),
    }


def prove(
    spec: ProofSpec,
    models: ModelFactory | None = None,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Run the proof and return its summary (the JSON ``prove --json`` prints)."""
    p = load_persona(spec)
    models = models or _simulated_models(p)
    start = time.monotonic()
    baseline = Ledger()
    baseline_test = score_test(p, spec, {s.name: s.initial_text() for s in p.skills}, models,
                               baseline)
    arm = _arm(p, spec, spec.gate, models, progress)
    twin = _arm(p, spec, False, models, progress) if spec.gate else arm
    gated = arm.results
    own = _own(p, gated)
    calls = _calls(arm.ledger)
    calls["target_calls"] += len(baseline.calls)  # the first skill's test score
    twin_calls = len(twin.ledger.calls) if spec.gate else 0
    # Calls a model answered; answers replayed from the cache are counted apart.
    sources = live_and_cached([baseline, arm.ledger] + ([twin.ledger] if spec.gate else []))
    summary: dict[str, Any] = {
        "persona": p.name,
        "seed": spec.seed,
        "nights": spec.nights,
        "gate": spec.gate,
        "target": spec.target,
        "optimizer": spec.optimizer,
        **_test_figures(baseline_test, arm, twin),
        "baseline_val": _round(own[0].baseline_val),
        "after_val": _round(own[-1].after_val),
        **_edit_figures(p, gated),
        **calls,
        "test_calls": len(baseline.calls) + arm.test_calls,
        "ungated_calls": twin_calls,
        "abstained_nights": sum(1 for r in gated if r.abstained),
        **sources,
        "model_calls": sources["live_calls"],
        "cost_usd": round(baseline.total_usd + arm.ledger.total_usd
                          + (twin.ledger.total_usd if spec.gate else 0), 6),
        "stopped": next((r.stopped for r in gated if r.stopped), ""),
        "final_skill": own[-1].skill_after,
        "outside_edit": _outside_edits(p, gated),
        "seconds": round(time.monotonic() - start, 2),
    }
    failures = [n for r in gated for n in r.notes]
    summary["reflect_failures"] = len(failures)
    summary["no_valid_edits"] = (
        f"the optimizer proposed nothing usable ({failures[0]})"
        if failures and not summary["edits_proposed"]
        else ""
    )
    if p.routed:
        summary |= skill_figures.figures(p, spec.seed, spec.config, gated,
                                         models(spec.target, "target", spec.seed),
                                         spec.concurrency)
    return summary


def check(summary: dict[str, Any], min_lift: float = MIN_LIFT) -> None:
    """Raise ``AssertionFailed`` unless the test score rose enough and nothing harmful got in:
    no harmful edit, no cross-skill harmful edit (one that hurts another skill loaded beside
    it, ``cross_accepted``), and no skill changed outside its description value and managed
    regions (``outside_edit``)."""
    problems = []
    if summary["after_test"] is None or summary["lift"] < min_lift:
        problems.append(f"test lift {summary['lift']:+.3f} < required {min_lift:+.2f}")
    if summary["harmful_accepted"]:
        problems.append(f"{summary['harmful_accepted']} harmful edit(s) accepted")
    if summary.get("outside_edit"):
        problems.append(f"a skill changed outside its description and managed regions "
                        f"({summary['outside_edit']})")
    if summary.get("cross_accepted"):
        problems.append(f"{summary['cross_accepted']} cross-skill harmful edit(s) accepted")
    if problems:
        raise AssertionFailed("proof failed: " + "; ".join(problems))


def _outside_edits(p: personas.Persona, results: list[NightResult]) -> str:
    """Why a skill's last text changed more than its description value (in the style its
    frontmatter wrote it) and its managed regions ('' : no skill did; ``real_skill``)."""
    last = {r.skill: r.skill_after for r in results}
    found = [f"{name}: {why}" for name, text in last.items()
             if (why := real_skill.kept_outside(p.initial_skill(name), text))]
    return "; ".join(found)


def _own(p: personas.Persona, results: list[NightResult]) -> list[NightResult]:
    """The nights of the persona's first skill (the one the test and val figures are of)."""
    return [r for r in results if r.skill == p.skill]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
