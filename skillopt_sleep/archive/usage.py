"""What the harvest says about skill use: which skills the agents loaded in which sessions,
when, and how the turns of those sessions went; and which skills are loaded together.

A session's ``skills_used`` is what the harvesters saw the agent load (Claude Code's Skill
tool, Codex and Copilot skill reads); a turn went well or badly by the same signals and
reactions the miner reads (``records.Request.outcome``)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import FAILURE_REACTIONS, FAILURE_SIGNALS, Reaction, Signal

__all__ = ["SkillLoads", "co_loaded", "skill_loads"]


@dataclass
class SkillLoads:
    """One skill's use in a project's harvested sessions."""

    sessions: int = 0
    last_loaded: str = ""
    """The latest end (else start) time of a session that loaded it, ISO UTC."""
    turns: int = 0
    went_well: int = 0
    """Turns approved or voted up."""
    went_badly: int = 0
    """Turns corrected, repeated, voted down, or with a failing tool call."""


def _sessions(archive: Archive, project: str) -> list[tuple[str, str, list[str], str]]:
    rows = archive.conn.execute(
        "SELECT source, session_id, skills_json, COALESCE(ended_at, started_at, '')"
        " FROM sessions WHERE project = ?", (project,)).fetchall()
    return [(src, sid, list(json.loads(skills or "[]")), when) for src, sid, skills, when in rows]


def skill_loads(archive: Archive, project: str) -> dict[str, SkillLoads]:
    """Per skill name: the sessions that loaded it and how their turns went."""
    rows = archive.conn.execute(
        "SELECT s.source, s.session_id, s.skills_json, COALESCE(s.ended_at, s.started_at, ''),"
        " t.signals_json, t.reaction FROM sessions s LEFT JOIN turns t"
        " ON t.source = s.source AND t.session_id = s.session_id"
        " WHERE s.project = ? AND s.skills_json != '[]'", (project,)).fetchall()
    sessions: dict[tuple[str, str], tuple[list[str], str, list[str]]] = {}
    for source, session_id, skills, when, signals_json, reaction in rows:
        names, _, outcomes = sessions.setdefault(
            (source, session_id), (list(dict.fromkeys(json.loads(skills))), when, []))
        if reaction is not None:
            outcomes.append(_outcome(set(json.loads(signals_json or "[]")), reaction))
    found: dict[str, SkillLoads] = defaultdict(SkillLoads)
    for names, when, outcomes in sessions.values():
        for name in names:
            row = found[name]
            row.sessions += 1
            row.last_loaded = max(row.last_loaded, when)
            row.turns += len(outcomes)
            row.went_well += outcomes.count("well")
            row.went_badly += outcomes.count("badly")
    return dict(found)


def _outcome(signals: set[str], reaction: str) -> str:
    if reaction in FAILURE_REACTIONS or signals & FAILURE_SIGNALS:
        return "badly"
    if reaction == Reaction.APPROVAL.value or Signal.VOTE_UP.value in signals:
        return "well"
    return "unknown"


def co_loaded(archive: Archive, project: str) -> dict[str, Counter[str]]:
    """Per skill, how many sessions loaded each other skill beside it."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for _, _, skills, _ in _sessions(archive, project):
        names = list(dict.fromkeys(skills))
        for a in names:
            found[a].update(b for b in names if b != a)
    return dict(found)
