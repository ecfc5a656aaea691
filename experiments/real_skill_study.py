"""Does the proof hold on a real skill for many seeds?

For each seed, runs the real-skill persona's quick proof (``prove --assert-improves``) and,
unless ``--quick-only``, its full proof (``prove --full --assert-improves``), and prints
one line per seed: the held-out lift of each, harmful accepts, whether the description
was edited and in which style, whether anything else outside the managed regions changed,
and, for the full proof, the versions rollback restored (the last adoption undone, then
the user's original document, each checked byte for byte with its mode). Exit 1 if any
proof failed.

    python experiments/real_skill_study.py --persona supply-chain --seeds 10
"""

from __future__ import annotations

import argparse
import sys
import time

from skillopt_sleep.errors import AssertionFailed
from skillopt_sleep.frontmatter import description_style
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.prove import ProofSpec, check, prove
from skillopt_sleep.sim.prove_full import FullSpec, prove_full
from skillopt_sleep.skilldoc import parse


def quick(persona: str, seed: int) -> tuple[str, bool]:
    summary = prove(ProofSpec(persona=persona, seed=seed))
    try:
        check(summary)
        ok = True
    except AssertionFailed as exc:
        ok = False
        print(f"  seed {seed} quick: {exc}")
    p = personas.load(persona)
    changed = parse(summary["final_skill"]).description != parse(p.initial_skill()).description
    row = (f"quick {summary['baseline_test']:.3f} → {summary['after_test']:.3f} "
           f"lift {summary['lift']:+.3f} (±{summary['lift_margin'] or 0:.3f}) "
           f"harmful {summary['harmful_accepted']} hostile {summary['hostile_accepted']} "
           f"accepted {summary['edits_accepted']} "
           f"description {'edited' if changed else 'kept'} "
           f"({description_style(summary['final_skill'])}) "
           f"outside {summary['outside_edit'] or 'none'} recall "
           f"{summary['trigger_recall_before']} → {summary['trigger_recall_after']}")
    return row, ok


def full(persona: str, seed: int) -> tuple[str, bool]:
    try:
        summary = prove_full(FullSpec(persona=persona, seed=seed, assert_improves=True))
    except AssertionFailed as exc:
        print(f"  seed {seed} full: {exc}")
        return "full FAILED", False
    row = (f"full {summary['baseline_test']:.3f} → {summary['after_test']:.3f} "
           f"lift {summary['lift']:+.3f} harmful {summary['harmful_accepted']} "
           f"accepted {summary['accepted_per_night']} "
           f"description {'edited' if summary.get('description_changed') else 'kept'} "
           f"({summary.get('description_style', '-')}) "
           f"outside {summary.get('outside_edit') or 'none'} "
           f"rollback v{summary['rolled_back_to']} original "
           f"v{summary.get('restored_original', '-')}")
    return row, True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persona", default="supply-chain")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1")
    parser.add_argument("--quick-only", action="store_true", help="skip prove --full")
    args = parser.parse_args()
    failed = 0
    for seed in range(args.seeds):
        start = time.monotonic()
        row, ok = quick(args.persona, seed)
        parts = [row]
        if not args.quick_only:
            more, ok_full = full(args.persona, seed)
            parts.append(more)
            ok = ok and ok_full
        failed += not ok
        print(f"seed {seed}: " + " | ".join(parts) + f" [{time.monotonic() - start:.0f} s]",
              flush=True)
    print(f"{args.seeds - failed}/{args.seeds} seeds held")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
