"""The cost of a pass that adds 1 % to a long history, repeated, for one or more checkouts.

    python experiments/increment_bench.py --requests 20000 --reps 5 --trees .,/tmp/before

``scale_bench.py`` measures a first mining and one +1 % pass; on a shared machine one
+1 % figure moves by a third from run to run. Here the first mining is done once (through
the CLI of the first tree, into a kept state dir), and then, for each repetition and each
tree in turn, a copy of that state takes the same +1 % requests:

- ``cli_cpu_s``: ``skillopt-sleep mine --embedder hashing --json --state COPY --requests
  MORE`` as a process (user + system CPU seconds, start-up included);
- ``lib_cpu_s``: ``Miner.mine`` on the same requests in a fresh process (CPU seconds of the
  call alone; ``every_family=False`` where the tree's miner takes it, as ``mine`` calls it).

Each tree also mines the whole history once in the library, for the denominator of its
ratios. Trees alternate within a repetition, so a change in the machine's load falls on
both. Medians and ratios are printed as one JSON object; the load average beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_bench
from scale_nights import measured

LIBRARY = """
import json, sys, time
from pathlib import Path
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.mine.embed import make_embedder
from skillopt_sleep.mine.miner import Miner
from skillopt_sleep.mine.requests import read_requests
state, path = Path(sys.argv[1]), Path(sys.argv[2])
requests, _ = read_requests(path)
miner = Miner(Archive(state / "archive.sqlite3"), make_embedder("hashing"),
              index_base=state / "index")
start = time.process_time()
try:
    miner.mine(requests, every_family=False)
except TypeError:  # a miner from before every_family: it lists every family
    miner.mine(requests)
print(json.dumps({"cpu": time.process_time() - start}))
"""


def _library(tree: Path, state: Path, requests: Path) -> float:
    state.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", LIBRARY, str(state), str(requests)], env=env,
                         capture_output=True, text=True, check=True, cwd=tree)
    return float(json.loads(out.stdout.splitlines()[-1])["cpu"])


def _cli(tree: Path, state: Path, requests: Path, home: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), SKILLOPT_SLEEP_HOME=str(home))
    mine = [sys.executable, "-m", "skillopt_sleep", "mine", "--embedder", "hashing", "--json",
            "--state", str(state), "--requests", str(requests)]
    return measured(mine, env, tree).cpu


def bench(n: int, reps: int, trees: list[Path]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="increment-bench-") as tmp:
        root = Path(tmp)
        history = scale_bench.write(root / "history.jsonl", scale_bench.history(n))
        more = scale_bench.write(root / "more.jsonl", scale_bench.history(n // 100, start=n))
        base = root / "base"
        first_cli = _cli(trees[0], base, history, root / "home")
        found: dict[str, Any] = {"requests": n, "more": n // 100, "reps": reps,
                                 "first_cli_cpu_s": round(first_cli, 2),
                                 "load_start": round(os.getloadavg()[0], 1)}
        runs: dict[str, dict[str, list[float]]] = {str(t): {"cli": [], "lib": []} for t in trees}
        firsts = {str(t): _library(t, root / f"first-{i}", history) for i, t in enumerate(trees)}
        for _ in range(reps):
            for tree in trees:
                for kind in ("cli", "lib"):
                    copy = root / "copy"
                    shutil.rmtree(copy, ignore_errors=True)
                    shutil.copytree(base, copy)
                    cpu = (_cli(tree, copy, more, root / "home") if kind == "cli"
                           else _library(tree, copy, more))
                    runs[str(tree)][kind].append(cpu)
    for name, kinds in runs.items():
        cli, lib = statistics.median(kinds["cli"]), statistics.median(kinds["lib"])
        found[name] = {"lib_first_cpu_s": round(firsts[name], 2),
                       "cli_cpu_s": [round(c, 3) for c in kinds["cli"]],
                       "lib_cpu_s": [round(c, 3) for c in kinds["lib"]],
                       "cli_ratio": round(cli / first_cli, 4),
                       "lib_ratio": round(lib / firsts[name], 4)}
    found["load_end"] = round(os.getloadavg()[0], 1)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--trees", default=".", help="checkouts to compare, comma-separated")
    args = parser.parse_args()
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    print(json.dumps(bench(args.requests, args.reps, trees)), flush=True)


if __name__ == "__main__":
    main()
