"""The trigger gate's order: a candidate's own validation tasks are routed first, and the
other skills' tasks only for one whose recall passes (the verdict is the same either way)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from skillopt_sleep.firewall import Context
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.describe import Describer, TriggerSetup
from skillopt_sleep.night.trigger import SkillCard
from skillopt_sleep.records import JudgeSpec, Message, Task
from skillopt_sleep.skilldoc import parse

S, OTHER = "release-notes", "code-review"


def _tasks(skill: str, intent: str, n_val: int) -> list[Task]:
    return [Task(f"{skill}:{s}:{i}", f"{skill}:{s}", f"{intent} for module {i}.", JudgeSpec(),
                 split=s, skill=skill)
            for s, n in (("train", 6), ("validation", n_val)) for i in range(n)]


def _night(lucky: bool, broad: int = 0
           ) -> tuple[list[dict[str, object]], list[tuple[str, str, int]]]:
    """One description step; the candidate "Changelog updates." routes an own task here on
    sample 0 only (``lucky``: on every sample), and the first ``broad`` of the other skill's
    tasks here too."""
    own, foreign = _tasks(S, "Update the changelog", 2), _tasks(OTHER, "Review the pr", 6)
    asked: list[tuple[str, str, int]] = []

    def model(messages: Sequence[Message], seed: int) -> str:
        body = messages[-1]["content"]
        if "<mode>description</mode>" in body:
            return json.dumps({"descriptions": ["Changelog updates."]})
        cards = {c["name"]: c["description"] for c in json.loads(
            body.split("<installed_skills>\n", 1)[1].split("\n</installed_skills>")[0])}
        task = body.split("<task>\n", 1)[1].split("\n</task>")[0]
        asked.append((cards[S], task, seed))
        if "changelog" in task:
            return S if "Changelog" in cards[S] and (lucky or seed == 0) else "none"
        hit = any(f"module {i}." in task for i in range(broad))
        return S if hit and "Changelog" in cards[S] else OTHER

    llm = ScriptedLLM(model)
    with ThreadPoolExecutor(2) as pool:
        describer = Describer(
            S, llm, llm, TriggerSetup([SkillCard(OTHER, "Reviews every pr.")],
                                      foreign_tasks=foreign, rounds=1),
            {s: [t for t in own if t.split == s] for s in ("train", "validation")},
            NightConfig(val_repeats=3, score_test=False), pool, Context())
        report = describer.run(parse(f"---\nname: {S}\ndescription: Housekeeping.\n---\n"))
    return report[1]["decisions"], asked


def _foreign_validation(asked: list[tuple[str, str, int]]) -> list[str]:
    """The other skill's tasks routed with the candidate for the gate (the report's own
    samples, from 10,000 on, left out)."""
    return [task for description, task, seed in asked
            if description == "Changelog updates." and "Review the pr" in task
            and seed < 10_000]


def test_a_candidate_recall_rejects_routes_no_other_skills_task() -> None:
    decisions, asked = _night(lucky=False)
    # Past the one-sample screen (both own tasks gained), then 2 gains and 4 ties: p = 0.25.
    assert [d["accepted"] for d in decisions] == [False]
    assert "recall gain not significant" in str(decisions[0]["reason"])
    assert _foreign_validation(asked) == []


def test_a_candidate_recall_passes_is_checked_on_the_other_skills_tasks() -> None:
    decisions, asked = _night(lucky=True)
    assert [d["accepted"] for d in decisions] == [True]
    assert decisions[0]["foreign_pairs"] == 18  # 6 tasks of the other skill, 3 samples each
    assert len(_foreign_validation(asked)) == 18


def test_a_candidate_that_loads_for_other_work_on_one_sample_is_rejected_there() -> None:
    """One of the other skill's six tasks routed here on the first sample: +1 over the 18
    pairs of every sample is over the tolerance (0.05) even if the other samples all tied,
    so the candidate is rejected without routing them (one that routes none goes on to
    every sample: the test above)."""
    for broad in (1, 2):
        decisions, asked = _night(lucky=True, broad=broad)
        assert [d["accepted"] for d in decisions] == [False]
        assert "false triggers up on one sample" in str(decisions[0]["reason"])
        assert len(_foreign_validation(asked)) == 6
