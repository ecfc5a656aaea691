"""What one night for one skill is given: its tasks, the skill, the models, its memory of
earlier nights, and what the skill shares the agent with (the trigger check's other skills,
the cross check's neighbours, entries to try retiring)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field

from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.cross import Neighbour
from skillopt_sleep.night.describe import TriggerSetup
from skillopt_sleep.night.memory import Memory
from skillopt_sleep.night.replay import JudgeFor, default_judge_for
from skillopt_sleep.records import Task


@dataclass
class NightInputs:
    tasks: Sequence[Task]
    skill_text: str
    skill_name: str
    target: LLM
    optimizer: LLM
    night_id: str
    project: str = ""
    config: NightConfig = field(default_factory=NightConfig)
    judge_for: JudgeFor = default_judge_for
    memory: Memory = field(default_factory=Memory)
    seed: int = 0
    progress: Callable[[str], None] = lambda _msg: None
    executor: Executor | None = None
    """Runs the replays of a step (any ``concurrent.futures.Executor``: a thread pool, a Dask
    client's ``get_executor()`` …); ``None``: the night's own pool of ``config.concurrency``."""
    trigger: TriggerSetup | None = None
    """The other installed skills (and their tasks) for the trigger check, which may edit
    the description (``night.describe``); ``None``: no trigger check."""
    neighbours: Sequence[Neighbour] = ()
    """Skills loaded beside this one: an accepted edit that hurts one of them is rejected
    (``night.cross``)."""
    cross_tasks: int = 12
    """How many of a neighbour's tasks one cross check replays (``cross.focus``)."""
    recheck: Sequence[str] = ()
    """The neighbours that changed since this skill's last night (all of them when the
    skill's own document did, outside its nights): its entries are re-checked against them
    first, and those that now lower one are withdrawn (``cross.changed``, ``cross.withdraw``)."""
    retire: Sequence[str] = ()
    """Learned entries no task exercised for a while, tried as gated deletions first
    (``night.retire``)."""

    def __post_init__(self) -> None:
        # ``recheck`` names neighbours; it was a flag once, and a bool or a bare name would
        # otherwise fail deep inside the cross check (or match letters of a name).
        if isinstance(self.recheck, (bool, str)):
            raise TypeError(f"NightInputs.recheck takes the names of the neighbours to "
                            f"re-check (cross.changed), not {self.recheck!r}")
