"""``lead_repeats``: more samples of the tasks a comparison leads with, fixed before any answer.

The simulator plays the target; nothing is mocked."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.replay import default_judge_for
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.sequential import SEQUENTIAL
from skillopt_sleep.records import Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedTarget
from skillopt_sleep.skilldoc import parse


def _scorer(name: str, seed: int = 0) -> tuple[Scorer, list[Task]]:
    p = personas.load(name)
    splits: dict[str, list[Task]] = {}
    for t in personas.tasks(p, seed):
        splits.setdefault(t.split, []).append(t)
    scorer = Scorer(splits, SimulatedTarget(p, seed), default_judge_for, NightConfig(),
                    ThreadPoolExecutor(2))
    return scorer, splits["validation"]


def test_the_lead_gets_its_samples_first_and_the_others_as_before() -> None:
    scorer, val = _scorer("oncall")
    lead = val[:3]
    plain = scorer._order("validation", 5, 3 * len(val), lead, 3)
    deep = scorer._order("validation", 5, 3 * len(val) + 3 * len(lead), lead, 3, 6)
    assert deep[:18] == [(t, 5 + s) for s in range(6) for t in lead]
    # After the lead, the other tasks in the same rounds as without the deeper lead.
    assert deep[18:] == plain[9:]
    assert scorer._order("validation", 5, 20, lead, 3, 0) == plain[:20]  # 0: as before


def test_a_deeper_lead_draws_more_pairs_only_where_the_comparison_leads() -> None:
    """A correct rule on the hard persona: with the lead twice as deep, the comparison may
    draw more pairs, all of them on the tasks its evidence points at."""
    scorer, val = _scorer("oncall")
    p = personas.load("oncall")
    rule = p.rule("ticket")
    incumbent = parse(p.initial_skill())
    candidate = parse(p.initial_skill() + f"\n- {rule.text}\n")
    lead = scorer.lead(incumbent, (), rule.text)  # the tasks its words touch
    assert lead and len(lead) < len(val)
    verdict = scorer.compare(SEQUENTIAL, incumbent, candidate, 0, 3, rule.text,
                             lead_repeats=6)
    drawn = {(t, s) for (h, t, s) in scorer._by_task if h == candidate.hash}
    deep = {(t.id, s) for t in lead for s in range(3, 6)}
    others = {(t.id, s) for t in val if t not in lead for s in range(3, 6)}
    assert verdict.comparison.n_pairs > 0
    assert not drawn & others  # the deeper samples are the lead's alone
    if verdict.comparison.n_pairs > 3 * len(lead):
        assert drawn & deep
