"""The night's report as one self-contained HTML file: no network, no scripts, no assets.

Everything a night learned from is untrusted text (answers, edits, rationales, diffs), so
every value goes through ``html.escape`` on its way in; the only markup is our own.

A failed night (its model could not answer) leads the page with the reason and shows no
score: its cards read "—", its skills "failed", and the plots mark it as a gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from skillopt_sleep.publish.report.diff import diff_html, diff_text
from skillopt_sleep.publish.report.entries import entries_html
from skillopt_sleep.publish.report.style import CSS
from skillopt_sleep.publish.report.svg import score_plot
from skillopt_sleep.publish.report.text import (
    by_stage,
    figures,
    fmt_delta,
    fmt_score,
    outcome,
    sample_note,
    samples_note,
    scored,
)
from skillopt_sleep.publish.report.triggers import section as trigger_section
from skillopt_sleep.records import GateDecision, NightResult, to_dict

__all__ = ["render", "render_json"]


def _delta_class(delta: float | None) -> str:
    if delta is None or abs(delta) < 1e-9:
        return "flat"
    return "up" if delta > 0 else "down"


def _delta_html(before: float | None, after: float | None) -> str:
    text = fmt_delta(before, after)
    if not text:
        return ""
    assert before is not None and after is not None
    return f'<span class="{_delta_class(after - before)}">{text}</span>'


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


# --- header and summary ------------------------------------------------------------------


def _header(nights: Sequence[NightResult], title: str) -> str:
    ids = sorted({r.night_id for r in nights})
    projects = sorted({r.project for r in nights if r.project})
    spans = [(r.started_at, r.ended_at) for r in nights if r.started_at and r.ended_at]
    when = ""
    if spans:
        # Skills of one night train one after another, so their durations add up.
        secs = 0.0
        for began, ended in spans:
            secs += (ended - began).total_seconds() if began and ended else 0.0
        first = min(began for began, _ in spans if began)
        when = f" · {first:%Y-%m-%d %H:%M} UTC · ran {secs:.0f} s"
    return (f"<header><h1>{escape(title or 'skillopt-sleep night report')}</h1>"
            f'<div class="meta">night <code>{escape(", ".join(ids) or "—")}</code>'
            f'{" · project <code>" + escape(", ".join(projects)) + "</code>" if projects else ""}'
            f"{escape(when)}</div></header>")


def _card(key: str, value: str, sub: str = "") -> str:
    return (f'<div class="card"><div class="k">{escape(key)}</div><div class="v">{value}</div>'
            f'<div class="s">{sub}</div></div>')


def _score_card(key: str, before: float | None, after: float | None, note: str) -> str:
    value = f"{fmt_score(before)} → {fmt_score(after)}"
    delta = _delta_html(before, after)
    return _card(key, value, f"{delta} {escape(note)}" if delta else escape(note))


def _cards(nights: Sequence[NightResult]) -> str:
    ran = [r for r in nights if scored(r)]
    several = f"mean of {len(ran)} skills · " if len(ran) > 1 else ""
    tried = sum(len(r.decisions) for r in nights)
    accepted = sum(len(r.accepted) for r in nights)
    # The own look and the cross check judge only what the gate accepted.
    gated = sum(1 for r in nights for d in r.decisions if d.stage in ("gate", "contradict",
                                                                       "cross"))
    return '<section class="cards">' + "".join([
        _score_card("Validation score", _mean(r.baseline_val for r in ran),
                    _mean(r.after_val for r in ran), several + "held out; gates every edit"),
        _score_card("Test split score", _mean(r.baseline_test for r in ran),
                    _mean(r.after_test for r in ran), several + samples_note(ran)
                    + "reported, never gates"),
        _card("Accepted edits", f"{accepted}",
              escape(f"{tried} proposals tried / {accepted} accepted · {gated} reached the gate")),
        _card("Cost", f"${sum(r.cost_usd for r in nights):.4f}",
              escape(f"{sum(r.model_calls for r in nights)} model calls")),
    ]) + "</section>"


def _callouts(nights: Sequence[NightResult]) -> str:
    out = []
    for r in nights:
        if r.failed:
            out.append(f'<div class="callout failed" data-outcome="failed"><b>'
                       f"{escape(r.skill or 'The night')}: failed.</b> {escape(r.failed)}</div>")
        if r.abstained:
            out.append(f'<div class="callout"><b>{escape(r.skill)}: abstained.</b> '
                       f"{escape(r.abstained)}</div>")
        if r.stopped:
            out.append(f'<div class="callout stop"><b>{escape(r.skill)}: stopped.</b> '
                       f"{escape(r.stopped)}</div>")
    return "".join(out)


_PILLS = {"changed": "ok", "unchanged": "mute", "failed": "fail", "abstained": "abst"}


def _warnings(nights: Sequence[NightResult], extra: Sequence[str]) -> str:
    """Each skill's warnings, then the run's own (those not already shown for a skill)."""
    shown = [f"{r.skill}: {w}" for r in nights for w in r.warnings]
    items = shown + [w for w in extra if w not in shown]
    return "".join(f'<div class="callout warn" data-warning=""><b>Warning:</b> {escape(w)}'
                   "</div>" for w in items)


def _skills_table(nights: Sequence[NightResult]) -> str:
    rows = []
    for r in nights:
        f = figures(r)
        word = outcome(r)
        status = f'<span class="pill {_PILLS[word]}">{word}</span>'
        rows.append(
            f'<tr><td><a href="#skill-{escape(r.skill)}">{escape(r.skill or "—")}</a> {status}</td>'
            f'<td class="num">{fmt_score(f["baseline_val"])} → {fmt_score(f["after_val"])} '
            f"{_delta_html(f['baseline_val'], f['after_val'])}</td>"
            f'<td class="num">{fmt_score(f["baseline_test"])} → {fmt_score(f["after_test"])} '
            f"{_delta_html(f['baseline_test'], f['after_test'])}"
            f'<span class="sample">{escape(sample_note(r)) if scored(r) else ""}</span></td>'
            f'<td class="num">{f["proposals_tried"]} / {f["accepted"]}</td></tr>')
    return ('<table class="skills"><thead><tr><th>Skill</th><th class="num">Validation</th>'
            '<th class="num">Test</th><th class="num">Tried / accepted</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _cost_table(nights: Sequence[NightResult]) -> str:
    cost: dict[str, float] = {}
    calls: dict[str, int] = {}
    failed: dict[str, int] = {}
    for r in nights:
        for role, usd in r.cost_by_role.items():
            cost[role] = cost.get(role, 0.0) + usd
        counted = figures(r)["calls_by_role"]
        for role, row in r.failures_by_role.items():  # every role, the judge's too
            counted.setdefault(role, row["calls"])
            failed[role] = failed.get(role, 0) + row["failed"]
        for role, n in counted.items():
            calls[role] = calls.get(role, 0) + n
    rows = "".join(
        f'<tr><td>{escape(role)}</td><td class="num">{calls.get(role, "—")}</td>'
        f'<td class="num{" bad" if failed.get(role) else ""}">{failed.get(role, "—")}</td>'
        f'<td class="num">${cost.get(role, 0.0):.4f}</td></tr>'
        for role in sorted(set(cost) | set(calls)))
    all_calls = sum(calls.values()) if calls else sum(r.model_calls for r in nights)
    total = (f'<tr><th>all roles</th><th class="num">{all_calls}</th>'
             f'<th class="num">{sum(failed.values()) if failed else "—"}</th>'
             f'<th class="num">${sum(r.cost_usd for r in nights):.4f}</th></tr>')
    note = ("" if calls else '<p class="meta">These results count model calls in total only, '
            "not per role.</p>")
    return ('<table class="cost"><thead><tr><th>Role</th><th class="num">Calls</th>'
            '<th class="num">Failed</th><th class="num">Cost</th></tr></thead>'
            f"<tbody>{rows}{total}</tbody></table>{note}")


def _plots(nights: Sequence[NightResult], history: Sequence[NightResult]) -> str:
    tonight = {r.night_id for r in nights}
    seen = {(r.night_id, r.skill) for r in history}
    allr = list(history) + [r for r in nights if (r.night_id, r.skill) not in seen]
    out = []
    for skill in dict.fromkeys(r.skill for r in nights):
        mine = [r for r in allr if r.skill == skill]
        svg = score_plot(mine, tonight=tonight, label=f"{skill}: scores night over night")
        out.append(f'<figure class="scores" data-skill="{escape(skill)}">'
                   f"<figcaption><b>{escape(skill)}</b> — validation and test scores over "
                   f"{len(mine)} night(s); the shaded column is tonight</figcaption>{svg}</figure>")
    return "".join(out)


# --- one skill -----------------------------------------------------------------------------


def _edit_body(d: GateDecision) -> str:
    e = d.edit
    where = {"insert_after": "after", "replace": "replaces", "delete": "deletes"}.get(e.op, "")
    anchor = (f'<div class="anchor">{where}: <code>{escape(e.anchor)}</code></div>'
              if e.anchor else "")
    text = f'<div class="edit-text">{escape(e.text)}</div>' if e.text else ""
    kind = "slow update" if e.region == "slow" else f"step {d.step + 1}"
    rationale = (f'<div class="meta">rationale: {escape(e.rationale)}</div>'
                 if e.rationale else "")
    return (f'<div><span class="pill op">{escape(e.op)}</span> '
            f'<span class="meta">{escape(kind)} · from {escape(e.origin)}s · '
            f"support {e.support} · id <code>{escape(e.id)}</code></span></div>"
            f"{anchor}{text}{rationale}")


def _bar(delta: float, scale: float) -> str:
    width = 50 * min(1.0, abs(delta) / scale) if scale else 0.0
    cls = "pos" if delta > 0 else "neg"
    return f'<div class="bar"><i class="{cls}" style="width:{width:.1f}%"></i></div>'


def _evidence(d: GateDecision, intents: dict[str, str]) -> str:
    verdict = ('<span class="pill ok">accepted</span>' if d.accepted
               else '<span class="pill no">rejected</span>')
    stats = (f'<div class="stats">{verdict}<span>mean Δ <b class="{_delta_class(d.mean_delta)}">'
             f"{d.mean_delta:+.3f}</b></span><span>p = <b>{d.p_value:.3g}</b></span>"
             f"<span>n pairs = <b>{d.n_pairs}</b></span><span>{escape(d.metric)}: "
             f"<b>{d.incumbent_score:.3f} → {d.candidate_score:.3f}</b></span></div>"
             f'<div class="why">why: {escape(d.reason)}</div>')
    if not d.task_deltas:
        return stats
    scale = max(abs(v) for v in d.task_deltas.values()) or 1.0
    rows = "".join(
        f'<tr><td><code>{escape(tid)}</code><div class="meta">{escape(intents.get(tid, ""))}</div>'
        f'</td><td class="num {_delta_class(v)}">{v:+.3f}</td><td>{_bar(v, scale)}</td></tr>'
        for tid, v in sorted(d.task_deltas.items(), key=lambda kv: -kv[1]))
    return (stats + f'<details class="deltas"{" open" if d.accepted else ""}><summary>'
            'paired Δ per validation task '
            f"({len(d.task_deltas)} tasks)</summary><table><thead><tr><th>Task</th>"
            '<th class="num">mean Δ</th><th>candidate − incumbent</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></details>")


def _accepted(r: NightResult, intents: dict[str, str]) -> str:
    if not r.accepted:
        return '<h3>Accepted edits</h3><p class="meta">None tonight.</p>'
    cards = "".join(f'<div class="edit accepted">{_edit_body(d)}{_evidence(d, intents)}</div>'
                    for d in r.accepted)
    return f"<h3>Accepted edits ({len(r.accepted)})</h3>{cards}"


_STAGE_NOTES = {
    "gate": "replayed on the validation tasks and did not beat the incumbent",
    "firewall": "blocked before replay by the edit firewall",
    "budget": "over the step's edit budget (the textual learning rate)",
    "merge": "duplicates or edits already rejected on an earlier step or night",
    "apply": "could not be applied to the skill document",
    "contradict": "beat the incumbent but forbids what this skill's own tasks are judged on",
    "cross": "beat the incumbent but lowered another skill loaded beside it",
}


def _rejected_stage(stage: str, ds: list[GateDecision], intents: dict[str, str]) -> str:
    head = (f'<h3 class="stage" data-stage="{escape(stage)}">Rejected at {escape(stage)} '
            f'({len(ds)}) <span class="meta">— {escape(_STAGE_NOTES.get(stage, ""))}</span></h3>')
    if stage == "gate":
        items = "".join(
            f'<details class="edit rejected"><summary>{escape(d.edit.text or d.edit.anchor)} — '
            f'<span class="meta">{escape(d.reason)}</span></summary>{_edit_body(d)}'
            f"{_evidence(d, intents)}</details>" for d in ds)
        return head + items
    rows = "".join(
        f'<tr><td class="num">{"slow" if d.edit.region == "slow" else d.step + 1}</td>'
        f'<td><span class="pill op">{escape(d.edit.op)}</span></td>'
        f"<td>{escape(d.edit.text or d.edit.anchor)}</td><td>{escape(d.reason)}</td></tr>"
        for d in ds)
    return (head + '<table><thead><tr><th class="num">Step</th><th>Op</th><th>Edit</th>'
            f"<th>Reason</th></tr></thead><tbody>{rows}</tbody></table>")


def _rejected(r: NightResult, intents: dict[str, str]) -> str:
    groups = {k: v for k, v in by_stage(r.decisions).items() if v}
    if not groups:
        return ""
    total = sum(len(v) for v in groups.values())
    return (f"<h3>Rejected edits ({total})</h3>"
            + "".join(_rejected_stage(stage, ds, intents) for stage, ds in groups.items()))


def _task_item(row: dict[str, Any]) -> str:
    before, after = row.get("before_score"), row.get("after_score")
    return (f'<details class="task" data-task="{escape(str(row.get("task_id", "")))}"><summary>'
            f'{escape(str(row.get("intent", "")))} <span class="meta">'
            f"{fmt_score(before)} → {fmt_score(after)}</span> {_delta_html(before, after)}"
            '</summary><div class="answers">'
            f'<div><b>Before</b><pre>{escape(str(row.get("before_answer", "")))}</pre>'
            f'<div class="rat">{escape(str(row.get("before_rationale", "")))}</div></div>'
            f'<div><b>After</b><pre>{escape(str(row.get("after_answer", "")))}</pre>'
            f'<div class="rat">{escape(str(row.get("after_rationale", "")))}</div></div>'
            f'</div><div class="meta">task <code>{escape(str(row.get("task_id", "")))}</code>'
            "</div></details>")


def _tasks(r: NightResult) -> str:
    out = []
    for split, note in (("validation", "gates every edit"), ("test", "reported, never gates")):
        rows = [row for row in r.task_evidence if row.get("split") == split]
        if not rows:
            continue

        def moved(row: dict[str, Any]) -> float:
            return abs((row.get("after_score") or 0.0) - (row.get("before_score") or 0.0))

        rows.sort(key=lambda row: -moved(row))
        changed = sum(1 for row in rows if moved(row) > 1e-9)
        items = "".join(_task_item(row) for row in rows)
        is_open = " open" if split == "validation" else ""
        out.append(f'<details class="split" data-split="{split}"{is_open}><summary>'
                   f"<b>{split.capitalize()} tasks</b> ({len(rows)}, {changed} changed score; "
                   f"{note}; largest changes first)</summary>{items}</details>")
    if not out:
        return ""
    return "<h3>Answers before and after, per task</h3>" + "".join(out)


def _skill_section(r: NightResult, diffs: dict[str, str] | None) -> str:
    intents = {str(row.get("task_id")): str(row.get("intent", "")) for row in r.task_evidence}
    notes = "".join(f"<li>{escape(n)}</li>" for n in r.notes)
    return (f'<section class="skill" id="skill-{escape(r.skill)}"><h2>{escape(r.skill)} '
            f'<span class="meta">night <code>{escape(r.night_id)}</code></span></h2>'
            f"{_callouts([r])}<h3>Proposed change"
            f"{' (not staged: the night failed)' if r.failed else ''}</h3>"
            f"{diff_html(diff_text(r, diffs))}"
            f"{_accepted(r, intents)}{_rejected(r, intents)}{entries_html(r)}{_tasks(r)}"
            + (f"<h3>Notes</h3><ul>{notes}</ul>" if notes else "") + "</section>")


def render(nights: list[NightResult], *, history: Sequence[NightResult] = (),
           diffs: dict[str, str] | None = None, title: str = "",
           warnings: Sequence[str] = ()) -> str:
    """One self-contained HTML document for this night's results (one per skill).

    ``history`` is earlier nights of the same project, oldest first (tonight's may be
    included; it is added when missing); ``diffs`` maps skill name to the proposal's
    unified diff (computed from the night's before/after text when absent); ``warnings``
    are the run's own (a role whose calls failed too often), shown beside the skills'.
    """
    body = [_header(nights, title)]
    if not nights:
        body.append('<p class="callout">No skill was trained this night.</p>')
    else:
        body += [_callouts(nights), _warnings(nights, warnings), _cards(nights),
                 "<h2>Skills</h2>", _skills_table(nights), trigger_section(nights),
                 "<h2>Scores night over night</h2>", _plots(nights, history),
                 "<h2>Cost and calls by role</h2>", _cost_table(nights)]
        body += [_skill_section(r, diffs) for r in nights if r.skill]
    doc_title = escape(title or "skillopt-sleep night report")
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{doc_title}</title><style>{CSS}</style></head>"
            f"<body><main>{''.join(body)}</main></body></html>")


def render_json(nights: Sequence[NightResult]) -> dict[str, Any]:
    """``report.json``: every result as ``to_dict``, plus the computed summary per skill."""
    per_skill = [figures(r) for r in nights]
    return {
        "nights": [to_dict(r) for r in nights],
        "summary": {
            "skills": per_skill,
            "proposals_tried": sum(f["proposals_tried"] for f in per_skill),
            "accepted": sum(f["accepted"] for f in per_skill),
            "model_calls": sum(f["model_calls"] for f in per_skill),
            "cost_usd": sum(f["cost_usd"] for f in per_skill),
            "failed": [f["failed"] for f in per_skill if f["failed"]],
            "warnings": [f"{f['skill']}: {w}" for f in per_skill for w in f["warnings"]],
        },
    }
