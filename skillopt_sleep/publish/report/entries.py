"""The report's sections on skills side by side and on learned entries: the contradictions
the cross-skill check found, the retirements tried, the learned entries with their age,
evidence and last use, and how the agents' sessions that loaded the skill went.

Every value is untrusted text and goes through ``html.escape``."""

from __future__ import annotations

from html import escape
from typing import Any

from skillopt_sleep.records import Contradiction, NightResult

__all__ = ["entries_html"]


def _contradiction_row(c: Contradiction) -> str:
    hurts = "its own demands" if c.own else c.other_skill
    edit = f"<td>{escape(c.edit.text or c.edit.anchor)}</td><td>{escape(hurts)}</td>"
    if c.quote:  # found in the text: no replay, so no scores
        return (f'<tr>{edit}<td colspan="4">contradicts “{escape(c.quote)}”: '
                f"{escape(c.why)}</td></tr>")
    return (f'<tr>{edit}<td class="num">{c.before:.3f} → {c.after:.3f}</td>'
            f'<td class="num">{c.mean_delta:+.3f}</td><td class="num">{c.p_value:.3f}</td>'
            f'<td class="num">{c.n_pairs}</td></tr>')


def _contradictions(r: NightResult) -> str:
    if not r.contradictions:
        return ""
    rows = "".join(_contradiction_row(c) for c in r.contradictions)
    return ('<h3 class="contradictions">Contradictions '
            f'({len(r.contradictions)})</h3><p class="meta">Edits this skill\'s gate accepted '
            "that lowered another skill on its own tasks with both loaded, or that the "
            "optimizer found to contradict another skill's document or a demand this skill's "
            "own tasks are judged on (with its words): rejected and left for you to "
            "resolve.</p><table><thead><tr><th>Edit</th>"
            '<th>Hurts</th><th class="num">Its score</th><th class="num">Δ</th>'
            '<th class="num">p</th>'
            f'<th class="num">Pairs</th></tr></thead><tbody>{rows}</tbody></table>')


def _withdrawn(r: NightResult) -> str:
    if not r.withdrawn:
        return ""
    rows = "".join(f"<tr><td>{escape(d.edit.anchor)}</td><td>{escape(d.reason)}</td></tr>"
                   for d in r.withdrawn)
    return (f'<h3 class="withdrawn">Withdrawn from this skill ({len(r.withdrawn)})</h3>'
            '<p class="meta">Entries accepted on earlier nights that now lower a skill loaded '
            "beside it (that skill changed since): removed from this proposal; the "
            "contradiction is listed above.</p><table><thead><tr><th>Entry</th><th>Why</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>")


def _retired(r: NightResult) -> str:
    if not r.retired:
        return ""
    rows = "".join(
        f'<tr><td>{escape(d.edit.anchor)}</td><td>{"retired" if d.accepted else "kept"}</td>'
        f'<td class="num">{d.mean_delta:+.3f}</td><td>{escape(d.reason)}</td></tr>'
        for d in r.retired)
    return (f'<h3 class="retired">Retirement ({sum(d.accepted for d in r.retired)} of '
            f"{len(r.retired)} unused entries removed)</h3><table><thead><tr><th>Entry</th>"
            '<th>Outcome</th><th class="num">Δ</th><th>Why</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def _evidence(ev: dict[str, Any]) -> str:
    if "mean_delta" not in ev:
        return escape(str(ev.get("note", "—")))
    return f"{ev['mean_delta']:+.3f} (p = {ev['p_value']:.3f}, {ev['n_pairs']} pairs)"


def _entries(r: NightResult) -> str:
    if not r.entries:
        return ""
    rows = "".join(
        f'<tr data-status="{escape(str(e["status"]))}"><td>{escape(str(e["text"]))}</td>'
        f'<td>{escape(str(e["status"]))}</td><td><code>{escape(str(e["night_id"]))}</code></td>'
        f'<td class="num">{e["age_nights"]}</td><td>{_evidence(e["evidence"])}</td>'
        f'<td>{escape(str(e["last_used_night"]) or "never")}</td>'
        f'<td class="num">{e["nights_unused"]}</td></tr>' for e in r.entries)
    return ("<h3>Learned entries, least recently used first</h3><table><thead><tr>"
            "<th>Entry</th><th>Status</th><th>Accepted</th><th class=\"num\">Age (nights)</th>"
            "<th>Evidence</th><th>Last used</th><th class=\"num\">Nights unused</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>")


def _loads(r: NightResult) -> str:
    n = r.loads
    if not n:
        return ""
    return (f'<p class="meta">Loaded by the agents in {n["sessions"]} sessions (last '
            f'{escape(str(n["last_loaded"]) or "unknown")}); of their {n["turns"]} turns, '
            f'{n["went_well"]} went well and {n["went_badly"]} were corrected or failed.</p>')


def entries_html(r: NightResult) -> str:
    """The skill section's part on neighbours and entries (empty when there is nothing)."""
    return _contradictions(r) + _withdrawn(r) + _retired(r) + _loads(r) + _entries(r)
