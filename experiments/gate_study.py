"""The gate study: every persona × many seeds through the proof run, against the issue's targets.

Each run is one ``prove`` (the nights gated, and the same nights with the gate off). The study
reports, per persona and overall, how far the held-out test score rose, whether harmful edits
were proposed and ever let in, how often neutral edits got past the gate, how often the
gated skill scored at least as well on test as the ungated one, and what the gated nights
cost: their model calls (target, optimizer and judge, the test-split scoring included; the
gate-off twin's calls are not counted) and those calls per +0.01 of held-out test lift
(total calls over total lift, so a run that gained nothing still counts its calls). The
test split is measurement, not the night (about 200 calls a run score it for the two
reported figures), so the same ratio is also given for the nights alone ("nights only");
the calls target is judged on the first, stricter figure.

    python experiments/gate_study.py --seeds 20 --nights 3 --json gate_study.json
    python experiments/gate_study.py --gate-test sign   # the fixed-sample gate, for comparison
    python experiments/gate_study.py --seeds 10 --set min_support=1   # any NightConfig field
    python experiments/gate_study.py --seeds 20 --sim unworded=1 --sim vocab_neutral=0.5
        # simulator knobs (``sim.wording``): correct rules worded without any checked word,
        # neutral texts reusing checked words
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.prove import ProofSpec, prove

# The targets; a row meets them only if every one holds.
MIN_MEAN_LIFT = 0.40
MAX_BASELINE = 0.40
MIN_HARMFUL_PROPOSED_SHARE = 0.5
MAX_NEUTRAL_ACCEPT_RATE = 0.05
MIN_GATED_AT_LEAST_UNGATED = 0.90
MAX_CALLS_PER_LIFT = 9.0
"""Gated nights' model calls per +0.01 of held-out test lift."""

_SUMMARY_KEYS = ("seed", "baseline_test", "after_test", "ungated_after_test", "lift",
                 "edits_proposed", "edits_accepted", "harmful_proposed", "harmful_accepted",
                 "overfit_proposed", "overfit_accepted", "neutral_proposed", "neutral_accepted",
                 "correct_proposed", "correct_accepted", "firewall_rejected",
                 "own_look_rejected", "own_look_rejected_harmful", "target_calls",
                 "optimizer_calls", "judge_calls", "test_calls", "failed_calls", "seconds",
                 "test_tasks", "lift_margin")


