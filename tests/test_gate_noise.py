"""The noise-adaptive lead: an A/A probe on train sets how deep a comparison's lead may draw.

The simulator plays the target (``oncall``: a noisy one; ``programmer``: a quiet one);
nothing is mocked."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.night import noise
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.replay import default_judge_for
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.sequential import SEQUENTIAL
from skillopt_sleep.records import Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedTarget, build
from skillopt_sleep.sim.prove import ProofSpec, run_nights
from skillopt_sleep.skilldoc import parse


def _scorer(name: str, seed: int) -> tuple[Scorer, dict[str, list[Task]]]:
    p = personas.load(name)
    splits: dict[str, list[Task]] = {}
    for t in personas.tasks(p, seed):
        splits.setdefault(t.split, []).append(t)
    return Scorer(splits, SimulatedTarget(p, seed), default_judge_for, NightConfig(),
                  ThreadPoolExecutor(2)), splits


def _probe(name: str, seed: int) -> tuple[noise.Noise, Scorer, dict[str, list[Task]]]:
    scorer, splits = _scorer(name, seed)
    doc = parse(personas.load(name).initial_skill())
    train = scorer.minibatch("train", doc, 8, seed * 1000)
    return noise.measure(scorer, doc, train, "mixed", 8), scorer, splits


def test_the_probe_replays_only_train_tasks_with_the_twin() -> None:
    found, scorer, splits = _probe("oncall", 3)
    train = {t.id for t in splits["train"]}
    doc = parse(personas.load("oncall").initial_skill())
    drawn = {(h, t) for h, t, _ in scorer._by_task}
    twin = noise.twin(doc)
    assert twin.hash != doc.hash and twin.entries() == doc.entries()
    assert found.pairs == 8
    assert {t for h, t in drawn if h == twin.hash} <= train
    assert all(t in train for _, t in drawn)  # nothing of validation or test was drawn


def test_the_noisy_target_flips_more_checks_than_the_quiet_one() -> None:
    def mean(name: str) -> float:
        return sum(_probe(name, seed)[0].ratio for seed in range(6)) / 6

    noisy, quiet = mean("oncall"), mean("programmer")
    cfg = NightConfig()
    assert noisy >= cfg.noisy_flips > quiet
    assert noisy > 2 * quiet


def test_the_lead_deepens_only_past_the_threshold() -> None:
    cfg = NightConfig()
    quiet = noise.Noise(changed=1, room=40, pairs=8)
    loud = noise.Noise(changed=10, room=40, pairs=8)
    assert noise.lead_depth(quiet, 3, cfg) == 3
    assert noise.lead_depth(loud, 3, cfg) == round(cfg.noisy_lead * 3)
    assert noise.lead_depth(loud, 3, replace(cfg, noisy_flips=0)) == 3  # 0: never
    assert noise.lead_depth(noise.Noise(0, 0, 0), 3, cfg) == 3  # nothing measured
    with pytest.raises(ConfigError):
        NightConfig(noisy_lead=0.5)


def test_a_deep_lead_chosen_by_the_probe_keeps_the_level_under_the_null() -> None:
    """A candidate that states nothing new (the incumbent with a blank line more) compared at
    the depth the noisy probe chose: accepted no more often than alpha. The depth is read
    from train before any validation answer, so the sign test's null law holds as it is."""
    p = personas.load("oncall")
    incumbent = parse(p.initial_skill())
    test = replace(SEQUENTIAL, harm=10.0, screen_pairs=10_000, curtail=0.0)
    accepted = runs = 0
    rng = random.Random(3)
    for seed in range(60):
        found, scorer, splits = _probe("oncall", seed)
        depth = noise.lead_depth(found, 3, NightConfig())
        val = splits["validation"]
        for k in range(3):
            candidate = parse(p.initial_skill() + "\n" * (2 + k))
            cited = [t.id for t in rng.sample(splits["train"], 2)]
            verdict = scorer.compare(test, incumbent, candidate, 0, 3, "",
                                     cited=cited, lead_repeats=depth)
            accepted += verdict.accepted
            runs += 1
            assert verdict.comparison.n_pairs <= 3 * len(val) + (depth - 3) * len(val)
    assert accepted / runs <= 0.05 + 2 * (0.05 * 0.95 / runs) ** 0.5


def test_the_probe_is_paid_once_and_read_again_the_next_night() -> None:
    """The probe's pairs are carried to the next night and on from there."""
    p = personas.load("oncall")
    spec = ProofSpec(persona="oncall", seed=2, nights=2,
                     config=NightConfig(steps=1, slow_update=False))
    first, second = run_nights(p, spec, True, lambda _s, role, s: build(p, s, role),
                               score_test=False)
    held = [r for _, r in first.carried if r.skill_hash in noise.PROBE]
    assert len(held) == 16 and {r.task_id for r in held} <= {
        t.id for t in personas.tasks(p, 2) if t.split == "train"}
    assert sum(r.skill_hash in noise.PROBE for _, r in second.carried) == 16


def test_a_night_without_the_probe_carries_none_and_draws_no_twin() -> None:
    p = personas.load("oncall")
    spec = ProofSpec(persona="oncall", seed=2, nights=1,
                     config=NightConfig(steps=1, slow_update=False, noise_probe=0))
    [result] = run_nights(p, spec, True, lambda _s, role, s: build(p, s, role),
                          score_test=False)
    assert not any(r.skill_hash in noise.PROBE for _, r in result.carried)


def test_carried_pairs_are_read_without_a_new_twin() -> None:
    first, scorer, _ = _probe("oncall", 4)
    pairs = [r for h in noise.PROBE for r in scorer.rollouts_of(h)]
    fresh, _ = _scorer("oncall", 4)
    fresh.preload(pairs)
    other = parse(personas.load("oncall").initial_skill() + "\n- Be brief.\n")
    again = noise.measure(fresh, other, [], "mixed", 8)
    assert again == first and first.pairs == 8
    assert not any(h == noise.twin(other).hash for h, _, _ in fresh._by_task)
