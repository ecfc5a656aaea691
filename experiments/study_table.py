"""The studies as one table: every persona, and each simulator knob setting, side by side.

Each row is the gated arm of ``gate_study``'s proofs over ``--seeds`` seeds (the same nights
and calls; the gate-off twin is not run), and prints:

- ``lift``: the mean held-out test lift (each persona's test sample, ``night.measure``);
- ``of ceiling``: that lift over what stating every house rule would gain (the *ceiling*:
  the test score, on the same tasks and samples, of each skill's first text with every
  house rule of its work appended in the persona's own words, minus the baseline), pooled
  as total lift over total headroom. It is a bound of this simulator, not of a model: the
  rules' longer text is followed a little less well, as any long skill is;
- ``calls/+0.01 nights``: the gated nights' calls (target, optimizer, judge) per +0.01 of
  lift, the test split's scoring left out; ``calls/+0.01 all``: every call of the gated arm,
  the test split's two scorings included (``gate_study``'s ``calls per +0.01``). The
  ceiling's own scoring is not counted: it is this table's, not the night's;
- harmful accepts (the persona's ``[[harmful]]`` and ``[[cross]]`` rules) and neutral
  accepts over neutral proposals.

Rows: each persona of ``--persona`` (default: every shipped persona) with the knobs off,
then, for each ``--setting`` (default: each knob at 1, and all three at 1), one row pooling
the one-skill personas that have the wordings the setting needs (``sim.wording``).

    python experiments/study_table.py --seeds 20
    python experiments/study_table.py --seeds 5 --persona analyst --persona ./hard.toml \\
        --setting unworded=1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.records import Edit
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import prove as proof
from skillopt_sleep.sim import wording
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.prove import ProofSpec, load_persona, score_test
from skillopt_sleep.skilldoc import apply_edit, parse

sys.path.insert(0, str(Path(__file__).resolve().parent))

SETTINGS = ("unworded=1", "vocab_neutral=1", "vocab_harmful=1",
            "unworded=1,vocab_neutral=1,vocab_harmful=1")

Knobs = tuple[tuple[str, float], ...]


def knobs(setting: str) -> Knobs:
    """``"unworded=1,vocab_neutral=0.5"`` as ``ProofSpec.sim``."""
    pairs = [item.partition("=") for item in setting.split(",") if item]
    return tuple((k.strip(), float(v)) for k, _, v in pairs)


def oracle(p: personas.Persona) -> dict[str, str]:
    """Each skill's first text with every house rule of its work appended (its ``text``)."""
    texts = {}
    for s in p.skills:
        doc = parse(s.initial_text())
        work = set(s.deliverables)
        for rule in p.rules:
            if rule.domains or work & set(rule.deliverables) or len(p.skills) == 1:
                doc = apply_edit(doc, Edit(op="append", text=rule.text))[0]
        texts[s.name] = doc.text
    return texts


def one_run(name: str, seed: int, nights: int, config: NightConfig, sim: Knobs
            ) -> dict[str, Any]:
    """One proof's gated arm (the same nights and calls as ``prove``'s; the gate-off twin
    is not run), with the ceiling's test score."""
    spec = ProofSpec(persona=name, seed=seed, nights=nights, config=config, sim=sim)
    p = load_persona(spec)

    def models(_spec: str, role: str, sd: int) -> LLM:
        return build(p, sd, role)

    first = Ledger()
    baseline = score_test(p, spec, {s.name: s.initial_text() for s in p.skills}, models, first)
    arm = proof._arm(p, spec, True, models, lambda _m: None)
    ceiling = score_test(p, spec, oracle(p), models, Ledger())
    kinds = proof._kind_counts(p, arm.results)
    before = baseline.mean or 0.0
    after = arm.after_test.mean if arm.after_test and arm.after_test.mean is not None else before
    calls = len(first.calls) + len(arm.ledger.calls)
    return {"persona": name, "seed": seed, "lift": after - before,
            "headroom": (ceiling.mean or 0.0) - before,
            "calls": calls, "night_calls": calls - len(first.calls) - arm.test_calls,
            "harmful_proposed": kinds["harmful_proposed"] + kinds["cross_proposed"],
            "harmful_accepted": kinds["harmful_accepted"] + kinds["cross_accepted"],
            "neutral_proposed": kinds["neutral_proposed"],
            "neutral_accepted": kinds["neutral_accepted"]}