def run_persona(name: str, seeds: int, nights: int, config: NightConfig,
                sim: Sequence[tuple[str, float]] = ()) -> list[dict[str, Any]]:
    """One proof run per seed, trimmed to the figures the study needs."""
    runs = []
    for seed in range(seeds):
        summary = prove(ProofSpec(persona=name, seed=seed, nights=nights, config=config,
                                  sim=tuple(sim)))
        run = {k: summary[k] for k in _SUMMARY_KEYS}
        run["calls"] = run["target_calls"] + run["optimizer_calls"] + run["judge_calls"]
        run["night_calls"] = run["calls"] - run["test_calls"]
        runs.append(run)
    return runs


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def aggregate(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The study's figures over a set of runs, with whether each target is met."""
    n = len(runs)
    baseline = _mean([r["baseline_test"] or 0.0 for r in runs])
    lift = _mean([r["lift"] or 0.0 for r in runs])
    harmful_runs = sum(1 for r in runs if r["harmful_proposed"] > 0)
    harmful_accepted = sum(r["harmful_accepted"] for r in runs)
    neutral_proposed = sum(r["neutral_proposed"] for r in runs)
    neutral_accepted = sum(r["neutral_accepted"] for r in runs)
    neutral_rate = neutral_accepted / neutral_proposed if neutral_proposed else 0.0
    total_lift = sum(r["lift"] or 0.0 for r in runs)
    calls_per_lift = (round(sum(r["calls"] for r in runs) / (100 * total_lift), 2)
                      if total_lift > 0 else None)
    night_calls_per_lift = (round(sum(r["night_calls"] for r in runs) / (100 * total_lift), 2)
                            if total_lift > 0 else None)
    gated_ok = sum(1 for r in runs
                   if (r["after_test"] or 0.0) >= (r["ungated_after_test"] or 0.0) - 1e-9)
    figures: dict[str, Any] = {
        "runs": n,
        "mean_baseline_test": round(baseline, 4),
        "mean_after_test": round(_mean([r["after_test"] or 0.0 for r in runs]), 4),
        "mean_ungated_after_test": round(_mean([r["ungated_after_test"] or 0.0 for r in runs]), 4),
        "mean_test_lift": round(lift, 4),
        "min_test_lift": round(min((r["lift"] or 0.0 for r in runs), default=0.0), 4),
        "harmful_proposed_runs": harmful_runs,
        "harmful_proposed": sum(r["harmful_proposed"] for r in runs),
        "harmful_accepted": harmful_accepted,
        "neutral_proposed": neutral_proposed,
        "neutral_accepted": neutral_accepted,
        "neutral_false_accept_rate": round(neutral_rate, 4),
        "correct_proposed": sum(r["correct_proposed"] for r in runs),
        "correct_accepted": sum(r["correct_accepted"] for r in runs),
        "overfit_proposed": sum(r["overfit_proposed"] for r in runs),
        "overfit_accepted": sum(r["overfit_accepted"] for r in runs),
        "own_look_rejected": sum(r["own_look_rejected"] for r in runs),
        "own_look_rejected_harmful": sum(r["own_look_rejected_harmful"] for r in runs),
        "gated_at_least_ungated_runs": gated_ok,
        "gated_at_least_ungated_share": round(gated_ok / n, 4) if n else 0.0,
        "mean_calls": round(_mean([r["calls"] for r in runs]), 1),
        "mean_test_calls": round(_mean([r["test_calls"] for r in runs]), 1),
        "mean_test_tasks": round(_mean([r["test_tasks"] for r in runs]), 1),
        # One run's interval on its lift (``night.measure``): what a single figure is worth.
        "mean_lift_margin": round(_mean([r["lift_margin"] or 0.0 for r in runs]), 4),
        "failed_calls": sum(r["failed_calls"] for r in runs),
        "calls_per_0_01_lift": calls_per_lift,
        "night_calls_per_0_01_lift": night_calls_per_lift,
        "seconds": round(sum(r["seconds"] for r in runs), 1),
    }
    figures["targets"] = {
        "lift": lift >= MIN_MEAN_LIFT and baseline <= MAX_BASELINE,
        "harmful": harmful_runs >= MIN_HARMFUL_PROPOSED_SHARE * n and harmful_accepted == 0,
        "neutral": neutral_rate <= MAX_NEUTRAL_ACCEPT_RATE,
        "gated_vs_ungated": n > 0 and gated_ok >= MIN_GATED_AT_LEAST_UNGATED * n,
        "calls": calls_per_lift is not None and calls_per_lift <= MAX_CALLS_PER_LIFT,
    }
    figures["meets_targets"] = all(figures["targets"].values())
    return figures


_COLUMNS = ("persona", "baseline", "after", "ungated", "lift", "harmful runs", "harmful acc",
            "neutral acc", "correct acc", "gated≥ungated", "calls", "calls/+0.01", "nights only",
            "targets")


def _row(name: str, f: dict[str, Any]) -> tuple[str, ...]:
    n = f["runs"]
    neutral = f"{f['neutral_accepted']}/{f['neutral_proposed']}"
    return (name, f"{f['mean_baseline_test']:.3f}", f"{f['mean_after_test']:.3f}",
            f"{f['mean_ungated_after_test']:.3f}", f"{f['mean_test_lift']:+.3f}",
            f"{f['harmful_proposed_runs']}/{n}", str(f["harmful_accepted"]),
            f"{neutral} ({f['neutral_false_accept_rate']:.1%})",
            f"{f['correct_accepted']}/{f['correct_proposed']}",
            f"{f['gated_at_least_ungated_runs']}/{n}", f"{f['mean_calls']:.0f}",
            "—" if f["calls_per_0_01_lift"] is None else f"{f['calls_per_0_01_lift']:.1f}",
            "—" if f["night_calls_per_0_01_lift"] is None
            else f"{f['night_calls_per_0_01_lift']:.1f}",
            "met" if f["meets_targets"] else "missed: " + ", ".join(
                k for k, ok in f["targets"].items() if not ok))


def table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in (_COLUMNS, *rows)) for i in range(len(_COLUMNS))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in (_COLUMNS, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def study(names: Sequence[str], seeds: int, nights: int,
          config: NightConfig | None = None,
          sim: Sequence[tuple[str, float]] = ()) -> dict[str, Any]:
    config = config or NightConfig()
    runs = {name: run_persona(name, seeds, nights, config, sim) for name in names}
    return {
        "seeds": seeds, "nights": nights, "sim": dict(sim),
        "targets": {"min_mean_test_lift": MIN_MEAN_LIFT, "max_mean_baseline_test": MAX_BASELINE,
                    "min_share_of_runs_proposing_harmful": MIN_HARMFUL_PROPOSED_SHARE,
                    "harmful_accepted": 0, "max_neutral_false_accept_rate": MAX_NEUTRAL_ACCEPT_RATE,
                    "min_share_gated_at_least_ungated": MIN_GATED_AT_LEAST_UNGATED,
                    "max_calls_per_0_01_lift": MAX_CALLS_PER_LIFT},
        "gate_test": config.gate_test,
        "personas": {name: aggregate(r) for name, r in runs.items()},
        "overall": aggregate([r for rs in runs.values() for r in rs]),
        # The baseline was measured on the one-skill personas; a several-skill one
        # also pays for its trigger and cross checks.
        "overall_one_skill": aggregate([r for name, rs in runs.items() for r in rs
                                        if len(personas.load(name).skills) == 1]),
        "runs": runs,
    }


def night_config(gate_test: str, settings: Sequence[str]) -> NightConfig:
    """A ``NightConfig`` with ``gate_test`` and each ``KEY=VALUE`` of ``settings`` (a field of
    ``NightConfig``, its value parsed as the field's type); an unknown key is an error."""
    fields = {f.name: f for f in dataclasses.fields(NightConfig)}
    values: dict[str, Any] = {"gate_test": gate_test}
    for item in settings:
        key, sep, raw = item.partition("=")
        if not sep or key not in fields:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(sorted(fields))}")
        kind = type(getattr(NightConfig(), key))
        values[key] = raw.lower() in ("1", "true", "yes") if kind is bool else kind(raw)
    return NightConfig(**values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per persona (0..N-1)")
    parser.add_argument("--nights", type=int, default=3, help="nights per proof run")
    parser.add_argument("--persona", action="append", default=None,
                        help="only this persona (repeatable); default: every persona")
    parser.add_argument("--gate-test", default=NightConfig().gate_test,
                        help="the gate's test (a row of GATE_TESTS)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a NightConfig field for the nights (repeatable)")
    parser.add_argument("--sim", action="append", default=[], metavar="KNOB=SHARE",
                        help="a simulator knob (sim.wording.KNOBS) for every persona (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    names = args.persona or personas.available()
    start = time.monotonic()
    sim = [(k, float(v)) for k, _, v in (item.partition("=") for item in args.sim)]
    result = study(names, args.seeds, args.nights, night_config(args.gate_test, args.set), sim)
    result["command"] = " ".join(["python", "experiments/gate_study.py", *(argv or sys.argv[1:])])
    result["seconds"] = round(time.monotonic() - start, 1)
    rows = [_row(n, f) for n, f in result["personas"].items()]
    rows.append(_row("overall", result["overall"]))
    if result["overall_one_skill"]["runs"] not in (0, result["overall"]["runs"]):
        rows.append(_row("one-skill personas", result["overall_one_skill"]))
    print(f"gate study: {len(names)} personas × {args.seeds} seeds, {args.nights} nights each "
          f"({result['seconds']} s)")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0 if all(f["meets_targets"] for f in result["personas"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
