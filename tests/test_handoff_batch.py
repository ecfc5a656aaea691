"""Hand-off answers come in batches: one run writes every prompt of a batch of replays,
whatever the concurrency, and a judge waiting for an answer stops the night instead of
scoring the answer as a failure."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillopt_sleep.errors import HandoffPending
from skillopt_sleep.models.handoff import HandoffLLM, unanswered
from skillopt_sleep.night.replay import replay
from skillopt_sleep.records import JudgeSpec, Score, Task, ToolCall

JUDGE = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "pytest -q"}])
TASKS = [Task(id=f"t{i}", family_id=f"f{i}", intent=f"fix bug number {i}", judge=JUDGE,
              split="validation") for i in range(5)]


def _replay(folder: Path, workers: int) -> list:
    with ThreadPoolExecutor(workers) as pool:
        return replay(TASKS, "# skill\n", HandoffLLM(folder), samples=2, executor=pool)


@pytest.mark.parametrize("workers", [1, 4])
def test_one_run_writes_every_prompt_of_the_batch_at_any_concurrency(tmp_path: Path,
                                                                     workers: int) -> None:
    folder = tmp_path / "handoff"
    with pytest.raises(HandoffPending):
        _replay(folder, workers)
    prompts = unanswered(folder)
    assert len(prompts) == len(TASKS) * 2  # not one prompt, nor `workers` prompts
    for prompt in prompts:
        (folder / "answers" / prompt.name).write_text("Ran pytest -q; fixed.\n")
    rollouts = _replay(folder, workers)  # the same prompts, now answered: no new one
    assert [(r.task_id, r.sample) for r in rollouts] == [(t.id, s) for t in TASKS
                                                         for s in (0, 1)]
    assert all(r.score.hard == 1.0 for r in rollouts) and not unanswered(folder)


def test_the_prompt_files_do_not_depend_on_the_concurrency(tmp_path: Path) -> None:
    names = []
    for workers in (1, 4):
        with pytest.raises(HandoffPending):
            _replay(tmp_path / str(workers), workers)
        names.append({p.name for p in unanswered(tmp_path / str(workers))})
    assert names[0] == names[1]


class _WaitingJudge:
    """A judge answered through hand-off files that has no answer yet."""

    def score(self, task: Task, text: str, tool_calls: list[ToolCall]) -> Score:
        raise HandoffPending("waiting for 1 answer(s)")


def test_a_judge_waiting_for_an_answer_stops_the_replay(tmp_path: Path) -> None:
    folder = tmp_path / "handoff"
    llm = HandoffLLM(folder)
    with pytest.raises(HandoffPending), ThreadPoolExecutor(1) as pool:
        replay(TASKS[:1], "# skill\n", llm, samples=1, executor=pool)
    for prompt in unanswered(folder):
        (folder / "answers" / prompt.name).write_text("done\n")
    with pytest.raises(HandoffPending), ThreadPoolExecutor(1) as pool:
        replay(TASKS[:1], "# skill\n", llm, samples=1, executor=pool,
               judge_for=lambda task: _WaitingJudge())  # type: ignore[arg-type,return-value]


def test_reflection_writes_the_prompt_of_every_minibatch_in_one_run(tmp_path: Path) -> None:
    from skillopt_sleep.night.reflect import reflect
    from skillopt_sleep.records import Rollout

    scored = [(t, Rollout(t.id, 0, "h", response="x", score=Score(hard=float(i % 2))))
              for i, t in enumerate(TASKS)]
    folder = tmp_path / "handoff"
    with pytest.raises(HandoffPending):
        reflect(HandoffLLM(folder), skill="# skill\n", scored=scored, rejected=[], notes=[],
                batch_size=2, max_edits=3, max_success_batches=1, seed=0)
    # Failures in two minibatches of two, and one minibatch of successes: three prompts.
    assert len(unanswered(folder)) == 3
