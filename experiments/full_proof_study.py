"""Does the full proof hold for many seeds, and is it the same wherever it runs?

Runs ``skillopt-sleep prove --full --assert-improves --json`` for each seed at two
different temporary folders (``TMPDIR``) and prints one line per seed: the test score
before and after, the edits accepted per night, harmful accepts, abstained nights, and
whether both folders gave the same numbers. Exit 1 if any run failed or differed.

    python experiments/full_proof_study.py --seeds 20 --persona researcher
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

FIELDS = ("baseline_test", "after_test", "lift", "accepted_per_night", "harmful_accepted",
          "abstained_nights")


def one(persona: str, seed: int, tmp: Path) -> dict | None:
    env = {**os.environ, "TMPDIR": str(tmp)}
    cmd = [sys.executable, "-m", "skillopt_sleep", "prove", "--full", "--assert-improves",
           "--json", "--persona", persona, "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"seed {seed} at {tmp}: rc {done.returncode}: {done.stderr.strip()[-300:]}")
        return None
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: data[k] for k in FIELDS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--persona", default="researcher")
    args = parser.parse_args()
    bad = 0
    lifts = []
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        print("seed  baseline  after   lift    accepted   harmful  abstained  same")
        for seed in range(args.seeds):
            first, second = one(args.persona, seed, Path(a)), one(args.persona, seed, Path(b))
            if first is None or second is None:
                bad += 1
                continue
            same = first == second
            bad += not same
            lifts.append(first["lift"])
            print(f"{seed:>4}  {first['baseline_test']:.3f}     {first['after_test']:.3f}   "
                  f"{first['lift']:+.3f}  {first['accepted_per_night']!s:<9}  "
                  f"{first['harmful_accepted']:>7}  {first['abstained_nights']:>9}  {same}")
    if lifts:
        print(f"held: {len(lifts)}/{args.seeds}; lift min {min(lifts):+.3f}, "
              f"mean {sum(lifts) / len(lifts):+.3f}, max {max(lifts):+.3f}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
