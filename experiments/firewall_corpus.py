"""The firewall's figures: the edit corpora by class and wrapping, and ``lint`` on real skills.

    PYTHONPATH=. .venv/bin/python experiments/firewall_corpus.py [--skills DIR] [--json]

Edits (``tests/data/firewall_edits.py``: hostile by class x target x wrapping, benign
look-alikes) are checked as the night checks a proposal last: the whole skill as it would
be written, against a context that grants nothing. A hostile edit counts as refused when
its own class fires; a benign one as flagged when anything fires. ``--skills`` adds
``lint``'s reading of a folder of real skills (errors, warnings by class, notes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from skillopt_sleep.firewall import Context, check_proposal, lint_document  # noqa: E402
from tests.data.firewall_edits import (  # noqa: E402
    MULTI_LINE,
    SPLIT,
    Case,
    benign,
    hand,
    hostile,
)

BLIND = [p.stem for p in sorted((ROOT / "tests" / "data").glob("firewall_blind*.py"))]
# The prose probes with hostile and benign edits (probe d holds grants, read by its test).
BLIND += [p.stem for p in sorted((ROOT / "tests" / "data").glob("firewall_prose_*.py"))
          if p.stem != "firewall_prose_d"]
SKILL = "---\nname: fix\ndescription: Fix bugs\n---\nFix bugs carefully.\n"


def _rules(case: Case) -> set[str]:
    after = (SKILL + "\n<!-- skillopt-sleep:learned:start -->\n" + "\n".join(case.lines)
             + "\n<!-- skillopt-sleep:learned:end -->\n")
    return {f.rule for f in check_proposal(SKILL, after, Context())}


def edits(cases: list[Case], good: list[Case]) -> dict[str, Any]:
    by_class: Counter[str] = Counter()
    by_wrap: Counter[str] = Counter()
    refused = 0
    for case in cases:
        hit = case.kind in _rules(case)
        refused += hit
        by_class[case.kind] += not hit
        by_wrap[case.label.split("/")[1]] += not hit
    flagged = [c.lines[0] for c in good if _rules(c)]
    return {"hostile": len(cases), "refused": refused, "missed_by_class": dict(by_class),
            "missed_by_wrapping": dict(by_wrap), "benign": len(good), "flagged": flagged,
            "split_refused": SPLIT.kind in _rules(SPLIT),
            "multi_line_refused": MULTI_LINE.kind in _rules(MULTI_LINE)}


def blind(module: Any) -> dict[str, Any]:
    """A blind probe (``tests/data/firewall_blind*.py``): edits appended to its own skill."""
    def rules(lines: tuple[str, ...]) -> set[str]:
        after = (module.SKILL + "\n<!-- skillopt-sleep:learned:start -->\n" + "\n".join(lines)
                 + "\n<!-- skillopt-sleep:learned:end -->\n")
        return {f.rule for f in check_proposal(module.SKILL, after, Context())}
    missed = [lines[0] for kind, lines in module.HOSTILE if kind not in rules(lines)]
    flagged = [lines[0] for _, lines in module.BENIGN if rules(lines)]
    return {"hostile": len(module.HOSTILE), "refused": len(module.HOSTILE) - len(missed),
            "missed": missed, "benign": len(module.BENIGN), "flagged": flagged}


def skills(folder: Path) -> dict[str, Any]:
    files = sorted(p for p in folder.rglob("*.md") if p.name in ("SKILL.md", "skill.md",
                   "copilot-instructions.md") or p.name.endswith(".instructions.md"))
    severities: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for path in files:
        for f in lint_document(path.read_bytes().decode("utf-8", errors="replace")):
            severities[f.severity] += 1
            if f.severity == "warning":
                warnings[f.rule] += 1
    return {"files": len(files), **severities, "warnings_by_rule": dict(warnings)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, Any] = {"edits": edits(hostile(), benign()), "hand": edits(*hand())}
    for name in BLIND:
        out[name] = blind(importlib.import_module(f"tests.data.{name}"))
    if args.skills:
        out["skills"] = skills(args.skills)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name in ("edits", "hand"):
        e = out[name]
        print(f"{name}: hostile refused by their class: {e['refused']}/{e['hostile']}; "
              f"benign flagged: {len(e['flagged'])}/{e['benign']} {e['flagged']}")
        print(f"  missed by class: {e['missed_by_class']}")
    for name in BLIND:
        b = out[name]
        print(f"{name}: hostile refused by their class: {b['refused']}/{b['hostile']}; "
              f"benign flagged: {len(b['flagged'])}/{b['benign']}")
        print(f"  missed: {b['missed']}\n  flagged: {b['flagged']}")
    e = out["edits"]
    print(f"  missed by wrapping: {e['missed_by_wrapping']}")
    print(f"split payload refused: {e['split_refused']}; "
          f"multi-line payload refused: {e['multi_line_refused']}")
    if "skills" in out:
        print(f"lint on {args.skills}: {out['skills']}")


if __name__ == "__main__":
    main()
