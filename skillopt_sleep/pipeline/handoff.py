"""A night that waits for hand-off answers, and its resumption.

With the ``handoff`` backend every model call is a prompt file the user's own agent
answers; a run stops (exit code 3) once the batch of calls it is in has written its
prompts (every replay of the batch, whatever the concurrency), and the next run asks again.
A night that had to harvest and mine before each of those re-runs would pay for both every
time, and a task set that moved in between (new sessions, new families) would ask new
questions, so the answers written never line up. So a waiting night keeps its tasks and id
in ``<state>/handoff/resume.json``; the next run for that project resumes them without
harvesting or mining, and the file goes once the night ends (staged, failed, or with no
hand-off role configured any more).

Waiting is a state, not an error: ``Waiting`` says how many prompts have no answer yet,
counted from the files when the run stops (not when the first prompt was written).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep import paths
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.config import Settings
from skillopt_sleep.records import from_dict, to_dict

if TYPE_CHECKING:
    from skillopt_sleep.records import Task

__all__ = ["Waiting", "clear", "load", "save", "uses_handoff", "waiting"]

RESUME = "resume.json"


@dataclass
class Waiting:
    """A night stopped for hand-off answers: how many prompts have none, and where."""

    pending: int
    pending_dir: str
    answers_dir: str
    resumes: str
    """The night id the next run resumes ("" when nothing can be resumed)."""

    @property
    def message(self) -> str:
        return (f"waiting for {self.pending} answer(s): answer each prompt in "
                f"{self.pending_dir} by writing {self.answers_dir}/<same file name>, then run "
                "the same command again" + (f" (it resumes night {self.resumes} without "
                                            "harvesting or mining again)" if self.resumes else ""))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def uses_handoff(settings: Settings) -> bool:
    """Whether any role a night may call answers through hand-off files."""
    # Here, not at the top: every run asks ``load``, and the models load with this.
    from skillopt_sleep.models.build import role_specs

    return any(spec.split(":", 1)[0] == "handoff" for spec in role_specs(settings).values())


def _file() -> Path:
    return paths.handoff_dir() / RESUME


def save(project: str, night_id: str, by_skill: dict[str, list[Task]]) -> None:
    """Keep the waiting night's id and tasks for the next run of ``project``."""
    data = {"project": project, "night_id": night_id,
            "tasks": {skill: [to_dict(t) for t in tasks] for skill, tasks in by_skill.items()}}
    write_atomic(paths.ensure(paths.handoff_dir()) / RESUME, json.dumps(data).encode("utf-8"))


def load(project: str, settings: Settings) -> tuple[str, dict[str, list[Task]]] | None:
    """The waiting night of ``project`` to resume (its id and tasks), if there is one and a
    hand-off role is still configured; a file that can no longer resume is removed."""
    path = _file()
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("project") != project:
            return None  # another project's night: it resumes when that project runs
        if not uses_handoff(settings):
            clear(project)
            return None
        from skillopt_sleep.records import Task

        tasks = {skill: [from_dict(Task, t) for t in rows]
                 for skill, rows in data["tasks"].items()}
        return str(data["night_id"]), tasks
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        clear()  # unreadable: harvest and mine afresh
        return None


def clear(project: str | None = None) -> None:
    """The waiting night of ``project`` ended (or cannot resume; None: whichever it is): the
    next run starts afresh. Another project's waiting night is left to resume."""
    path = _file()
    if project is not None:
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("project") != project:
                return
        except FileNotFoundError:
            return
        except (OSError, ValueError, AttributeError):
            pass  # unreadable: it can resume nothing
    path.unlink(missing_ok=True)


def waiting(resumes: str) -> Waiting:
    """The hand-off folder's state now: prompts without an answer, counted from the files."""
    from skillopt_sleep.models.handoff import unanswered

    folder = paths.handoff_dir()
    return Waiting(pending=len(unanswered(folder)), pending_dir=str(folder / "pending"),
                   answers_dir=str(folder / "answers"), resumes=resumes)
