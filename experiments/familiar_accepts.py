"""Which of the gate's comparisons were of *familiar* edits, and what the gate decided.

An edit is familiar when one line of the skill already holds every word it has of what the
validation tasks are judged on, or when it has none (``night.usage.novel``); the gate tests
it at ``familiar_alpha`` and screens it from the first look (``night.sequential``). This
study runs the gate study's proofs (the gate-off twin compares nothing) and counts every
comparison by what the edit is (the persona's hidden classification: correct, overfit,
neutral, harmful, cross), whether it was familiar, and whether the gate accepted it. With
``--familiar-alpha 0.05`` (the gate's own α) only the early screen is left, which is how the
rule's evidence was read: every neutral and harmful edit the gate let in was familiar.

    python experiments/familiar_accepts.py --seeds 40 --familiar-alpha 0.05
    python experiments/familiar_accepts.py --seeds 20 --persona maintainer --familiar-alpha 0.05

It measures the word rule, so its nights run with ``screen = "words"`` (the gate's default
now reads familiarity from the answers, ``night.sequential``).

The comparisons are counted by wrapping ``Scorer.compare`` (the night builds its scorer
itself); nothing else changes.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence

from skillopt_sleep.night import gate, scoring
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.usage import novel
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.prove import ProofSpec, prove
from skillopt_sleep.skilldoc import SkillDoc

ONE_SKILL = ("analyst", "devops", "programmer", "researcher")


def count(names: Sequence[str], seeds: int, nights: int, config: NightConfig) -> Counter[tuple]:
    """(persona, kind, familiar, accepted) → comparisons, over ``seeds`` proofs of each."""
    counts: Counter[tuple] = Counter()
    original = scoring.Scorer.compare
    current: list[personas.Persona] = []

    def compare(self: scoring.Scorer, test: gate.GateTest, incumbent: SkillDoc,
                candidate: SkillDoc, first: int, repeats: int, words: str = "",
                cited: Sequence[str] = (), adds: str | None = None) -> gate.Verdict:
        verdict = original(self, test, incumbent, candidate, first, repeats, words, cited, adds)
        if adds is not None:
            p = current[0]
            familiar = not novel(adds, incumbent.text, self.splits["validation"])
            kind = personas.classify(p, "append", adds)
            counts[(p.name, kind, familiar, verdict.accepted)] += 1
        return verdict

    scoring.Scorer.compare = compare  # type: ignore[method-assign]
    try:
        for name in names:
            p = personas.load(name)
            current[:] = [p]
            for seed in range(seeds):
                prove(ProofSpec(persona=name, seed=seed, nights=nights, config=config))
    finally:
        scoring.Scorer.compare = original  # type: ignore[method-assign]
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per persona (0..N-1)")
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--persona", action="append", default=None,
                        help="a persona (repeat; default: the four one-skill ones)")
    parser.add_argument("--familiar-alpha", type=float, default=NightConfig().familiar_alpha)
    args = parser.parse_args(argv)
    counts = count(args.persona or ONE_SKILL, args.seeds, args.nights,
                   NightConfig(familiar_alpha=args.familiar_alpha, screen="words"))
    print(f"{'kind':9} {'edit':9} {'accepted':>9} {'rejected':>9}")
    kinds = sorted({(k, f) for _, k, f, _ in counts})
    for kind, familiar in kinds:
        acc = sum(n for (_, k, f, a), n in counts.items() if (k, f, a) == (kind, familiar, True))
        rej = sum(n for (_, k, f, a), n in counts.items() if (k, f, a) == (kind, familiar, False))
        print(f"{kind:9} {'familiar' if familiar else 'novel':9} {acc:9} {rej:9}")


if __name__ == "__main__":
    main()
