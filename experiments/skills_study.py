"""The skills study: a several-skill persona × many seeds through the proof run.

Each run is one ``prove`` of the persona (every skill trained each night, the trigger
check first). The study prints, per seed and over all seeds, the under-described skill's
trigger recall on its own held-out test tasks and its false-trigger rate on the other
skills' test tasks, before and after the nights, against the issue's targets (recall after
≥ 0.8, false triggers after ≤ 0.1, in every run), with the description proposals, the
cross-skill edits proposed and accepted, and every skill's test score before and after.

    python experiments/skills_study.py --seeds 20
    python experiments/skills_study.py --seeds 20 --json skills_study.json
    python experiments/skills_study.py --seeds 20 --no-gate   # every proposal accepted
    python experiments/skills_study.py --seeds 20 --gate-test sequential
    python experiments/skills_study.py --persona tests/fixtures/personas/maintainer_shims.toml
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.sim.prove import ProofSpec, prove
from skillopt_sleep.tables import GATE_TESTS

MIN_RECALL_AFTER = 0.8
MAX_FALSE_AFTER = 0.1

_KEYS = ("seed", "trigger_skill", "trigger_recall_before", "trigger_recall_after",
         "false_trigger_before", "false_trigger_after", "descriptions_proposed",
         "descriptions_accepted", "broad_descriptions_proposed",
         "broad_descriptions_accepted", "cross_proposed", "cross_accepted", "baseline_test",
         "after_test", "skill_tests", "failed_picks")


def run(persona: str, seeds: int, nights: int, gate: bool = True,
        gate_test: str = "sign") -> list[dict[str, Any]]:
    runs = []
    config = NightConfig(gate_test=gate_test)
    for seed in range(seeds):
        summary = prove(ProofSpec(persona=persona, seed=seed, nights=nights, gate=gate,
                                  config=config))
        if "trigger_skill" not in summary:
            raise SystemExit(f"persona {persona!r} has one skill; the study needs several")
        runs.append({k: summary[k] for k in _KEYS})
    return runs


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def aggregate(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    recall = [r["trigger_recall_after"] or 0.0 for r in runs]
    false = [r["false_trigger_after"] or 0.0 for r in runs]
    skills = sorted(runs[0]["skill_tests"]) if runs else []
    return {
        "runs": len(runs),
        "recall_before_mean": _mean([r["trigger_recall_before"] or 0.0 for r in runs]),
        "recall_after_mean": _mean(recall),
        "recall_after_min": min(recall, default=0.0),
        "false_before_mean": _mean([r["false_trigger_before"] or 0.0 for r in runs]),
        "false_after_mean": _mean(false),
        "false_after_max": max(false, default=0.0),
        "runs_meeting_targets": sum(1 for a, b in zip(recall, false, strict=True)
                                    if a >= MIN_RECALL_AFTER and b <= MAX_FALSE_AFTER),
        "descriptions_accepted_mean": _mean([r["descriptions_accepted"] for r in runs]),
        "broad_proposed": sum(r["broad_descriptions_proposed"] for r in runs),
        "broad_accepted": sum(r["broad_descriptions_accepted"] for r in runs),
        "cross_proposed_runs": sum(1 for r in runs if r["cross_proposed"]),
        "cross_accepted_runs": sum(1 for r in runs if r["cross_accepted"]),
        "skill_tests": {s: {"baseline_mean": _mean([r["skill_tests"][s]["baseline_test"]
                                                    for r in runs]),
                            "after_mean": _mean([r["skill_tests"][s]["after_test"]
                                                 for r in runs])} for s in skills},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--persona", default="maintainer", help="a several-skill persona")
    parser.add_argument("--seeds", type=int, default=20, help="seeds 0..N-1")
    parser.add_argument("--nights", type=int, default=3, help="nights per run")
    parser.add_argument("--json", type=Path, default=None, help="also write the runs here")
    parser.add_argument("--no-gate", action="store_true",
                        help="accept every proposal (the ablation that shows the gate's worth)")
    parser.add_argument("--gate-test", default=NightConfig().gate_test,
                        choices=[n for n in GATE_TESTS.names() if n != "accept-all"],
                        help="the gate's paired test (the trigger gate and the cross check "
                             "use it too)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    runs = run(args.persona, args.seeds, args.nights, gate=not args.no_gate,
               gate_test=args.gate_test)
    result = aggregate(runs)
    print(f"skills study: {args.persona} × {args.seeds} seeds, {args.nights} nights each, "
          f"gate test {args.gate_test}{', gate off' if args.no_gate else ''} "
          f"({time.monotonic() - start:.0f} s); "
          "under-described skill: "
          f"{runs[0]['trigger_skill'] if runs else '-'}")
    print("seed  recall before→after  false before→after  descriptions acc/prop  cross p/a")
    for r in runs:
        print(f"{r['seed']:>4}  {r['trigger_recall_before']:.3f} → {r['trigger_recall_after']:.3f}"
              f"       {r['false_trigger_before']:.3f} → {r['false_trigger_after']:.3f}"
              f"      {r['descriptions_accepted']:>2}/{r['descriptions_proposed']:<2}"
              f"                  {r['cross_proposed']}/{r['cross_accepted']}")
    print(f"recall after: mean {result['recall_after_mean']:.3f}, min "
          f"{result['recall_after_min']:.3f} (before: mean {result['recall_before_mean']:.3f})")
    print(f"false triggers after: mean {result['false_after_mean']:.3f}, max "
          f"{result['false_after_max']:.3f} (before: mean {result['false_before_mean']:.3f})")
    print(f"runs meeting recall ≥ {MIN_RECALL_AFTER} and false ≤ {MAX_FALSE_AFTER}: "
          f"{result['runs_meeting_targets']}/{result['runs']}")
    for skill, s in result["skill_tests"].items():
        print(f"test score {skill}: {s['baseline_mean']:.3f} → {s['after_mean']:.3f}")
    print(f"descriptions naming other skills' work: {result['broad_proposed']} proposed, "
          f"{result['broad_accepted']} accepted")
    print(f"cross-skill edits proposed in {result['cross_proposed_runs']}/{result['runs']} runs, "
          f"accepted in {result['cross_accepted_runs']}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "aggregate": result}, indent=1))
    return 0 if result["runs_meeting_targets"] == result["runs"] else 1


if __name__ == "__main__":
    sys.exit(main())
