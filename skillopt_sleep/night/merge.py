"""Merge: one ranked, de-duplicated list of edits from every minibatch.

Duplicates (same op, anchor and normalised text) merge into one edit whose ``support`` is
the number of minibatches that proposed it. Contradictions (different ops on one anchor)
keep the better-supported one. Edits the gate has settled against (see ``settled``) are
dropped. Failure-driven edits rank first, then by support, then shorter text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from skillopt_sleep.records import Edit, GateDecision


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _key(edit: Edit) -> tuple[str, str, str]:
    return edit.op, _norm(edit.anchor), _norm(edit.text)


def merge(
    edits: Sequence[Edit], rejected: Sequence[GateDecision] = ()
) -> tuple[list[Edit], list[GateDecision]]:
    """Ranked unique edits, and a decision for every edit dropped (repeat or contradiction)."""
    dropped: list[GateDecision] = []
    seen_bad = settled(rejected)
    merged: dict[tuple[str, str, str], Edit] = {}
    for edit in edits:
        key = _key(edit)
        if key in seen_bad:
            dropped.append(GateDecision(edit, False, "already rejected by the gate", stage="merge"))
        elif key in merged:
            old = merged[key]
            origin = "failure" if "failure" in (old.origin, edit.origin) else old.origin
            merged[key] = replace(old, support=old.support + edit.support, origin=origin,
                                  cited=tuple(sorted({*old.cited, *edit.cited})))
        else:
            merged[key] = edit
    by_anchor: dict[str, Edit] = {}
    for edit in sorted(merged.values(), key=_rank):
        anchor = _norm(edit.anchor)
        if anchor and anchor in by_anchor and by_anchor[anchor].op != edit.op:
            dropped.append(
                GateDecision(edit, False, f"contradicts {by_anchor[anchor].id}", stage="merge")
            )
            continue
        if anchor:
            by_anchor.setdefault(anchor, edit)
    kept = [e for e in sorted(merged.values(), key=_rank) if not any(d.edit is e for d in dropped)]
    return kept, dropped


def settled(rejected: Sequence[GateDecision]) -> set[tuple[str, str, str]]:
    """Edits the gate has settled against: one that did not help at all (mean delta ≤ 0),
    or one that helped too little to be significant twice. A single near miss may be tried
    again, since the skill around it has changed; it never gets a third try."""
    misses: dict[tuple[str, str, str], int] = {}
    settled_keys: set[tuple[str, str, str]] = set()
    for d in rejected:
        if d.stage != "gate":
            continue
        key = _key(d.edit)
        misses[key] = misses.get(key, 0) + 1
        if d.mean_delta <= 0 or misses[key] >= 2:
            settled_keys.add(key)
    return settled_keys


def _rank(edit: Edit) -> tuple[int, int, int, str]:
    return (0 if edit.origin == "failure" else 1, -edit.support, len(edit.text), edit.id)


def clip(ranked: Sequence[Edit], budget: int) -> tuple[list[Edit], list[GateDecision]]:
    """The first ``budget`` edits, and a budget decision for each one left over."""
    over = [
        GateDecision(e, False, f"over the step's edit budget of {budget}", stage="budget")
        for e in ranked[budget:]
    ]
    return list(ranked[:budget]), over
