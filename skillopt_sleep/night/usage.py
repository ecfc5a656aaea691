"""Which learned entries still earn their place: their age, evidence and last use.

After each night, ``keep`` records every entry the night accepted (the night and the gate's
evidence), marks the entries tonight's tasks *exercised*, marks what a retirement deleted,
and fills ``NightResult.entries`` for the report. Before a night, ``stale`` names the
learned entries no task exercised for ``after`` nights, which a retirement night
(``retire_night``: every ``every``-th night of the skill) tries deleting through the gate.

*Exercised*: a task exercises an entry when the entry shares a distinctive word with what
the task is judged on (its checks' arguments, rubric or reference). Judges come from the
user's corrections ("No, add a Changelog section"), so an entry about the changelog is in
play exactly when a task is checked for one. A wrong "used" only delays a retirement; a
wrong "unused" only proposes a deletion, which the gate still refuses when the skill does
worse without it.

Nights are counted per skill by ordinal (``seq``: the skill's count of earlier nights).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from skillopt_sleep.archive import entries as store
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.judges.rules import describe
from skillopt_sleep.records import NightResult, Task
from skillopt_sleep.skilldoc import parse

__all__ = ["evidenced", "exercised", "failed_checks", "judged_on", "keep", "novel",
           "retire_night", "stale", "terms", "touched"]

_WORD = re.compile(r"[a-z0-9][a-z0-9_]*")
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from", "has",
    "have", "in", "into", "is", "it", "its", "not", "of", "on", "or", "so", "than", "that",
    "the", "their", "then", "there", "these", "this", "those", "to", "was", "were", "what",
    "when", "where", "which", "while", "who", "why", "will", "with", "without", "you", "your",
    "yes", "all", "any", "each", "every", "one", "two", "use", "used", "using", "make", "made",
    "always", "never", "must", "should", "add", "added", "include", "section", "answer",
    "answers", "text", "task", "tasks",
))


_UNKNOWN = {"note": "in the skill before its use was recorded"}


_ESCAPE = re.compile(r"\\[A-Za-z]")
"""A regex escape in a check's pattern (``\\bseeds``): its letter is not part of a word."""
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
"""Where an identifier's words meet (``getLogger``)."""
_JOINED = re.compile(r"(?<![\w;/&.])[A-Za-z0-9]{1,2}(?:[;/&.][A-Za-z0-9]{1,2})+(?![\w;/&])")
"""An abbreviation of short parts (``TL;DR``, ``CI/CD``), a word only when joined."""


def terms(text: str) -> set[str]:
    """The distinctive words of ``text``: lower case, three letters or more, no stop words.

    What a task is judged on is often a check's pattern, not prose, and the edit that meets
    it is prose: so a regex escape is no letter (``\\bseeds`` reads ``seeds``), an
    identifier also gives its words (``getLogger``: ``getlogger``, ``get``, ``logger``, the
    word an edit saying "a module-level logger" uses), and an abbreviation of short parts
    is one word (``TL;DR`` reads ``tldr``: its parts are too short to count alone).
    """
    text = _ESCAPE.sub(" ", text)
    joined = {re.sub(r"[;/&.]", "", m.group()).lower() for m in _JOINED.finditer(text)}
    words = {*_WORD.findall(text.lower()), *_WORD.findall(_HUMP.sub(" ", text).lower()),
             *joined}
    return {w for w in words if len(w) >= 3 and w not in _STOP}


def judged_on(task: Task) -> str:
    """What ``task`` is judged on: its checks' arguments, rubric and reference."""
    spec = task.judge
    values = [str(v) for check in spec.checks for k, v in check.items() if k not in ("op", "why")]
    return " ".join([*values, spec.rubric, spec.reference])


def exercised(entry: str, tasks: Iterable[Task]) -> bool:
    """Does any of ``tasks`` exercise ``entry`` (see the module docstring)?"""
    words = terms(entry)
    return bool(words) and any(words & terms(judged_on(t)) for t in tasks)


def touched(text: str, tasks: Sequence[Task]) -> list[Task]:
    """The ``tasks`` an edit reading ``text`` touches: each one it would exercise, in order."""
    words = terms(text)
    return [t for t in tasks if words & terms(judged_on(t))] if words else []


def failed_checks(rationales: Iterable[str]) -> set[str]:
    """The checks a rules judge's rationales name as failed (``failed: <check>; <check>``)."""
    return {c for r in rationales if r.startswith("failed: ")
            for c in r.removeprefix("failed: ").split("; ")}


