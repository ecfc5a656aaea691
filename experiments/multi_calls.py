"""Where a several-skill proof's calls go: per stage, per skill, and the lift each skill buys.

Runs the gated arm of ``prove`` (the baseline test score, the nights, the final test score;
not the gate-off twin, and not the trigger figures, which the gate study does not count
either) with every model call sorted by what asked for it, read from the prompt:

- ``routing``: the trigger check's routing questions (``night.trigger``);
- ``describe``: the optimizer's description proposals;
- ``val incumbent`` / ``val candidate``: the skill's own validation answers, with the
  night's starting or ending skill (the incumbent's pairs, the last look, the report's
  round) or with any other text (candidates, retirement deletions);
- ``train``: the train minibatches reflection reads (and the slow update's);
- ``reflect``: the optimizer's edit proposals (steps and slow update);
- ``cross replay``: a neighbour's tasks with two skills loaded (the cross check at the
  night's end, ``night.settle``, its entry-by-entry look included);
- ``cross read`` / ``own look``: the optimizer's text-level looks;
- ``test``: the test split (the two reported figures).

Each call is put to the skill whose night made it (``test`` to the skill of its task), and
per skill the study prints its test lift and its calls per +0.01 of its own lift.

    python experiments/multi_calls.py --seeds 5 --persona maintainer
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillopt_sleep.models.base import LLM
from skillopt_sleep.models.meter import Ledger
from skillopt_sleep.night.contradict import CONTRADICT_SYSTEM
from skillopt_sleep.night.demands import DEMANDS_SYSTEM
from skillopt_sleep.night.describe import DESCRIBE_SYSTEM
from skillopt_sleep.night.replay import mean_score
from skillopt_sleep.night.trigger import ROUTE_SYSTEM
from skillopt_sleep.records import Completion, Message, Task, sha256_text
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import prove as proof
from skillopt_sleep.sim.models import build

STAGES = ("routing train", "routing val", "routing report", "describe", "val incumbent",
          "val candidate", "train", "reflect", "cross replay", "cross read",
          "own look", "test")


@dataclass
class Tally:
    """Calls by (skill, stage), and the night's skill now running (nights run one by one)."""

    by_intent: dict[str, Task]
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    night_skill: str = ""
    incumbents: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stage(self, messages: Sequence[Message], role: str, sample: int) -> tuple[str, str]:
        system = str(messages[0]["content"]) if messages else ""
        user = str(messages[-1]["content"]) if messages else ""
        if role == "optimizer":
            if DESCRIBE_SYSTEM[:60] in system:
                return self.night_skill, "describe"
            if CONTRADICT_SYSTEM[:60] in system:
                return self.night_skill, "cross read"
            if DEMANDS_SYSTEM[:60] in system:
                return self.night_skill, "own look"
            return self.night_skill, "reflect"
        intent = user.split("<task>\n", 1)[-1].split("\n</task>", 1)[0]
        task = self.by_intent.get(intent)
        if task is None:
            return self.night_skill, "unknown"
        if ROUTE_SYSTEM[:60] in system:
            kind = ("train" if task.split == "train" else
                    "report" if sample >= 10_000 or task.split == "test" else "val")
            return self.night_skill, f"routing {kind}"
        if task.split == "test":
            return task.skill, "test"
        if system.count("<skill>") > 1:
            return self.night_skill, "cross replay"
        if task.split == "train":
            return self.night_skill, "train"
        skill = system.split("<skill>\n", 1)[-1].rsplit("\n</skill>", 1)[0]
        known = sha256_text(skill) in self.incumbents
        return self.night_skill, "val incumbent" if known else "val candidate"

    def add(self, messages: Sequence[Message], role: str, sample: int) -> None:
        key = self.stage(messages, role, sample)
        with self.lock:
            self.counts[key] += 1


