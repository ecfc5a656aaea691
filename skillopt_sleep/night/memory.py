"""What a skill's nights remember of each other: the rejected-edit buffer, meta notes and
the answers of the last night's final skill.

A night reads its memory from its inputs and never writes anywhere; whoever runs it
(the pipeline, the proof) loads the memory before with ``recall`` and keeps tonight's
lessons after with ``remember``. So a night is a pure function of its inputs and models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skillopt_sleep.archive import carried as carrying
from skillopt_sleep.archive.carried import Carried
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.night import meta
from skillopt_sleep.records import GateDecision, NightResult


@dataclass
class Memory:
    rejected: list[GateDecision] = field(default_factory=list)
    """Edits tried on earlier nights and what they cost, most recent last."""
    notes: list[str] = field(default_factory=list)
    """Which kinds of edit helped or failed before."""
    carried: Carried = field(default_factory=Carried)
    """The last night's answers of its final skill that tonight may reuse (``night.carry``)."""


def recall(archive: Archive, project: str, skill: str) -> Memory:
    """The memory earlier nights left for ``skill`` of ``project``."""
    return Memory(archive.rejected(project, skill), archive.meta_notes(project, skill),
                  carrying.carried(archive, project, skill))


def remember(archive: Archive, result: NightResult) -> None:
    """Keep what ``result`` learned for the skill's later nights: the edits the gate or the
    firewall rejected (``result.buffered``), the meta notes of tonight's decisions, and the
    answers of the final skill the next night may reuse (a night that drew none, one that
    abstained say, leaves the last ones in place)."""
    for decision in result.buffered:
        archive.add_rejected(result.project, result.skill, result.night_id, decision)
    for note in meta.notes(result.decisions):
        archive.add_meta_note(result.project, result.skill, result.night_id, note)
    if result.carried:
        carrying.keep(archive, result.project, result.skill, result.night_id,
                      Carried(result.carried_first, list(result.carried)))
