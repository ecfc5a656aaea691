"""Meta notes: which kinds of edit helped or failed, for later reflections (never shipped)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from skillopt_sleep.records import GateDecision


def notes(decisions: Sequence[GateDecision]) -> list[str]:
    """One line per (origin, op) kind tried, plus the most common rejection reasons."""
    tried: dict[tuple[str, str], list[GateDecision]] = defaultdict(list)
    for d in decisions:
        if d.stage == "gate":
            tried[(d.edit.origin, d.edit.op)].append(d)
    lines = []
    for (origin, op), group in sorted(tried.items()):
        won = [d for d in group if d.accepted]
        gain = sum(d.mean_delta for d in won) / len(won) if won else 0.0
        lines.append(
            f"{op} edits from {origin}s: {len(won)}/{len(group)} accepted"
            + (f", mean gain {gain:+.3f}" if won else "")
        )
    firewall = [d for d in decisions if d.stage == "firewall"]
    if firewall:
        lines.append(
            f"{len(firewall)} edits refused by the firewall ({firewall[0].reason}); "
            "never propose secrets, URLs, download-to-shell or overrides"
        )
    worse = [d for d in decisions if d.stage == "gate" and d.mean_delta < 0]
    if worse:
        lines.append(
            "edits that made answers worse: " + "; ".join(d.edit.text[:60] for d in worse[:3])
        )
    return lines
