"""The skill's proposed change as the report shows it: a unified diff, each line classed.

The diff's text is the night's own (untrusted), so every line is escaped.
"""

from __future__ import annotations

import difflib
from html import escape

from skillopt_sleep.records import NightResult

__all__ = ["diff_html", "diff_text"]


def diff_text(r: NightResult, diffs: dict[str, str] | None) -> str:
    """The night's proposal for ``r.skill`` as a unified diff: the staged one when given."""
    if diffs and r.skill in diffs:
        return diffs[r.skill]
    return "".join(difflib.unified_diff(
        r.skill_before.splitlines(keepends=True), r.skill_after.splitlines(keepends=True),
        fromfile=f"a/{r.skill}/SKILL.md", tofile=f"b/{r.skill}/SKILL.md"))


def diff_html(text: str) -> str:
    """``text`` (a unified diff) as escaped, line-classed HTML."""
    if not text.strip():
        return '<p class="meta">No change proposed: the skill stays as it was.</p>'
    spans = []
    for line in text.splitlines():
        if line.startswith(("+++", "---")):
            cls = "d-meta"
        elif line.startswith("@@"):
            cls = "d-hunk"
        elif line.startswith("+"):
            cls = "d-add"
        elif line.startswith("-"):
            cls = "d-del"
        else:
            cls = "d-ctx"
        spans.append(f'<span class="{cls}">{escape(line) or " "}</span>')
    return f'<pre class="diff">{"".join(spans)}</pre>'
