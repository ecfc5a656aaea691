"""From a task family to the tasks a night replays, each with a judge spec and a split.

A family's main task asks its representative request (the medoid of its members). The
judge comes from the user's corrections (``corrections``), then from the LLM miner if
one is given (``judging``); a family with nothing checkable is kept, marked
unreplayable with the reason. Train families also get a few of their other real
phrasings as tasks, and the miner's paraphrases as synthetic tasks; validation and test
families never get synthetic tasks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skillopt_sleep.mine.corrections import Check, merge_checks, rules_from_correction
from skillopt_sleep.mine.judging import Proposal, propose, shape_only, valid_checks
from skillopt_sleep.mine.requests import Request
from skillopt_sleep.mine.route import Route, SkillInfo
from skillopt_sleep.mine.vectors import medoid
from skillopt_sleep.models.base import LLM
from skillopt_sleep.records import JudgeSpec, Split, Task


@dataclass
class FamilyEvidence:
    family_id: str
    project: str
    split: str
    members: list[Request]
    vectors: np.ndarray  # one unit row per member


def _outcomes(members: Sequence[Request]) -> dict[str, int]:
    counts = Counter(m.outcome for m in members)
    return {k: counts.get(k, 0) for k in ("failure", "success", "unknown")}


def _already_stated(checks: Sequence[Check], skill: SkillInfo | None) -> list[str]:
    """Content checks whose wording the routed skill already contains."""
    if skill is None or not skill.text:
        return []
    body = skill.text.lower()
    return [str(c["text"]) for c in checks
            if c["op"] in ("contains", "section_contains") and str(c["text"]).lower() in body]


def choose_judge(
    corrections: Sequence[str], proposal: Proposal | None
) -> tuple[JudgeSpec, dict[str, Any]]:
    """The judge spec and what ``meta`` should say about it."""
    heuristic, rejected = valid_checks(merge_checks(rules_from_correction(c) for c in corrections))
    llm_checks = proposal.checks if proposal else []
    checks = merge_checks([heuristic, llm_checks])
    meta: dict[str, Any] = {"judge_source": [], "judge_flags": [], "rejected_checks": rejected}
    if heuristic:
        meta["judge_source"].append("corrections")
    if proposal is not None:
        meta["rejected_checks"] += proposal.rejected
        if proposal.error:
            meta["judge_flags"].append(proposal.error)
        if llm_checks or proposal.rubric:
            meta["judge_source"].append("miner-model")
    if checks:
        if shape_only(checks):
            meta["judge_flags"].append("shape-only")
        return JudgeSpec(kind="rules", checks=checks), meta | {"replayable": True}
    if proposal is not None and proposal.rubric:
        return JudgeSpec(kind="rubric", rubric=proposal.rubric), meta | {"replayable": True}
    reason = ("no correction or checkable signal among "
              f"{len(corrections)} correction(s); nothing to score an answer against")
    return JudgeSpec(kind="rules"), meta | {"replayable": False, "unreplayable_reason": reason}


def build_tasks(
    family: FamilyEvidence,
    route: Route,
    skill: SkillInfo | None = None,
    llm: LLM | None = None,
    variants: int = 2,
) -> list[Task]:
    """The tasks of one family (main task first); ids are ``<family id>:<n>``."""
    members = family.members
    intent = members[medoid(family.vectors)].text
    corrections = [m.correction for m in members if m.correction]
    phrasings = list(dict.fromkeys(m.text for m in members))
    proposal = None
    if llm is not None:
        signals = [s for m in members for s in m.signal]
        proposal = propose(llm, intent, phrasings, corrections, signals)
    judge, meta = choose_judge(corrections, proposal)
    contexts = Counter(m.context for m in members if m.context)
    meta |= {
        "members": [m.id for m in members],
        "sessions": len({m.session_id for m in members}),
        "sources": sorted({m.source for m in members if m.source}),
        "outcomes": _outcomes(members),
        "corrections": corrections[:10],
        "route": route.reason,
        "skipped_skills": [s.to_dict() for s in route.skipped],
        "already_stated": _already_stated(judge.checks, skill),
    }

    def task(n: str, text: str, synthetic: bool = False) -> Task:
        return Task(
            id=f"{family.family_id}:{n}", family_id=family.family_id, intent=text, judge=judge,
            context=contexts.most_common(1)[0][0] if contexts else "", split=family.split,
            synthetic=synthetic, project=family.project, skill=route.skill, meta=dict(meta),
        )

    # Other members' wordings are real requests, so they are tasks in every split; only
    # model-written paraphrases are synthetic and stay in train.
    tasks = [task("0", intent)]
    others = [p for p in phrasings if p.strip().lower() != intent.strip().lower()]
    tasks += [task(str(i), p) for i, p in enumerate(others[:variants], 1)]
    if family.split == Split.TRAIN.value:
        extra = proposal.paraphrases if proposal else []
        tasks += [task(f"s{i}", p, synthetic=True) for i, p in enumerate(extra, 1)]
    return tasks
