"""The gate's screening without shared words: where it looks first and which edit is familiar.

The order of a comparison's pairs comes from the answers the edit's evidence failed
(``usage.evidenced``), and whether an edit is familiar from whether its first look's pairs
differ at all (``night.sequential``), never from their signs, so the level is never
exceeded. The simulator plays the target (``sim.wording``: a correct rule worded without any
checked word, a neutral text reusing them); nothing is mocked.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.replay import default_judge_for
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.sequential import SEQUENTIAL
from skillopt_sleep.night.usage import evidenced
from skillopt_sleep.records import JudgeSpec, Rollout, Score, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedTarget
from skillopt_sleep.sim.persona import Persona
from skillopt_sleep.skilldoc import SkillDoc, parse


def _run(deltas: list[float], alpha: float = 0.05, familiar_alpha: float = 0.01,
         test=SEQUENTIAL) -> gate.Verdict:
    def draw(n: int) -> tuple[list[Rollout], list[Rollout]]:
        inc = [Rollout(f"t{i}", 0, "i", score=Score(0.5, 0.5)) for i in range(n)]
        cand = [Rollout(f"t{i}", 0, "c", score=Score(0.5 + d / 2, 0.5 + d / 2))
                for i, d in enumerate(deltas[:n])]
        return inc, cand

    return gate.compare(test, draw, max_pairs=len(deltas), metric="mixed", alpha=alpha,
                        margin=0.0, familiar=None, familiar_alpha=familiar_alpha)


def test_familiar_is_read_from_whether_the_first_look_differs_not_from_its_words() -> None:
    quiet = _run([0.0] * 3 + [1.0] * 42)
    assert not quiet.accepted and quiet.comparison.n_pairs == 3  # screened from the first look
    moved = _run([1.0, 0.0, 0.0] + [0.0] * 3 + [1.0] * 39)
    assert moved.accepted  # a look with a pair that differs: screened from the second on
    # Familiar only: a first look with one pair differing passes at 0.05 but not at 0.01.
    lucky = [0.0, 1.0, 0.0] + [1.0] * 5 + [0.0] * 37
    one = replace(SEQUENTIAL, quiet=1)
    assert _run(lucky, familiar_alpha=0.05, test=one).accepted
    assert not _run(lucky, test=one).accepted


def test_a_level_read_from_the_first_look_is_never_exceeded() -> None:
    # Without drops (which only lower it), so the levels are nearly used up. Under the null
    # each pair differs at random and its sign is a fair coin whatever differs, so each
    # branch holds its own level: familiar_alpha for a quiet first look, alpha otherwise.
    test = replace(SEQUENTIAL, harm=10.0, screen_pairs=10_000, familiar_screen_pairs=10_000,
                   curtail=0.0, quiet=1)
    rng = random.Random(7)
    seen = {True: [0, 0], False: [0, 0]}
    for _ in range(3000):
        deltas = [rng.choice((1.0, -1.0)) if rng.random() < 0.4 else 0.0 for _ in range(45)]
        quiet = sum(1 for d in deltas[:3] if d) <= 1
        seen[quiet][0] += _run(deltas, test=test).accepted
        seen[quiet][1] += 1
    for quiet, level in ((True, 0.01), (False, 0.05)):
        accepted, runs = seen[quiet]
        assert runs > 800
        assert accepted / runs <= level + 2 * (level * (1 - level) / runs) ** 0.5
    assert seen[False][0] / seen[False][1] > 0.02  # the branches differ: not one level


def _task(i: int, checks: list[dict]) -> Task:
    return Task(id=f"v{i}", family_id=f"f{i}", intent="x", split="validation",
                judge=JudgeSpec(kind="rules", checks=checks))


def test_evidence_points_at_the_check_that_sets_the_cited_failures_apart() -> None:
    a, b = {"op": "contains", "text": "--dry-run"}, {"op": "min_chars", "n": 200}
    tasks = [_task(0, [a]), _task(1, [b]), _task(2, [a, b]), _task(3, [])]
    cited = [{describe(a), describe(b)}, {describe(a), describe(b)}]
    shown = [*cited, {describe(b)}, {describe(b)}, set()]  # b fails everywhere, a where cited
    assert [t.id for t in evidenced(cited, shown, tasks)] == ["v0", "v2"]
    assert evidenced([{describe(a)}, {describe(b)}], shown, tasks) == []  # nothing in common
    assert evidenced([], shown, tasks) == []


def _scorer(p: Persona, seed: int, screen: str) -> tuple[Scorer, SkillDoc]:
    splits: dict[str, list[Task]] = {}
    for t in personas.tasks(p, seed):
        splits.setdefault(t.split, []).append(t)
    scorer = Scorer(splits, SimulatedTarget(p, seed), default_judge_for,
                    NightConfig(screen=screen), ThreadPoolExecutor(2))  # type: ignore[arg-type]
    return scorer, parse(p.initial_skill())


def _failing(scorer: Scorer, doc: SkillDoc, rule_id: str, seed: int) -> list[str]:
    """Train tasks whose answers failed the rule's check, as a minibatch shows them."""
    held = scorer.minibatch("train", doc, 12, seed)
    return [r.task_id for r in held if f"rule {rule_id}" in r.score.rationale
            or any(c.get("why") == rule_id and describe(c) in r.score.rationale
                   for t in scorer.splits["train"] if t.id == r.task_id
                   for c in t.judge.checks)]


@pytest.mark.parametrize("name", ["devops", "researcher"])
def test_a_correct_rule_in_other_words_is_not_penalised(name: str) -> None:
    p = personas.load(name)
    accepted = {"behaviour": 0, "words": 0}
    for seed in range(4):
        for screen in accepted:
            scorer, doc = _scorer(p, seed, screen)
            for rule in p.rules:
                cited = _failing(scorer, doc, rule.id, seed)
                said = rule.unworded[0]
                cand = parse(doc.text + f"\n- {said}\n")
                lead = scorer.lead(doc, cited, said)
                if screen == "behaviour" and cited:  # its evidence, not its words, leads
                    theirs = [t for t in scorer.splits["validation"]
                              if any(c.get("why") == rule.id for c in t.judge.checks)]
                    assert lead == theirs, rule.id
                verdict = scorer.compare(SEQUENTIAL, doc, cand, 0, 3, said, cited, said)
                accepted[screen] += verdict.accepted
    # By words, a rule that shares no checked word is familiar: tested at 0.01, screened at
    # the first look on tasks it does not touch. By behaviour it is tested as any new rule.
    assert accepted["behaviour"] > accepted["words"]
    assert accepted["behaviour"] >= 0.6 * 4 * len(p.rules)


def test_a_neutral_text_reusing_checked_words_is_accepted_no_more_than_alpha() -> None:
    runs = accepted = 0
    for name in ("analyst", "devops", "programmer", "researcher"):
        p = personas.load(name)
        for seed in range(3):
            scorer, doc = _scorer(p, seed, "behaviour")
            held = scorer.minibatch("train", doc, 12, seed)
            for i, text in enumerate(p.optimizer["vocab_neutral_texts"]):
                cited = [held[i % len(held)].task_id]
                cand = parse(doc.text + f"\n- {text}\n")
                accepted += scorer.compare(SEQUENTIAL, doc, cand, 0, 3, text, cited,
                                           text).accepted
                runs += 1
    assert runs == 60 and accepted / runs <= 0.05
