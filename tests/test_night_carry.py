"""A skill's next night reuses what the last night's final skill answered, never a winner's
own samples, and replays a task whose content changed; within a night, the slow update reuses
what the first step drew."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skillopt_sleep.archive.carried import Carried, carried, keep
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.carry import task_key
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.memory import recall, remember
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.records import JudgeSpec, Message, NightResult, Rollout, Score, Task
from tests.test_night import GOOD, make_tasks, optimizer_reply, target_reply

SKILL = "---\nname: fix\ndescription: d\n---\nFix bugs.\n"


def _night(archive: Archive, night_id: str, tasks: list[Task], skill: str, optimizer: ScriptedLLM,
           asked: list[tuple[str, str, int]], screen: str = "behaviour") -> NightResult:
    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append((messages[0]["content"], messages[-1]["content"], seed))
        return target_reply(messages, seed)

    result = run_night(NightInputs(
        tasks=tasks, skill_text=skill, skill_name="fix", target=ScriptedLLM(target),
        optimizer=optimizer, night_id=night_id, project="p", memory=recall(archive, "p", "fix"),
        config=NightConfig(steps=1, slow_update=False, score_test=False, screen=screen)))
    remember(archive, result)
    return result


def test_the_next_night_reuses_the_final_skills_answers_and_starts_on_fresh_samples(
    tmp_path: Path,
):
    archive = Archive(tmp_path / "a.sqlite3")
    tasks = make_tasks()
    first_asked: list[tuple[str, str, int]] = []
    first = _night(archive, "n1", tasks, SKILL, optimizer_reply(
        [{"op": "append", "text": GOOD, "tasks": ["t0", "t1"]}]), first_asked)
    assert first.accepted and first.carried_first > 0  # the winner's block is behind it
    val_ids = {t.id for t in tasks if t.split == "validation"}
    # The winner's own validation answers (the samples it won on) are not carried.
    assert all(r.sample >= first.carried_first for _, r in first.carried if r.task_id in val_ids)

    second_asked: list[tuple[str, str, int]] = []
    second = _night(archive, "n2", tasks, first.skill_after, optimizer_reply([]), second_asked)
    again = set(first_asked) & set(second_asked)
    assert not again  # nothing the first night asked is asked again
    # The second night's baseline is the final skill's carried answers, on fresh samples.
    seeds = {seed for _, user, seed in second_asked if any(f"number {i[1:]}" in user
                                                          for i in val_ids)}
    assert not seeds or min(seeds) >= first.carried_first
    assert second.baseline_val is not None


def test_a_task_whose_judge_changed_is_replayed_not_reused(tmp_path: Path):
    archive = Archive(tmp_path / "a.sqlite3")
    tasks = make_tasks()
    _night(archive, "n1", tasks, SKILL, optimizer_reply([]), [])
    held = carried(archive, "p", "fix")
    assert held.rollouts
    stricter = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "regression"}])
    changed = [replace(t, judge=stricter) if t.id == "t5" else t for t in tasks]
    assert task_key(changed[5]) != task_key(tasks[5])
    asked: list[tuple[str, str, int]] = []
    # An edit to gate, so that the incumbent's validation answers are needed (in the word
    # rule's order its comparison reaches task 5 before it is screened; the answers' order
    # leads with the tasks its cited failures point at, and drops it before).
    _night(archive, "n2", changed, SKILL, optimizer_reply(
        [{"op": "append", "text": "Name the failing test.", "tasks": ["t0", "t1"]}]), asked,
        screen="words")
    # The first night drew the incumbent's first validation sample (for its report).
    incumbent = {(user, seed) for system, user, seed in asked if "failing test" not in system}
    assert any("fix bug number 5" in u and seed == 0 for u, seed in incumbent)
    assert not any("fix bug number 6" in u and seed == 0 for u, seed in incumbent)  # reused


def test_the_archive_keeps_one_night_of_usable_answers_per_skill(tmp_path: Path):
    archive = Archive(tmp_path / "a.sqlite3")
    good = Rollout("t1", 3, "h", response="ok", score=Score(hard=1.0, soft=0.5))
    failed = Rollout("t2", 3, "h", error="model call failed: 500")
    keep(archive, "p", "fix", "n1", Carried(3, [("k1", good), ("k2", failed)]))
    held = carried(archive, "p", "fix")
    assert held.first == 3 and [(k, r.task_id, r.score.hard) for k, r in held.rollouts] == [
        ("k1", "t1", 1.0)]
    keep(archive, "p", "fix", "n2", Carried(6, []))  # a night that carries nothing new
    held = carried(archive, "p", "fix")
    assert held.first == 6 and held.rollouts == []
    assert carried(archive, "p", "other") == Carried()


def test_the_slow_update_replays_only_todays_skill_on_the_first_steps_minibatch():
    """Yesterday's skill answered the first step's minibatch already: the slow update reads
    those answers again and replays only today's skill on the same tasks."""
    asked: list[tuple[str, str, int]] = []

    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append((messages[0]["content"], messages[-1]["content"], seed))
        return target_reply(messages, seed)

    opt = optimizer_reply([{"op": "append", "text": GOOD, "tasks": ["t0", "t1"]}])
    inputs = NightInputs(tasks=make_tasks(), skill_text="Fix bugs.\n", skill_name="fix",
                         target=ScriptedLLM(target), optimizer=opt, night_id="n", seed=3,
                         config=NightConfig(steps=1, train_batch=2, score_test=False))
    result = run_night(inputs)
    assert result.steps[0].decisions[0].accepted and result.skill_after != "Fix bugs.\n"
    train = {f"fix bug number {i}" for i in range(4)}

    def train_answers(skill: str) -> set[str]:
        return {m for s, m, _ in asked if skill in s and (GOOD in s) == (skill == GOOD)
                and any(re.search(rf"{i}\b", m) for i in train)}

    yesterday, today = train_answers("Fix bugs."), train_answers(GOOD)
    assert len(yesterday) == 2  # the step's minibatch, read twice
    assert today == yesterday  # today's skill on the same two tasks
    assert len(asked) == len(set(asked))
