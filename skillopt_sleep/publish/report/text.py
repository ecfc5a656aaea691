"""The night in a few plain lines, for the terminal and ``status``; and the figures every
face of the report (text, HTML, JSON) computes the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillopt_sleep.publish.report.triggers import summary as trigger_summary
from skillopt_sleep.records import GateDecision, NightResult

__all__ = ["STAGES", "by_stage", "figures", "fmt_delta", "fmt_score", "outcome", "summary"]

STAGES = ("gate", "contradict", "cross", "firewall", "budget", "merge", "apply")
"""Where an edit can be turned away, in the order a night meets them (reading order)."""

_EXCERPT = 72


def fmt_score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def fmt_delta(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return ""
    return f"{after - before:+.3f}"


def outcome(r: NightResult) -> str:
    """``failed``, ``abstained``, ``changed`` or ``unchanged``: the word every face shows.

    A failed or abstained night has no score worth showing, whatever its fields hold."""
    if r.failed:
        return "failed"
    if r.abstained:
        return "abstained"
    return "changed" if r.changed else "unchanged"


def scored(r: NightResult) -> bool:
    """Whether the night measured scores at all (it neither failed nor abstained)."""
    return not (r.failed or r.abstained)


def by_stage(decisions: Sequence[GateDecision]) -> dict[str, list[GateDecision]]:
    """Rejected decisions grouped by stage, every known stage present, unknown ones after."""
    groups: dict[str, list[GateDecision]] = {stage: [] for stage in STAGES}
    for d in decisions:
        if not d.accepted:
            groups.setdefault(d.stage, []).append(d)
    return groups


def calls_by_role(r: NightResult) -> dict[str, int]:
    """Calls per role when the night recorded them (an optional field on newer results)."""
    calls = getattr(r, "calls_by_role", None)
    return dict(calls) if isinstance(calls, dict) else {}


def figures(r: NightResult) -> dict[str, Any]:
    """The computed summary of one night for one skill (also the ``summary`` in report.json)."""
    decisions = r.decisions
    ok = scored(r)
    return {
        "night_id": r.night_id, "skill": r.skill, "project": r.project,
        "outcome": outcome(r),
        "baseline_val": r.baseline_val if ok else None,
        "after_val": r.after_val if ok else None,
        "val_delta": r.after_val - r.baseline_val if ok else None,
        "baseline_test": r.baseline_test if ok else None,
        "after_test": r.after_test if ok else None,
        "test_delta": (None if not ok or r.baseline_test is None or r.after_test is None
                       else r.after_test - r.baseline_test),
        "test_margin": r.test_margin if ok else None,
        "test_tasks": r.test_scored if ok else 0,
        "test_split": r.test_split if ok else 0,
        "proposals_tried": len(decisions),
        "gated": sum(1 for d in decisions if d.stage == "gate"),
        "accepted": len(r.accepted),
        "rejected_by_stage": {k: len(v) for k, v in by_stage(decisions).items()},
        "refused_proposal": r.counts.get("refused_proposal", 0),
        "changed": r.changed,
        "model_calls": r.model_calls,
        "calls_by_role": calls_by_role(r),
        "cost_usd": r.cost_usd,
        "cost_by_role": dict(r.cost_by_role),
        "abstained": r.abstained, "stopped": r.stopped, "failed": r.failed,
        "failures_by_role": dict(r.failures_by_role), "warnings": list(r.warnings),
        "trigger": trigger_summary(r.trigger),
    }


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1] + "…"


def _scores_line(r: NightResult) -> str:
    if r.failed:
        return "no scores: the night failed"
    if r.abstained:
        return "no scores: the night abstained"
    val = f"validation {fmt_score(r.baseline_val)} → {fmt_score(r.after_val)}"
    if not r.abstained:
        val += f" ({fmt_delta(r.baseline_val, r.after_val)})"
    test = f"test {fmt_score(r.baseline_test)} → {fmt_score(r.after_test)}"
    if r.baseline_test is not None and r.after_test is not None:
        test += f" ({fmt_delta(r.baseline_test, r.after_test)}{sample_note(r)})"
    return f"{val} · {test}"


def sample_note(r: NightResult) -> str:
    """``" ± 0.081, 48 of 99 tasks"``: the test lift's interval and the sample it is of."""
    margin = "" if r.test_margin is None else f" ± {r.test_margin:.3f}"
    if r.test_split > r.test_scored:
        return f"{margin}, {r.test_scored} of {r.test_split} tasks"
    return margin


def samples_note(nights: Sequence[NightResult]) -> str:
    """``"48 of 99 test tasks · "`` when the nights scored a sample (``night.measure``)."""
    scored_, split = sum(r.test_scored for r in nights), sum(r.test_split for r in nights)
    return f"{scored_} of {split} test tasks · " if split > scored_ else ""


def _skill_lines(r: NightResult) -> list[str]:
    f = figures(r)
    lines = [f"{r.skill or '(before any skill)'} [{outcome(r)}]: {_scores_line(r)}",
             f"  {f['proposals_tried']} proposals tried / {f['accepted']} accepted · "
             f"${r.cost_usd:.4f} · {r.model_calls} model calls"]
    if r.abstained:
        lines.append(f"  abstained: {r.abstained}")
    if r.stopped:
        lines.append(f"  stopped: {r.stopped}")
    if r.failed:
        lines.append(f"  FAILED: {r.failed}")
    lines.extend(f"  warning: {w}" for w in r.warnings)
    for d in r.accepted:
        lines.append(f"  + {d.edit.op} {_excerpt(d.edit.text or d.edit.anchor)!r} "
                     f"(Δ {d.mean_delta:+.3f}, p = {d.p_value:.3g}, n = {d.n_pairs})")
    rejected = [f"{n} {stage}" for stage, n in f["rejected_by_stage"].items() if n]
    if rejected:
        lines.append("  rejected: " + ", ".join(rejected))
    return lines


def summary(nights: Sequence[NightResult]) -> str:
    """A few lines per skill: scores before → after, proposals, cost, accepted edits."""
    if not nights:
        return "No skill was trained this night."
    head = nights[0]
    ids = sorted({r.night_id for r in nights})
    lines = [f"night {', '.join(ids)}" + (f" · {head.project}" if head.project else "")]
    for r in nights:
        lines.extend(_skill_lines(r))
    if len(nights) > 1:
        tried = sum(len(r.decisions) for r in nights)
        accepted = sum(len(r.accepted) for r in nights)
        lines.append(f"total: {tried} proposals tried / {accepted} accepted · "
                     f"${sum(r.cost_usd for r in nights):.4f} · "
                     f"{sum(r.model_calls for r in nights)} model calls")
    return "\n".join(lines)