def row(label: str, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The table's figures over ``runs``."""
    n, lift = len(runs), sum(r["lift"] for r in runs)
    headroom = sum(r["headroom"] for r in runs)

    def per(key: str) -> float | None:
        return round(sum(r[key] for r in runs) / (100 * lift), 1) if lift > 0 else None

    return {"row": label, "runs": n, "lift": round(lift / n, 4) if n else 0.0,
            "of_ceiling": round(lift / headroom, 3) if headroom > 0 else None,
            "calls": round(sum(r["calls"] for r in runs) / n, 1) if n else 0.0,
            "per_night": per("night_calls"), "per_all": per("calls"),
            "harmful": f"{sum(r['harmful_accepted'] for r in runs)}/"
                       f"{sum(r['harmful_proposed'] for r in runs)}",
            "neutral": f"{sum(r['neutral_accepted'] for r in runs)}/"
                       f"{sum(r['neutral_proposed'] for r in runs)}"}


COLUMNS = ("row", "runs", "lift", "of ceiling", "calls", "calls/+0.01 nights",
           "calls/+0.01 all", "harmful acc/prop", "neutral acc/prop")


def render(rows: Sequence[dict[str, Any]]) -> str:
    """A markdown table."""
    def cell(v: Any, pct: bool = False) -> str:
        if v is None:
            return "—"
        return f"{v:.0%}" if pct else str(v)

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        values = (r["row"], r["runs"], f"{r['lift']:+.3f}", cell(r["of_ceiling"], True),
                  f"{r['calls']:.0f}", cell(r["per_night"]), cell(r["per_all"]), r["harmful"],
                  r["neutral"])
        lines.append("| " + " | ".join(str(v) for v in values) + " |")
    return "\n".join(lines)


def supports(name: str, sim: Knobs) -> bool:
    """Whether the persona has the wordings ``sim`` needs (and one skill)."""
    p = personas.load(name)
    if len(p.skills) != 1:
        return False
    try:
        wording.tuned(p, dict(sim))
    except (ConfigError, ValueError):
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--persona", action="append", default=None,
                        help="a persona name or file (repeatable); default: every shipped one")
    parser.add_argument("--setting", action="append", default=None, metavar="KNOB=SHARE,...",
                        help="a simulator knob setting, a row over the one-skill personas "
                             "(repeatable; default: each knob at 1, then all three)")
    parser.add_argument("--gate-test", default=NightConfig().gate_test)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from gate_study import night_config  # beside this file

    config = night_config(args.gate_test, args.set)
    names = args.persona or personas.available()
    start = time.monotonic()
    runs = {n: [one_run(n, s, args.nights, config, ()) for s in range(args.seeds)]
            for n in names}
    rows = [row(n, rs) for n, rs in runs.items()]
    single = [r for n, rs in runs.items() if len(personas.load(n).skills) == 1 for r in rs]
    if single and len(single) != sum(len(rs) for rs in runs.values()):
        rows.append(row("one-skill personas, knobs 0", single))
    for setting in args.setting if args.setting is not None else SETTINGS:
        sim = knobs(setting)
        fit = [n for n in names if supports(n, sim)]
        got = [one_run(n, s, args.nights, config, sim) for n in fit for s in range(args.seeds)]
        rows.append(row(f"one-skill, {setting} ({len(fit)} personas)", got))
    command = " ".join(["python", "experiments/study_table.py", *(argv or sys.argv[1:])])
    print(f"{command}  ({time.monotonic() - start:.0f} s)")
    print(render(rows))
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
