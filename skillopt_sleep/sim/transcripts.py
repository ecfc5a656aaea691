"""Personas write their simulated history as real agent transcripts.

For the proof through the whole flow, a persona's developer "works" for some days: each
task is asked in a Claude Code session and again in a Codex session; the simulated target
answers with the developer's initial skill; when an answer misses a house rule the
developer corrects it, in the rule's own correction words. The files are laid out exactly
as the agents lay them out, so the real harvesters, miner and pipeline read them. A persona
with several skills answers each task with its own skill, and its sessions record the
skill loads a real agent makes (``_loaded``), so the miner routes each family to its skill
and the pipeline finds which skills are loaded together.

``every_phrasing`` asks each task once in each of its deliverable's phrasings instead of
one. The miner gathers requests worded alike, so a mined family is roughly one phrasing
of a deliverable; asked in one phrasing per subject, each phrasing covers about a third of
the subjects and domains, and its family's judge checks only the rules corrected there.
With every phrasing, each mined family holds every subject, and its judge checks the rules
corrected across all domains, so a small validation split (two or three families) still
exercises the rules the train families teach (the full proof's history).
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from skillopt_sleep.judges.rules import run_check
from skillopt_sleep.night.prompts import replay_messages
from skillopt_sleep.records import Task
from skillopt_sleep.sim.models import SimulatedTarget
from skillopt_sleep.sim.persona import Persona, tasks

EPOCH = datetime(2026, 11, 1, 9, 0, 0)


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _turns(
    persona: Persona, target: SimulatedTarget, task: Task, sample: int
) -> list[tuple[str, str]]:
    """(user text, assistant text) pairs: the request, and a correction if a rule was missed."""
    skill = persona.initial_skill(task.skill if persona.multi else None)
    answer = target.complete(replay_messages(skill, task), seed=sample).text
    turns = [(task.intent, answer)]
    meta = task.meta
    for rule in persona.rules_for(meta["deliverable"], meta["domain"]):
        if rule.correction and not run_check(rule.check, answer):
            turns.append((rule.correction, "Understood, I have updated the answer."))
            break
    return turns


def _skill_loads(sid: str, skills: Sequence[str]) -> list[tuple[str, Any]]:
    """The ``Skill`` tool calls that load ``skills``, each with its result, as Claude Code
    records them before the answer."""
    found: list[tuple[str, Any]] = []
    for skill in skills:
        call = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, f'{sid}:skill:{skill}').hex[:20]}"
        found += [("assistant", [{"type": "tool_use", "id": call, "name": "Skill",
                                  "input": {"skill": skill}}]),
                  ("user", [{"type": "tool_result", "tool_use_id": call,
                             "content": f"Launching skill: {skill}"}])]
    return found


def _claude_session(path: Path, cwd: str, turns: list[tuple[str, str]], start: datetime,
                    skills: Sequence[str] = ()) -> None:
    """A Claude Code session of ``turns``; the agent loads ``skills`` (the ``Skill`` tool)
    before its first answer."""
    sid, parent, lines = path.stem, None, []
    for i, (user, assistant) in enumerate(turns):
        messages: list[tuple[str, Any]] = [("user", user)]
        if i == 0:
            messages += _skill_loads(sid, skills)
        messages.append(("assistant", [{"type": "text", "text": assistant}]))
        last = len(messages) - 1
        for j, (role, content) in enumerate(messages):
            # The request and the answer keep the ids a history without skill loads has.
            part = f"{sid}:{i}:{role}" if j in (0, last) else f"{sid}:{i}:{role}:{j}"
            uid = str(uuid.uuid5(uuid.NAMESPACE_URL, part))
            message = {"role": role, "content": content}
            if role == "assistant":
                message |= {
                    "id": f"msg_{uid[:8]}",
                    "model": "claude-sonnet-4-5",
                    "type": "message",
                    "stop_reason": "end_turn" if j == last else "tool_use",
                }
            lines.append(
                {
                    "type": role,
                    "uuid": uid,
                    "parentUuid": parent,
                    "sessionId": sid,
                    "cwd": cwd,
                    "version": "2.1.330",
                    "entrypoint": "cli",
                    "isSidechain": False,
                    "userType": "external",
                    "timestamp": _iso(start + timedelta(minutes=2 * i + (j > 0))),
                    "message": message,
                }
            )
            parent = uid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _codex_turn(at: str, cwd: str, user: str, assistant: str,
                skill: str | None = None) -> list[dict[str, Any]]:
    """One Codex turn as the CLI records it: each message twice (item and event mirror);
    with ``skill``, the agent reads its ``SKILL.md`` (how Codex loads a skill) first."""

    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": at, "type": kind, "payload": payload}

    def message(role: str, part: str, text: str) -> dict[str, Any]:
        return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}

    read: list[dict[str, Any]] = []
    if skill:
        call = f"call_{uuid.uuid5(uuid.NAMESPACE_URL, f'{at}:{skill}').hex[:20]}"
        command = json.dumps({"cmd": f"cat ~/.codex/skills/{skill}/SKILL.md"})
        read = [line("response_item", {"type": "function_call", "name": "exec_command",
                                       "arguments": command, "call_id": call}),
                line("response_item", {"type": "function_call_output", "call_id": call,
                                       "output": f"---\nname: {skill}\n---"})]
    return [
        line("turn_context", {"cwd": cwd, "model": "gpt-5"}),
        line("response_item", message("user", "input_text", user)),
        line("event_msg", {"type": "user_message", "message": user}),
        *read,
        line("response_item", message("assistant", "output_text", assistant)),
        line("event_msg", {"type": "agent_message", "message": assistant}),
    ]


def _codex_session(
    root: Path, cwd: str, turns: list[tuple[str, str]], start: datetime, sid: str,
    skill: str | None = None,
) -> None:
    day = root / "sessions" / f"{start:%Y}" / f"{start:%m}" / f"{start:%d}"
    path = day / f"rollout-{start:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    meta = {
        "id": sid,
        "timestamp": _iso(start),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.169.0",
        "source": "cli",
        "model_provider": "openai",
    }
    lines: list[dict[str, Any]] = [
        {"timestamp": _iso(start), "type": "session_meta", "payload": meta}
    ]
    for i, (user, assistant) in enumerate(turns):
        lines += _codex_turn(_iso(start + timedelta(minutes=2 * i)), cwd, user, assistant,
                             skill if i == 0 else None)
    day.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def history(persona: Persona, seed: int, every_phrasing: bool = False) -> list[Task]:
    """The tasks the developer asks, in order: the persona's tasks, each in one phrasing,
    or with ``every_phrasing`` once in each phrasing of its deliverable (ids ``…:p<k>``)."""
    found = tasks(persona, seed)
    if not every_phrasing:
        return found
    return [
        dataclasses.replace(task, id=f"{task.id}:p{k}",
                            intent=template.format(subject=task.meta["subject"]))
        for task in found
        for k, template in enumerate(persona.deliverables[task.meta["deliverable"]]["intents"])
    ]


def _loaded(persona: Persona, task: Task, n: int) -> list[str]:
    """The skills Claude Code loads for the ``n``-th task: none for a one-skill persona whose
    skill is not installed before the nights (its history stays as it was); else the
    task's own (``mine.route``'s first signal), and in every other session the persona's
    other skills beside it, as the simulated target has them all loaded (so the skills
    are neighbours: ``pipeline.companions``). The Codex session of the task loads only its
    own, so the own skill stays the most frequent load of every family it is in, whatever
    sessions the family gathers."""
    if not (persona.multi or persona.installed) or not task.skill:
        return []
    others = [s.name for s in persona.skills if s.name != task.skill]
    return [task.skill, *(others if n % 2 else [])]


def write_history(persona: Persona, seed: int, home: Path, project: Path,
                  every_phrasing: bool = False) -> dict[str, int]:
    """Write the persona's sessions under ``home`` (``.claude/`` and ``.codex/``); return counts."""
    target = SimulatedTarget(persona, seed)
    slug = "".join(c if c.isalnum() else "-" for c in str(project))
    counts = {"claude-code": 0, "codex": 0, "corrections": 0}
    for n, task in enumerate(history(persona, seed, every_phrasing)):
        start = EPOCH + timedelta(hours=n)
        for agent, sample in (("claude-code", 0), ("codex", 1)):
            turns = _turns(persona, target, task, sample)
            counts["corrections"] += len(turns) - 1
            sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{persona.name}:{seed}:{task.id}:{agent}"))
            if agent == "claude-code":
                _claude_session(
                    home / ".claude" / "projects" / slug / f"{sid}.jsonl",
                    str(project),
                    turns,
                    start,
                    _loaded(persona, task, n),
                )
            else:
                _codex_session(home / ".codex", str(project), turns, start + timedelta(days=1),
                               sid, task.skill if persona.multi or persona.installed else None)
            counts[agent] += 1
    return counts
