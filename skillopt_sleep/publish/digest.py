"""A staged night in a few kilobytes: what an agent (``report --json``, the MCP tools) reads.

The full ``report.json`` holds every decision, every task's answers before and after and
both skill texts: 100 KB and more for one night, too much for an agent's context. The
digest keeps, per skill, the score before → after, the accepted edits with their evidence
and where the full report, the proposal and its diff are; it is cut to ``DIGEST_BYTES``
(longest texts first, then the least significant edits), and says so when it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt_sleep.publish import staging
from skillopt_sleep.publish.report.text import figures
from skillopt_sleep.publish.report.triggers import summary as trigger_summary
from skillopt_sleep.records import GateDecision, NightResult, from_dict

__all__ = ["DIGEST_BYTES", "night_digest"]

DIGEST_BYTES = 8192
"""The most a digest may weigh, printed as JSON."""

_TEXT_LIMITS = (600, 240, 100)
"""Edit texts are cut to these lengths in turn until the digest fits."""


def night_digest(folder: Path, *, full: bool = False,
                 limit: int = DIGEST_BYTES) -> dict[str, Any]:
    """The night staged in ``folder``: a digest of at most ``limit`` bytes, or with ``full``
    the digest plus every result as ``report.json`` holds it (``results``)."""
    raw = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    results = [from_dict(NightResult, r) for r in raw]
    failed = staging.load_manifest(folder).failed
    head = {
        "night_id": folder.name,
        "status": "failed" if failed else "ok",
        "failed": failed,
        "report": str(folder / "report.html"),
        "report_path": str(folder / "report.html"),
        "report_json": str(folder / "report.json"),
        "warnings": [f"{r.skill}: {w}" for r in results for w in r.warnings],
    }
    if full:
        return head | {"skills": [_skill(folder, r, None) for r in results], "results": raw,
                       "truncated": False}
    for cut in _TEXT_LIMITS:
        digest = head | {"skills": [_skill(folder, r, cut) for r in results],
                         "truncated": cut != _TEXT_LIMITS[0]}
        if _size(digest) <= limit:
            return digest
    return _drop_edits(digest, limit)


def _skill(folder: Path, r: NightResult, cut: int | None) -> dict[str, Any]:
    f = figures(r)
    staged = folder / "skills" / r.skill
    row = {
        "skill": r.skill,
        "outcome": f["outcome"],
        "before": {"validation": f["baseline_val"], "test": f["baseline_test"]},
        "after": {"validation": f["after_val"], "test": f["after_test"]},
        # The test figures are of a sample (``night.measure``): its size and the interval.
        "test_tasks": f["test_tasks"], "test_split": f["test_split"],
        "test_margin": f["test_margin"],
        "accepted": [_edit(d, cut) for d in r.accepted],
        "proposals_tried": f["proposals_tried"],
        "rejected_by_stage": f["rejected_by_stage"],
        "abstained": r.abstained, "stopped": r.stopped, "failed": r.failed,
        "cost_usd": r.cost_usd, "model_calls": r.model_calls,
    }
    if (t := trigger_summary(r.trigger)) is not None:
        # A night with a trigger check adds its rates; the descriptions are cut like edits.
        row["trigger"] = t | {k: _cut(t[k] or "", cut)
                              for k in ("description_before", "description_after")}
    if (staged / "SKILL.md").is_file():
        row["proposal"] = str(staged / "SKILL.md")
    if (staged / "diff.patch").is_file():
        row["diff"] = str(staged / "diff.patch")
    return row


def _edit(d: GateDecision, cut: int | None) -> dict[str, Any]:
    """One accepted edit and the paired evidence that let it through."""
    return {
        "op": d.edit.op, "text": _cut(d.edit.text, cut), "anchor": _cut(d.edit.anchor, cut),
        "rationale": _cut(d.edit.rationale, cut), "stage": d.stage, "step": d.step,
        "evidence": {"mean_delta": round(d.mean_delta, 4), "p_value": round(d.p_value, 4),
                     "pairs": d.n_pairs, "incumbent": round(d.incumbent_score, 4),
                     "candidate": round(d.candidate_score, 4)},
    }


def _cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def _drop_edits(digest: dict[str, Any], limit: int) -> dict[str, Any]:
    """Drop the least significant accepted edits (highest p-value first), then warnings,
    until the digest fits; each skill counts what it left out (``accepted_omitted``)."""
    while _size(digest) > limit:
        found = [(e["evidence"]["p_value"], i, j) for i, s in enumerate(digest["skills"])
                 for j, e in enumerate(s["accepted"])]
        if found:
            _p, i, j = max(found)
            skill = digest["skills"][i]
            del skill["accepted"][j]
            skill["accepted_omitted"] = skill.get("accepted_omitted", 0) + 1
        elif digest["warnings"]:
            digest["warnings"] = digest["warnings"][: len(digest["warnings"]) // 2]
        else:
            break  # the skills' own lines: nothing more can go without losing a skill
    return digest


def _size(value: Any) -> int:
    """Bytes as the CLI prints it (``json.dumps``' defaults: non-ASCII escaped)."""
    return len(json.dumps(value, default=str).encode("utf-8"))