class Sorted:
    """An ``LLM`` that tells the tally of each call before making it."""

    def __init__(self, inner: LLM, role: str, tally: Tally):
        self.inner, self.role, self.tally, self.name = inner, role, tally, inner.name

    def complete(self, messages: Sequence[Message], **kw: Any) -> Completion:
        self.tally.add(messages, self.role, int(kw.get("seed", 0)))
        return self.inner.complete(messages, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def run_seed(spec: proof.ProofSpec) -> dict[str, Any]:
    """One gated proof arm with its calls sorted (see the module)."""
    p = proof.load_persona(spec)
    tally = Tally({t.intent: t for t in personas.tasks(p, spec.seed)})

    def models(_spec: str, role: str, seed: int) -> LLM:
        return Sorted(build(p, seed, role), role, tally)

    class Nights(proof._ProofNights):
        def night(self, n: int, name: str, skills: dict[str, str], optimizer: LLM
                  ) -> Any:
            tally.night_skill = name
            # The night's own start; its end is added once known (the report's round and
            # the last look ask before the night returns, so the start is what matters).
            tally.incumbents.add(sha256_text(skills[name]))
            result = super().night(n, name, skills, optimizer)
            tally.incumbents.add(sha256_text(result.skill_after))
            return result

    first = {s.name: s.initial_text() for s in p.skills}
    before = proof.score_test(p, spec, first, models, Ledger())
    original, proof._ProofNights = proof._ProofNights, Nights  # type: ignore[misc]
    try:
        results = proof.run_nights(p, spec, True, models, score_test=False)
    finally:
        proof._ProofNights = original  # type: ignore[misc]
    final = {r.skill: r.skill_after for r in results}
    after = proof.score_test(p, spec, final, models, Ledger())
    lifts = {}
    for s in first:
        ids = {t.id for t in before.tasks if t.skill == s}
        b = mean_score([r for r in before.rollouts if r.task_id in ids], spec.config.metric)
        a = mean_score([r for r in after.rollouts if r.task_id in ids], spec.config.metric)
        lifts[s] = {"baseline": b, "after": a, "lift": (a or 0.0) - (b or 0.0), "tasks": len(ids)}
    total = mean_score(after.rollouts, spec.config.metric) - mean_score(  # type: ignore[operator]
        before.rollouts, spec.config.metric)
    return {"seed": spec.seed, "lift": total, "skills": lifts,
            "calls": [[s, st, c] for (s, st), c in sorted(tally.counts.items())]}


def summarise(runs: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A table: rows are stages, columns skills; then each skill's lift and calls."""
    counts: Counter[tuple[str, str]] = Counter()
    for r in runs:
        for skill, stage, c in r["calls"]:
            counts[(skill, stage)] += c
    n = len(runs)
    skills = sorted({s for s, _ in counts})
    stages = [s for s in (*STAGES, "unknown") if any(k[1] == s for k in counts)]
    width = max(len(s) for s in skills) + 2
    lines = ["stage".ljust(16) + "".join(s.rjust(width) for s in skills) + "all".rjust(9)
             + "share".rjust(8)]
    total = sum(counts.values()) / n
    for st in stages:
        row = [counts[(s, st)] / n for s in skills]
        lines.append(st.ljust(16) + "".join(f"{v:{width}.1f}" for v in row)
                     + f"{sum(row):9.1f}" + f"{sum(row) / total:8.1%}")
    per_skill = [sum(counts[(s, st)] for st in stages) / n for s in skills]
    lines.append("all".ljust(16) + "".join(f"{v:{width}.1f}" for v in per_skill)
                 + f"{total:9.1f}")
    lift = sum(r["lift"] for r in runs) / n
    lines.append(f"mean test lift {lift:+.3f} (all skills' test sample); calls per +0.01 "
                 f"{total / (100 * lift):.1f}" if lift > 0 else "no lift")
    figures: dict[str, Any] = {"runs": n, "mean_calls": round(total, 1),
                               "mean_lift": round(lift, 4), "skills": {}}
    for s, calls in zip(skills, per_skill, strict=True):
        sl = sum(r["skills"][s]["lift"] for r in runs) / n
        base = sum(r["skills"][s]["baseline"] or 0.0 for r in runs) / n
        per = f"{calls / (100 * sl):.1f}" if sl > 0 else "—"
        lines.append(f"  {s}: baseline {base:.3f}, lift {sl:+.3f}, {calls:.0f} calls, "
                     f"{per} calls per +0.01 of its own lift")
        figures["skills"][s] = {"calls": round(calls, 1), "lift": round(sl, 4),
                                "baseline": round(base, 4)}
    summed = sum(figures["skills"][s]["lift"] for s in skills)
    if summed > 0:
        # Each skill's calls over its own lift, pooled: what one skill's night costs here.
        lines.append(f"per +0.01 of the skills' summed lift ({summed:+.3f}): "
                     f"{total / (100 * summed):.1f}")
    figures["stages"] = {f"{s}/{st}": round(c / n, 1) for (s, st), c in sorted(counts.items())}
    return "\n".join(lines), figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--persona", default="maintainer")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    runs = [run_seed(proof.ProofSpec(persona=args.persona, seed=s, nights=args.nights))
            for s in range(args.seeds)]
    text, figures = summarise(runs)
    print(f"calls of a {args.persona} proof's gated arm, per run over {args.seeds} seeds "
          f"({args.nights} nights)")
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "runs": runs}, indent=1) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
