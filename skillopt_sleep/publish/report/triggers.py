"""The trigger check in the report: per skill, whether the agent loads it, before → after.

``summary`` is the compact form ``report --json`` and ``report.json``'s summary carry per
skill (None when the night ran no trigger check); ``section`` is the HTML table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from skillopt_sleep.records import NightResult

KEYS = ("split", "recall_before", "recall_after", "false_trigger_before",
        "false_trigger_after", "description_before", "description_after", "failed_picks",
        "unmeasured")


def summary(trigger: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Recall and false triggers before and after, the descriptions, and how many
    descriptions were tried and accepted; None without a trigger check. ``unmeasured`` is
    None, or why the rates (then None, never 0) could not be measured."""
    if not trigger:
        return None
    decisions = trigger.get("decisions") or []
    return {**{k: trigger.get(k) for k in KEYS},
            "descriptions_tried": len(decisions),
            "descriptions_accepted": sum(1 for d in decisions if d.get("accepted"))}


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _pair(before: float | None, after: float | None) -> str:
    return f"{_rate(before)} → {_rate(after)}"


def section(nights: Sequence[NightResult]) -> str:
    """"Does the agent load the skill?": one row per skill with a trigger check."""
    rows = []
    for r in nights:
        s = summary(r.trigger)
        if s is None:
            continue
        changed = s["description_before"] != s["description_after"]
        text = (f"<s>{escape(s['description_before'] or '')}</s><br>"
                f"{escape(s['description_after'] or '')}" if changed
                else escape(s["description_after"] or ""))
        rates = (f'<td colspan="2">{escape(s["unmeasured"])}</td>' if s["unmeasured"] else
                 f'<td class="num">{_pair(s["recall_before"], s["recall_after"])}</td>'
                 f'<td class="num">{_pair(s["false_trigger_before"], s["false_trigger_after"])}'
                 "</td>")
        rows.append(
            f"<tr><td>{escape(r.skill)}</td>{rates}"
            f'<td class="num">{s["descriptions_tried"]} / {s["descriptions_accepted"]}</td>'
            f"<td>{text}</td></tr>")
    if not rows:
        return ""
    return ("<h2>Does the agent load the skill?</h2>"
            "<p>Trigger rate: how often the target, shown every installed skill's "
            "description, picks this skill for its own tasks (recall) and for other "
            "skills' tasks (false triggers), on held-out tasks. The description is the one "
            "frontmatter value a night may change, through the same gate.</p>"
            '<table class="skills"><thead><tr><th>Skill</th><th class="num">Recall</th>'
            '<th class="num">False triggers</th><th class="num">Descriptions tried / '
            "accepted</th><th>Description</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")
