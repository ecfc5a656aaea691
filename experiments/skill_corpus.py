"""Real skills through the parser and the description edit: how many of a corpus parse,
give a name and a description, take a description edit, and keep its style.

    PYTHONPATH=. python experiments/skill_corpus.py ../shared/fixtures/skills-public

Runs against any checkout (an older one has no ``edit_description``: its
``set_description`` is measured instead), so before and after are the same command with
another ``PYTHONPATH``. The style is read here, from the text, the same way for both.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from skillopt_sleep import skilldoc
from skillopt_sleep.errors import SkillDocError

NEW = "Use when the corpus measurement edits this skill, and only then"
_DESC = re.compile(r"^description[ \t]*:[ \t]*(\S?)(.*)$", re.MULTILINE)


def style(text: str) -> str:
    """The description's style from the text: its first character (or the next line's)."""
    head = text.split("\n---", 2)[0] if text.lstrip("\ufeff").startswith("---") else ""
    match = _DESC.search(head)
    if not match:
        return "none"
    first = match.group(1) or head[match.end():].lstrip()[:1]
    return {"'": "single", '"': "double", "|": "literal", ">": "folded"}.get(first, "plain")


def measure(root: Path) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for path in sorted(p for p in root.rglob("*.md") if p.name != "SOURCES.md"):
        text = path.read_bytes().decode("utf-8")
        counts["files"] += 1
        try:
            doc = skilldoc.parse(text)
        except SkillDocError:
            counts["refused"] += 1
            continue
        counts["parsed"] += 1
        counts["with description"] += bool(doc.description.strip())
        for note in getattr(doc, "notes", ()):
            counts[f"note {note.code}"] += 1
        if hasattr(skilldoc, "edit_description"):
            done = skilldoc.edit_description(doc, NEW)
            new, outcome, why = done.doc, done.outcome.value, done.reason
        else:
            new, out = skilldoc.set_description(doc, NEW)
            outcome, why = out.value, ""
        counts[f"edit {outcome}"] += 1
        if outcome == "applied":
            counts["edit keeps its style"] += style(new.text) == style(text) or \
                style(text) == "none"
        elif why:
            counts[f"edit refused: {why[:60]}"] += 1
    return dict(counts)


if __name__ == "__main__":
    for key, value in measure(Path(sys.argv[1])).items():
        print(f"{key}: {value}")