def evidenced(cited: Sequence[set[str]], shown: Sequence[set[str]],
              tasks: Sequence[Task]) -> list[Task]:
    """The ``tasks`` judged by the check an edit's evidence points at, in ``tasks``' order.

    ``cited`` holds the checks each task the edit cites failed, ``shown`` those of every task
    whose answers the night holds (cited or not). The check pointed at is one every cited
    task failed and, among those, the fewest shown tasks failed: what sets the cited
    failures apart, not what every answer misses. What the edit claims to fix, read from the
    answers it was shown, never from its words."""
    common = set.intersection(*cited) if cited else set()
    if not common:
        return []
    fails = {c: sum(c in s for s in shown) for c in common}
    least = min(fails.values())
    aimed = {c for c, n in fails.items() if n == least}
    return [t for t in tasks if t.judge.kind == "rules"
            and any(describe(c) in aimed for c in t.judge.checks)]


def novel(text: str, skill: str, tasks: Sequence[Task]) -> set[str]:
    """The words of what ``tasks`` are judged on that ``text`` holds, unless one line of
    ``skill`` holds them all: what an edit adding ``text`` tells the skill's reader about
    those checks that no line of the skill says already (empty: a restatement of a line, or
    nothing any task is checked for). By line, so that a long skill that speaks of a word
    somewhere does not make every new rule about it a restatement."""
    judged = terms(text) & set().union(*(terms(judged_on(t)) for t in tasks))
    if not judged or any(judged <= terms(line) for line in skill.splitlines()):
        return set()
    return judged


def retire_night(seq: int, every: int) -> bool:
    """Is the skill's night ``seq`` (0-based) a retirement night? Every ``every``-th one."""
    return every > 0 and (seq + 1) % every == 0


def _learned(text: str) -> tuple[str, ...]:
    return parse(text).entries("learned")


def stale(archive: Archive, project: str, skill: str, text: str, night_id: str, seq: int,
          after: int) -> list[str]:
    """Learned entries of ``text`` no task exercised in the last ``after`` nights. An entry
    with no record (learned before its use was kept, or written by hand) starts its count
    tonight."""
    known = store.entries(archive, project, skill)
    found = []
    for entry in _learned(text):
        row = known.get(store.entry_key(entry))
        if row is None or row.retired_night:
            store.record_entry(archive, project, skill, entry, night_id, seq, _UNKNOWN)
            continue
        if seq - row.last_seen_seq >= after:
            found.append(entry)
    return found


def _evidence(result: NightResult) -> dict[str, dict[str, Any]]:
    out = {}
    for d in result.accepted:
        if d.edit.op != "delete" and d.edit.text:
            out[d.edit.text] = {
                "mean_delta": round(d.mean_delta, 4), "p_value": round(d.p_value, 4),
                "n_pairs": d.n_pairs, "before": round(d.incumbent_score, 4),
                "after": round(d.candidate_score, 4), "rationale": d.edit.rationale,
                "step": d.step, "region": d.edit.region}
    return out


def keep(archive: Archive, result: NightResult, tasks: Sequence[Task], seq: int) -> None:
    """Record tonight's accepted and retired entries and the ones tonight's tasks exercised,
    and fill ``result.entries`` (see the module docstring)."""
    project, skill, night = result.project, result.skill, result.night_id
    if result.failed:
        return
    for text, evidence in _evidence(result).items():
        store.record_entry(archive, project, skill, text, night, seq, evidence)
    for d in result.retired:
        if d.accepted:
            store.mark_retired(archive, project, skill, d.edit.anchor, night)
    doc = parse(result.skill_after)
    present = [*doc.entries("learned"), *doc.entries("slow")]
    known = store.entries(archive, project, skill)
    for entry in present:  # learned before its use was kept, or written by hand
        if store.entry_key(entry) not in known:
            store.record_entry(archive, project, skill, entry, night, seq, _UNKNOWN)
    store.mark_used(archive, project, skill, [e for e in present if exercised(e, tasks)],
                    night, seq)
    result.entries = table(archive, project, skill, present, seq)


def table(archive: Archive, project: str, skill: str, present: Sequence[str],
          seq: int) -> list[dict[str, Any]]:
    """The report's rows: each entry of the skill, by last use (least recent first), with
    the entries retired tonight or before after them."""
    known = store.entries(archive, project, skill)
    here = {store.entry_key(e) for e in present}
    rows = []
    for key, row in known.items():
        status = "retired" if row.retired_night and key not in here else "active"
        if status == "active" and key not in here:
            continue  # replaced or deleted by an edit: no longer an entry of the skill
        rows.append({
            "text": row.text, "status": status, "night_id": row.night_id,
            "age_nights": seq - row.accepted_seq, "evidence": row.evidence,
            "last_used_night": row.last_used_night, "uses": row.uses,
            "nights_unused": seq - row.last_seen_seq, "retired_night": row.retired_night})
    return sorted(rows, key=lambda r: (r["status"] == "retired", -r["nights_unused"]))
