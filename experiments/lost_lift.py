"""Where the lost lift goes: a persona's gated nights against its ceiling, rule by rule.

The *ceiling* is the held-out test score of the persona's first skill with every house rule
stated once, in its canonical wording (what a perfect optimizer and gate would reach in the
persona's world: the target still follows each stated rule with its ``follow``), scored on
the same test sample as the baseline and the nights' last skill. Share of ceiling is
lift / (ceiling − baseline).

For each seed the nights run gated (as ``prove`` runs them, without the gate-off twin), and
each house rule the last skill does not state for every subject is put in one class:

- ``never proposed``: no night's optimizer proposed an edit stating it for every subject
  (an overfitted one, scoped to one subject, does not count);
- ``not accepted``: proposed, and every proposal of it was turned down; the stage and reason
  of its furthest proposal are counted (``merge`` before the gate, then ``firewall``,
  ``gate``: its screen and drops by reason, ``contradict``: the own look);
- ``undone``: accepted, and gone from the last skill (the last look held a night back, or a
  later edit removed it).

The lost lift (ceiling − after) is split three ways: each missing rule's share of what
stating every missing rule in the last skill would add (its own marginal gain, over the sum
of the marginals), and the rest — the ceiling minus that skill — "stated but not followed":
lines the target reads less well (a longer skill, scoped or harmful lines), and test noise.

    python experiments/lost_lift.py --persona oncall --seeds 20 --nights 3
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.records import GateDecision, NightResult
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import SimulatedTarget, build
from skillopt_sleep.sim.prove import ProofSpec, load_persona, run_nights, score_test
from skillopt_sleep.tables import GATE_TESTS

# How far a proposal got, for the class of a rule that never got in.
_ORDER = ("merge", "budget", "apply", "firewall", "gate", "cross", "contradict")


@dataclass
class Breakdown:
    """The figures of one study, summed over its seeds."""

    seeds: int = 0
    baseline: float = 0.0
    after: float = 0.0
    ceiling: float = 0.0
    lost: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)
    stages: Counter[str] = field(default_factory=Counter)
    harmful_accepted: int = 0
    calls: int = 0


def stated(p: personas.Persona, skill: str) -> set[str]:
    """House rules the skill states for every subject (lines scoped to one do not count)."""
    good, _ = SimulatedTarget(p)._stated(skill, "\x00")
    return good


def _rules_of(p: personas.Persona, d: GateDecision) -> set[str]:
    if personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor) != "correct":
        return set()
    return {r.id for r in p.rules if r.recognised_in(d.edit.text)}


def _stage(d: GateDecision) -> str:
    """A rejected proposal's stage, the gate's split by its reason."""
    if d.stage != "gate":
        return d.stage
    reason = d.reason
    for word in ("harmful", "useless", "chance left"):
        if f"dropped as {word}" in reason or (word == "chance left" and word in reason):
            return f"gate: dropped ({word.replace('chance left', 'no power')})"
    return "gate: not significant" if "not significant" in reason else f"gate: {reason[:30]}"


def classify_missing(p: personas.Persona, results: Sequence[NightResult],
                     final: str) -> dict[str, str]:
    """Each house rule the last skill lacks, with its class (see the module)."""
    have = stated(p, final)
    proposals: dict[str, list[GateDecision]] = {}
    for r in results:
        for d in r.decisions:
            for rid in _rules_of(p, d):
                proposals.setdefault(rid, []).append(d)
    out = {}
    for rule in p.rules:
        if rule.id in have:
            continue
        seen = proposals.get(rule.id, [])
        if not seen:
            out[rule.id] = "never proposed"
        elif any(d.accepted for d in seen):
            out[rule.id] = "undone"
        else:
            best = max(seen, key=lambda d: _ORDER.index(d.stage) if d.stage in _ORDER else -1)
            out[rule.id] = f"not accepted: {_stage(best)}"
    return out


def with_rules(skill: str, rules: Sequence[personas.Rule]) -> str:
    return skill.rstrip("\n") + "\n" + "".join(f"\n- {r.text}" for r in rules) + "\n"


def one_seed(name: str, seed: int, nights: int, config: NightConfig, out: Breakdown) -> None:
    spec = ProofSpec(persona=name, seed=seed, nights=nights, config=config)
    p = load_persona(spec)

    def models(_spec: str, role: str, s: int) -> Any:
        return build(p, s, role)

    ledger = Ledger()
    results = run_nights(p, spec, True, models, ledger=ledger, score_test=False)
    first = p.initial_skill()
    final = [r for r in results if r.skill == p.skill][-1].skill_after

    def score(text: str) -> float:
        return score_test(p, spec, text, models, Ledger()).mean or 0.0

    baseline, after = score(first), score(final)
    ceiling = score(with_rules(first, p.rules))
    missing = classify_missing(p, results, final)
    lacking = [p.rule(rid) for rid in missing]
    filled = score(with_rules(final, lacking)) if lacking else after
    marginal = {rid: max(0.0, score(with_rules(final, [p.rule(rid)])) - after)
                for rid in missing}
    joint, total = max(0.0, filled - after), sum(marginal.values())
    for rid, why in missing.items():
        share = marginal[rid] / total if total else 1 / len(missing)
        out.lost[why.split(":")[0]] += joint * share
        out.rules[why] += 1
    out.lost["stated but not followed"] += ceiling - max(filled, after)
    out.stages.update(_stage(d) for r in results for d in r.decisions
                      if not d.accepted and _rules_of(p, d))
    out.harmful_accepted += sum(
        personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor) == "harmful"
        for r in results for d in r.accepted)
    out.seeds += 1
    out.baseline += baseline
    out.after += after
    out.ceiling += ceiling
    out.calls += len(ledger.calls)


def report(name: str, b: Breakdown, rules: int) -> str:
    n = b.seeds
    base, after, ceil = b.baseline / n, b.after / n, b.ceiling / n
    gap = ceil - after
    lines = [f"{name}: {n} seeds; baseline {base:.3f}, after {after:.3f}, ceiling {ceil:.3f}; "
             f"lift {after - base:+.3f} = {(after - base) / (ceil - base):.1%} of the ceiling; "
             f"harmful accepted {b.harmful_accepted}; night calls {b.calls / n:.0f} a run",
             f"lost lift {gap:+.3f} a run (ceiling − after), by where it went:"]
    for why, value in sorted(b.lost.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {why:<28} {value / n:+.3f}  ({value / n / gap:.0%} of the lost lift)"
                     if gap > 0 else f"  {why:<28} {value / n:+.3f}")
    lines.append(f"house rules missing from the last skill ({sum(b.rules.values())} of "
                 f"{rules * n}), by class:")
    lines += [f"  {why:<44} {count}" for why, count in b.rules.most_common()]
    lines.append("turned-down proposals of correct rules, by stage (every proposal):")
    lines += [f"  {why:<44} {count}" for why, count in b.stages.most_common()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--persona", default="oncall")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a NightConfig field (as gate_study.py --set)")
    parser.add_argument("--seq", action="append", default=[], metavar="KEY=VALUE",
                        help="a field of the sequential test (night.sequential), for trials")
    args = parser.parse_args(argv)
    from experiments.gate_study import night_config

    if args.seq:
        from skillopt_sleep.night import sequential

        values = {k: type(getattr(sequential.SEQUENTIAL, k))(v)
                  for k, _, v in (item.partition("=") for item in args.seq)}
        GATE_TESTS.get("sequential")  # resolved once, then replaced for this process
        GATE_TESTS._resolved["sequential"] = replace(sequential.SEQUENTIAL, **values)

    config = night_config(NightConfig().gate_test, args.set)
    out = Breakdown()
    for seed in range(args.seeds):
        one_seed(args.persona, seed, args.nights, config, out)
    print(report(args.persona, out, len(personas.load(args.persona).rules)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
