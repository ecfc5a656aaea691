"""Redaction's share of a harvest in instructions, not seconds: the same on any host.

``harvest_bench.py --redaction-cost`` times harvests with and without redaction; on a shared
machine its CPU times move by a quarter between runs. This runs one harvest of a fixed tree
under ``valgrind --tool=callgrind`` three ways (imports only, without redaction, with it)
and reports redaction's instructions as a share of the harvest's (imports subtracted)::

    python experiments/redaction_instructions.py --mb 10      # about 3 minutes

The "with" run includes the vendor rule set's first-use import (detect-secrets, and the
``requests`` it imports: about 260 M instructions, once per process, whatever the size of
the history). A fourth, short run (imports, then that rule set) measures it, so the report
also gives the share without it, which is what a long history's share approaches, and the
share projected to ``--project`` MB (the per-byte figures scaled, the one-time cost once).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODES = ("imports", "rules", "without", "with")


def child(mode: str, root: Path, home: str) -> None:
    """One harvest of ``root`` (or only the imports), as callgrind counts it."""
    sys.path.insert(0, str(HERE))
    os.environ["SKILLOPT_SLEEP_HARVEST_WORKERS"] = "1"
    os.environ["SKILLOPT_SLEEP_HOME"] = home
    import harvest_bench as bench
    from redaction_cost import redaction_off

    import skillopt_sleep.archive.ingest
    import skillopt_sleep.harvest.sources  # noqa: F401

    if mode == "imports":
        return
    if mode == "rules":  # the one-time cost the "with" run pays on its first long token
        from skillopt_sleep.secrets import vendor

        vendor.vendor_rules()
        return
    with redaction_off() if mode == "without" else contextlib.nullcontext():
        bench.timed_harvest(root)


def count(mode: str, root: Path, work: Path) -> int:
    out = work / f"{mode}.callgrind"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
         __file__, "--child", mode, str(root), str(work / f"home-{mode}")],
        capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from callgrind for {mode}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=10, help="size of the Claude Code tree")
    parser.add_argument("--project", type=int, default=200,
                        help="history size (MB) to project the share to")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "ROOT", "HOME"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), args.child[2])
        return
    sys.path.insert(0, str(HERE))
    import harvest_bench as bench

    with tempfile.TemporaryDirectory(prefix="redaction-ir-") as tmp:
        work = Path(tmp)
        bench.build_tree(work / "tree", args.mb)
        ir = {mode: count(mode, work / "tree", work) for mode in MODES}
    harvest = ir["with"] - ir["imports"]
    without = ir["without"] - ir["imports"]
    once = ir["rules"] - ir["imports"]
    per_byte = ir["with"] - ir["without"] - once
    share = 100 * (ir["with"] - ir["without"]) / harvest
    share_per_byte = 100 * per_byte / (without + per_byte)
    scale = args.project / args.mb
    projected = 100 * (per_byte * scale + once) / ((without + per_byte) * scale + once)
    print(f"{args.mb} MB Claude Code tree, instructions (callgrind): imports {ir['imports']:,}, "
          f"harvest without redaction {without:,}, with {harvest:,}; "
          f"redaction = {share:.1f}% of the harvest, of which the rule set's one-time import "
          f"{once:,}; without it {share_per_byte:.1f}%; projected to {args.project} MB: "
          f"{projected:.1f}% (target <= 15%)")


if __name__ == "__main__":
    main()
