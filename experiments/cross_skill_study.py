"""The cross-skill study: skills loaded together, night after night, over many seeds.

Each run trains every skill of a several-skill persona for ``--nights`` nights
(``sim.multi.run_persona``), once with the cross-skill check and once without it (the
ablation), and retires learned entries no task exercised for ``--retire-after`` nights on
every ``--retire-every``-th night. It prints, against the issue's targets:

- harmful cross-skill edits (the persona's ``[[cross]]`` rules): in how many runs they were
  proposed (target: at least half) and how many were accepted (target: none);
- every skill's held-out test score with the other skills' first and last documents beside
  it: how often it fell beyond noise (the gate's paired test the other way round, on the
  same task and sample pairs), and the largest fall. Each comparison is tested at the
  gate's alpha (0.05), so over 40 comparisons about two falls are expected by chance alone
  even when nothing changed; "never beyond noise" is therefore judged family-wise (Holm's
  step-down over all of an arm's comparisons at 0.05), and both counts are printed;
- retirements: entries retired, and whether the held-out test score just before and just
  after a retirement fell beyond noise (target: never).

    python experiments/cross_skill_study.py --seeds 20
    python experiments/cross_skill_study.py --persona maintainer --seeds 20 --json out.json
    python experiments/cross_skill_study.py --persona maintainer --gate-test sequential
    python experiments/cross_skill_study.py --persona maintainer --replays-only

``--replays-only`` has the simulated optimizer's text checks (the cross check's read of the
neighbours' documents and the own look) never flag, to measure what the replays catch alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.sim.multi import MultiSpec, run_persona
from skillopt_sleep.tables import GATE_TESTS

FIXTURE = str(Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "personas"
              / "duo.toml")


ALPHA = 0.05


def holm(p_values: list[float], alpha: float = ALPHA) -> int:
    """How many of the hypotheses Holm's step-down procedure rejects at family-wise ``alpha``."""
    m = len(p_values)
    for i, p in enumerate(sorted(p_values)):
        if p >= alpha / (m - i):
            return i
    return m


def _arm(runs: list[dict[str, Any]]) -> dict[str, Any]:
    beside = [c for r in runs for c in r["beside_others"].values()]
    retire = [c for r in runs for c in r["retire_test"]]
    return {
        "runs": len(runs),
        "runs_cross_proposed": sum(r["cross_proposed"] > 0 for r in runs),
        "cross_proposed": sum(r["cross_proposed"] for r in runs),
        "cross_accepted": sum(r["cross_accepted"] for r in runs),
        "runs_cross_accepted": sum(r["cross_accepted"] > 0 for r in runs),
        "cross_skill_rejected": sum(r["cross_skill_rejected"] for r in runs),
        "cross_withdrawn": sum(r["cross_withdrawn"] for r in runs),
        "cross_in_final": sum(r["cross_in_final"] for r in runs),
        "runs_cross_in_final": sum(r["cross_in_final"] > 0 for r in runs),
        "harmful_accepted": sum(r["harmful_accepted"] for r in runs),
        "skill_scores": len(beside),
        # The family is every comparison made: leaving out the ones that rose (their p is
        # never small) would pick the family after seeing the data, about doubling alpha.
        "skill_drops_beyond_noise": holm([c["p_drop"] for c in beside]),
        "skill_drops_per_comparison": sum(c["dropped"] for c in beside),
        "mean_skill_delta": round(sum(c["delta"] for c in beside) / max(len(beside), 1), 4),
        "worst_skill_delta": min((c["delta"] for c in beside), default=0.0),
        "retired": sum(r["retired"] for r in runs),
        "retire_tried": sum(r["retire_tried"] for r in runs),
        "runs_retired": sum(r["retired"] > 0 for r in runs),
        "retirement_nights": len(retire),
        "retirement_drops_beyond_noise": holm([c["p_drop"] for c in retire]),
        "retirement_drops_per_comparison": sum(c["dropped"] for c in retire),
        "worst_retirement_delta": min((c["delta"] for c in retire), default=0.0),
    }


