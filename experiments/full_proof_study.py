"""Does the full proof hold for many seeds, and is it the same wherever it runs?

Runs ``skillopt-sleep prove --full --assert-improves --json`` for each seed at two
different temporary folders (``TMPDIR``), under each gate test asked for, and prints one
line per seed: the test score before and after, the edits accepted per night, harmful
accepts, abstained nights, the mined families per split, and whether both folders gave
the same numbers (family ids included). Exit 1 if any run failed or differed.

    python experiments/full_proof_study.py --seeds 20 --gate-test sign,sequential

``--set KEY=VALUE`` passes any other gate option of ``prove`` (``--set alpha=0.1``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from skillopt_sleep.night.config import NightConfig

FIELDS = ("baseline_test", "after_test", "lift", "accepted_per_night", "harmful_accepted",
          "abstained_nights", "mining", "families")


def one(persona: str, seed: int, tmp: Path, options: list[str]) -> dict | None:
    env = {**os.environ, "TMPDIR": str(tmp)}
    cmd = [sys.executable, "-m", "skillopt_sleep", "prove", "--full", "--assert-improves",
           "--json", "--persona", persona, "--seed", str(seed), *options]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"seed {seed} at {tmp}: rc {done.returncode}: {done.stderr.strip()[-300:]}")
        return None
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: data[k] for k in FIELDS}


def _options(pairs: list[str]) -> list[str]:
    """``KEY=VALUE`` pairs as ``prove`` flags (``no_regression=true`` → ``--no-regression``)."""
    flags = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--set takes KEY=VALUE, got {pair!r}")
        flag = "--" + key.strip().replace("_", "-")
        if value.lower() in ("true", "false"):
            flags += [flag] if value.lower() == "true" else []
        else:
            flags += [flag, value]
    return flags


def study(persona: str, seeds: int, gate_test: str, options: list[str]) -> int:
    """One gate test over the seeds, each at two temp dirs; the number of bad seeds."""
    bad, lifts = 0, []
    print(f"\ngate test {gate_test}")
    print("seed  baseline  after   lift    accepted   harmful  abstained  families  same")
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        # Two folders unlike each other: another parent, depth, length, and a space.
        elsewhere = Path(b) / "a longer" / "temp dir"
        elsewhere.mkdir(parents=True)
        for seed in range(seeds):
            flags = ["--gate-test", gate_test, *options]
            first = one(persona, seed, Path(a), flags)
            second = one(persona, seed, elsewhere, flags)
            if first is None or second is None:
                bad += 1
                continue
            same = first == second
            bad += not same
            lifts.append(first["lift"])
            split = "/".join(str(len(first["families"][s]))
                             for s in ("train", "validation", "test"))
            print(f"{seed:>4}  {first['baseline_test']:.3f}     {first['after_test']:.3f}   "
                  f"{first['lift']:+.3f}  {first['accepted_per_night']!s:<9}  "
                  f"{first['harmful_accepted']:>7}  {first['abstained_nights']:>9}  "
                  f"{split:<8}  {same}")
    held = seeds - bad
    if lifts:
        print(f"{gate_test}: held and identical at both temp dirs for {held}/{seeds}; lift min "
              f"{min(lifts):+.3f}, mean {sum(lifts) / len(lifts):+.3f}, max {max(lifts):+.3f}")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--persona", default="researcher")
    parser.add_argument("--gate-test", default=NightConfig().gate_test,
                        help="the gate's paired test, or several separated by commas")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="another prove gate option, e.g. alpha=0.1 (repeatable)")
    args = parser.parse_args()
    options = _options(args.set)
    bad = sum(study(args.persona, args.seeds, test.strip(), options)
              for test in args.gate_test.split(","))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
