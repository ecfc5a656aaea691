"""What a skill's next night reuses of tonight's replays, so that it does not pay for the
same answers twice.

Tonight's final skill is tomorrow's incumbent. Its answers that no gate decision selected
are honest samples of it, and tomorrow would otherwise replay the same tasks for them: all
its train and test answers, and its validation answers from ``first`` on. When the final
skill won a comparison tonight, the pairs it won on were selected by that win (the
winner's curse) and a replay of the same sample could serve them again from the call
cache, so tomorrow starts at the next block (``first``: tonight's first sample plus
``val_repeats``), on samples no gate has used; otherwise at tonight's first. A carried
answer is reused only for the same skill text (hash), task id and task content
(``task_key``: intent, context and judge), so a task whose judge changed is replayed.
Failed calls and judgements are never carried.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from skillopt_sleep._codec import to_dict
from skillopt_sleep.archive.carried import Carried
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.records import Rollout, Split, Task, sha256_text


def task_key(task: Task) -> str:
    """A fingerprint of what a task asks and how it is judged."""
    return sha256_text(json.dumps([task.intent, task.context, to_dict(task.judge)],
                                  sort_keys=True, default=str))[:24]


def reusable(tasks: Sequence[Task], carried: Carried) -> list[Rollout]:
    """The carried answers of ``tasks`` that are unchanged since they were drawn."""
    keys = {t.id: task_key(t) for t in tasks}
    return [r for key, r in carried.rollouts if keys.get(r.task_id) == key and r.usable]


def preload(scorer: Scorer, tasks: Sequence[Task], carried: Carried) -> int:
    """Put the carried answers of tonight's unchanged tasks into ``scorer``; how many."""
    usable = reusable(tasks, carried)
    scorer.preload(usable)
    return len(usable)


def kept(scorer: Scorer, tasks: Sequence[Task], skill_hash: str, first: int) -> list[
        tuple[str, Rollout]]:
    """``(task_key, rollout)`` of the final skill that tomorrow may reuse (see the module)."""
    by_id = {t.id: t for t in tasks}
    val = Split.VALIDATION.value
    return [(task_key(by_id[r.task_id]), r) for r in scorer.rollouts_of(skill_hash)
            if r.usable and r.task_id in by_id
            and (by_id[r.task_id].split != val or r.sample >= first)]