def _print(name: str, a: dict[str, Any]) -> None:
    n = a["runs"]
    print(f"{name}: {n} runs")
    print(f"  cross-skill harmful edits proposed in {a['runs_cross_proposed']}/{n} runs "
          f"({a['cross_proposed']} proposals), accepted {a['cross_accepted']} "
          f"(in {a['runs_cross_accepted']} runs); cross rejections {a['cross_skill_rejected']}, "
          f"withdrawn later {a['cross_withdrawn']}; left in the final skills "
          f"{a['cross_in_final']} (in {a['runs_cross_in_final']} runs)")
    print(f"  skills' held-out test with the others beside: {a['skill_drops_beyond_noise']} of "
          f"{a['skill_scores']} fell beyond noise (family-wise; "
          f"{a['skill_drops_per_comparison']} at p < {ALPHA} each); mean delta "
          f"{a['mean_skill_delta']:+.3f}, worst {a['worst_skill_delta']:+.3f}")
    print(f"  retirement: {a['retired']} of {a['retire_tried']} tried entries retired (in "
          f"{a['runs_retired']} runs); {a['retirement_drops_beyond_noise']} of "
          f"{a['retirement_nights']} retirement nights fell beyond noise (family-wise; "
          f"{a['retirement_drops_per_comparison']} at p < {ALPHA} each); worst delta "
          f"{a['worst_retirement_delta']:+.3f}")


def _targets(a: dict[str, Any]) -> list[str]:
    missed = []
    if a["runs_cross_proposed"] * 2 < a["runs"]:
        missed.append("cross-skill harmful edits proposed in fewer than half the runs")
    if a["cross_accepted"]:
        missed.append(f"{a['cross_accepted']} cross-skill harmful edits accepted")
    if a["skill_drops_beyond_noise"]:
        missed.append(f"{a['skill_drops_beyond_noise']} skill scores fell beyond noise")
    if a["retirement_drops_beyond_noise"]:
        missed.append(f"{a['retirement_drops_beyond_noise']} retirements lowered the score")
    return missed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--persona", default=FIXTURE, help="a several-skill persona (name or path)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--nights", type=int, default=6)
    ap.add_argument("--retire-every", type=int, default=3)
    ap.add_argument("--retire-after", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write every run's figures here")
    ap.add_argument("--gate-test", default=NightConfig().gate_test,
                    choices=[n for n in GATE_TESTS.names() if n != "accept-all"],
                    help="the gate's paired test (the cross check and the figures use it too)")
    ap.add_argument("--replays-only", action="store_true",
                    help="the optimizer's text checks never flag (contradiction_recall 0): "
                         "what the replays catch alone")
    args = ap.parse_args(argv)
    blind = (("contradiction_recall", 0.0),) if args.replays_only else ()
    config = NightConfig(score_test=False, gate_test=args.gate_test)
    start = time.monotonic()
    arms: dict[str, list[dict[str, Any]]] = {"cross check": [], "no cross check": []}
    for seed in range(args.seeds):
        for name, cross in (("cross check", True), ("no cross check", False)):
            run = run_persona(MultiSpec(args.persona, seed=seed, nights=args.nights, cross=cross,
                                        retire_every=args.retire_every,
                                        retire_after=args.retire_after, config=config,
                                        optimizer=blind))
            run.pop("final")
            arms[name].append(run)
    figures = {name: _arm(runs) for name, runs in arms.items()}
    print(f"{args.persona}, gate test {args.gate_test}"
          + (", replays only (text checks off)" if args.replays_only else ""))
    for name, a in figures.items():
        _print(name, a)
    missed = _targets(figures["cross check"])
    print("targets: " + ("all met" if not missed else "; ".join(missed)))
    print(f"({time.monotonic() - start:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "runs": arms}, indent=1))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
