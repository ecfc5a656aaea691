"""The firewall on its labelled corpora: hostile learned text caught, benign skills flagged.

    PYTHONPATH=. .venv/bin/python experiments/firewall_corpus.py [--json]

Hostile cases (``tests/data/firewall/hostile.jsonl``) are checked as an edit
(``check_edit``) and inside a skill's learned region (``lint``); a case counts as caught
when its labelled rule fires. Benign skills (``tests/data/firewall/benign/``) count as
flagged when ``lint`` reports anything above note level.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from skillopt_sleep.firewall import NOTES, check_edit, lint_document
from skillopt_sleep.records import Edit

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "firewall"
SKILL = (
    "---\nname: fix\ndescription: Fix bugs\n---\nFix bugs carefully.\n\n"
    "<!-- skillopt-sleep:learned:start -->\n- {entry}\n<!-- skillopt-sleep:learned:end -->\n"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    hostile = [json.loads(x) for x in (DATA / "hostile.jsonl").read_text("utf-8").splitlines()]
    by_edit = [c for c in hostile
               if c["rule"] in {f.rule for f in check_edit(Edit(op="append", text=c["text"]))}]
    by_lint = [c for c in hostile
               if c["rule"] in {f.rule for f in lint_document(SKILL.format(entry=c["text"]))}]
    benign = sorted((DATA / "benign").glob("*.md"))
    flagged = [p.stem for p in benign
               if any(f.rule not in NOTES for f in lint_document(p.read_text("utf-8")))]
    summary = {
        "hostile": len(hostile),
        "caught_by_edit_check": len(by_edit),
        "caught_by_lint": len(by_lint),
        "missed": sorted({c["label"] for c in hostile}
                         - ({c["label"] for c in by_edit} & {c["label"] for c in by_lint})),
        "benign": len(benign),
        "benign_failing_lint": len(flagged),
        "flagged": flagged,
    }
    print(json.dumps(summary) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
