"""Queries on the carried rollouts (``m0016_carried_rollouts``): what a skill's last night
leaves its next night to reuse instead of replaying. Which rollouts qualify is decided in
``night.carry``; only usable ones are kept (a failed call or judgement is replayed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import Rollout, Score
from skillopt_sleep.secrets import redact

__all__ = ["Carried", "carried", "keep"]


@dataclass
class Carried:
    first: int = 0
    """The validation sample the next night starts at."""
    rollouts: list[tuple[str, Rollout]] = field(default_factory=list)
    """``(task_key, rollout)`` of the last night's final skill."""


def keep(archive: Archive, project: str, skill: str, night_id: str, carry: Carried) -> None:
    """Replace what ``skill`` of ``project`` carries with ``carry``."""
    rows = [(project, skill, night_id, carry.first, r.skill_hash, r.task_id, key, r.sample,
             r.score.hard, r.score.soft, redact(r.score.rationale)[0], redact(r.response)[0])
            for key, r in carry.rollouts if r.usable]
    with archive.transaction() as conn:
        conn.execute("DELETE FROM carried_rollouts WHERE project = ? AND skill = ?",
                     (project, skill))
        conn.executemany(
            "INSERT OR REPLACE INTO carried_rollouts (project, skill, night_id, first,"
            " skill_hash, task_id, task_key, sample, hard, soft, rationale, response)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        if not rows:  # the sample to start at is kept even when nothing else is
            conn.execute(
                "INSERT INTO carried_rollouts (project, skill, night_id, first, skill_hash,"
                " task_id, task_key, sample, hard, soft) VALUES (?,?,?,?,'','','',-1,0,0)",
                (project, skill, night_id, carry.first))


def carried(archive: Archive, project: str, skill: str) -> Carried:
    """What the last night of ``skill`` of ``project`` left to reuse (nothing: ``Carried()``)."""
    rows = archive.conn.execute(
        "SELECT first, skill_hash, task_id, task_key, sample, hard, soft, rationale, response"
        " FROM carried_rollouts WHERE project = ? AND skill = ?", (project, skill)).fetchall()
    found = Carried(first=max((r[0] for r in rows), default=0))
    for _, skill_hash, task_id, key, sample, hard, soft, rationale, response in rows:
        if sample >= 0:
            found.rollouts.append((key, Rollout(task_id, sample, skill_hash, response=response,
                                                score=Score(hard=hard, soft=soft,
                                                            rationale=rationale))))
    return found
