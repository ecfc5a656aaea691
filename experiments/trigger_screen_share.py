"""How a night's trigger check spends its routing calls, over a several-skill persona's proofs.

The dry run's plan counts the trigger check's routing calls as a typical night makes them
(``pipeline.plan``): one round, every proposed description screened on one sample of the
skill's own validation tasks, and the share of them that goes past the screen compared in
full (``night.describe.PAST_SCREEN``). This study measures that share, how often a night
asks for descriptions at all, and how often a second round follows an accept.

    python experiments/trigger_screen_share.py --seeds 5            # maintainer, 3 nights
    python experiments/trigger_screen_share.py --seeds 5 --json
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.describe import PAST_SCREEN
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.prove import ProofSpec, run_nights

SCREENED = "dropped after one sample"


def study(persona: str, seeds: int, nights: int) -> dict[str, Any]:
    """Counts over ``seeds`` gated proofs of ``persona`` (every skill's every night)."""
    p = personas.load(persona)
    counts = {"skill_nights": 0, "asked": 0, "proposals": 0, "screened": 0, "compared": 0,
              "accepted": 0, "second_rounds": 0}
    for seed in range(seeds):
        spec = ProofSpec(persona=persona, seed=seed, nights=nights, config=NightConfig())
        for r in run_nights(p, spec, True, lambda _s, role, s: build(p, s, role)):
            if not r.trigger:
                continue
            decisions = r.trigger.get("decisions", [])
            counts["skill_nights"] += 1
            counts["asked"] += bool(decisions)
            counts["proposals"] += len(decisions)
            screened = sum(d["reason"].startswith(SCREENED) for d in decisions)
            counts["screened"] += screened
            counts["compared"] += sum(d.get("stage") == "gate" for d in decisions) - screened
            accepted = sum(d["accepted"] for d in decisions)
            counts["accepted"] += accepted
            counts["second_rounds"] += accepted > 0
    gated = counts["screened"] + counts["compared"]
    counts["past_screen_share"] = round(counts["compared"] / gated, 3) if gated else None
    counts["asked_share"] = (round(counts["asked"] / counts["skill_nights"], 3)
                             if counts["skill_nights"] else None)
    counts["plan_past_screen"] = PAST_SCREEN
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--persona", default="maintainer")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = study(args.persona, args.seeds, args.nights)
    if args.json:
        print(json.dumps(counts, indent=1))
        return
    print(f"{args.persona}, seeds 0–{args.seeds - 1}, {args.nights} nights:")
    for key, value in counts.items():
        print(f"  {key:<18} {value}")


if __name__ == "__main__":
    main()
