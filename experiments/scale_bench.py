"""Scale benchmark: mining a long request history, then 1 % more, through the real CLI.

    python experiments/scale_bench.py --sizes 1000,5000,20000 --json

For each size N it builds a synthetic history of N requests in one project (about three
per session): two thirds are paraphrases of the labelled set's recurring tasks
(tests/data/paraphrases.jsonl) with varied targets, one third one-off requests drawn
from a vocabulary, so the pending pool (requests no family holds) grows with history as
it does for a real user. Then, in a fresh state dir, it runs

- ``first_s``: ``skillopt-sleep mine --requests history.jsonl --embedder hashing --json
  --state DIR`` (its own archive and index, kept for the second run);
- ``second_s``: the same command on 1 % more requests (new sessions only);
- ``second_ratio``: ``second_s / first_s`` (target ≤ 0.05);
- ``first_cpu_s`` / ``second_cpu_s`` / ``second_cpu_ratio``: the same in CPU seconds (user +
  system of the child; ``lib_*_cpu_*`` in-process): on a loaded machine the wall time is
  mostly waiting for a core, and the CPU time is the work;
- ``peak_rss_mb``: the larger peak RSS of the two runs (``VmHWM`` of each child);
- ``families``: families stored after the second run;
- ``lib_first_s`` / ``lib_second_s`` / ``lib_ratio``: the same two minings through the
  library (``Miner.mine(…, every_family=False)``, as ``mine`` calls it: the families that
  grew, not a listing of every family) in this process, so without the CLI's start-up,
  imports and JSON reading and printing;
- ``catalog_first_s`` / ``catalog_second_s``: the night's mining path (``Catalog.refresh``:
  mine, route, build and store tasks; no model, so judges come from corrections alone).

Each command is a separate process, so start-up (0.6–1 s on a loaded machine) is inside
every CLI figure. The load average is printed with the results: compare within one run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "tests" / "data" / "paraphrases.jsonl"
PROJECT = "/bench/busy-laptop"

TARGETS = ["", " in the api module", " for the billing service", " before the release",
           " on the staging branch", " in utils.py", " for the login page", " again",
           " in the payments package", " for the cli"]
ONE_OFF_VERBS = ["explain", "rename", "sketch", "draft", "compare", "benchmark", "translate",
                 "summarise", "estimate", "plot", "archive", "migrate", "profile", "diagram"]
ONE_OFF_OBJECTS = ["the cache layer", "our onboarding flow", "the invoice exporter",
                   "the websocket handshake", "the cron schedule", "the retry policy",
                   "the feature flags", "the search ranking", "the audit log",
                   "the theme colours", "the backup script", "the rate limiter",
                   "the queue consumer", "the pdf renderer", "the sitemap", "the metrics"]
ONE_OFF_TAILS = ["", " for Alice", " by Friday", " with a table", " in two sentences",
                 " for the wiki", " step by step", " as bullet points"]


COMMANDS = ["pytest", "npm test", "npm run build", "git commit", "git push", "ruff check",
            "mypy", "docker build", "kubectl apply", "alembic upgrade", "gh pr create",
            "cargo test", "go test", "terraform plan", "make", "uv lock", "npx playwright"]
MODULES = ["api", "billing", "auth", "cli", "web", "payments", "search", "jobs"]
PEEKS = ["peek:ls", "peek:git status", "peek:cat", "peek:rg"]


def actions(rng: random.Random, task: str | None) -> list[str]:
    """A fingerprint as the harvest gives one (``mine.fingerprint``): a recurring task's
    own commands and files (seeded by the task), a one-off's drawn at random; now and
    then a look around first."""
    pick = random.Random(task) if task is not None else rng
    module = pick.choice(MODULES)
    found = {"tool:shell", f"cmd:{pick.choice(COMMANDS)}", "tool:edit", "edit:.py",
             f"path:src/{module}", f"file:src/{module}/{pick.choice(MODULES)}.py"}
    if rng.random() < 0.35:
        found.add(rng.choice(PEEKS))
    return sorted(found)


def history(n: int, start: int = 0, seed: int = 0,
            with_actions: bool = True) -> list[dict[str, Any]]:
    """``n`` requests numbered from ``start``: deterministic for a given seed and range."""
    rng = random.Random(seed * 1_000_003 + start)
    base = [json.loads(line)["text"] for line in LABELLED.read_text().splitlines()]
    out: list[dict[str, Any]] = []
    for i in range(start, start + n):
        task: str | None = None
        if rng.random() < 2 / 3:
            task = rng.choice(base)
            text = task + rng.choice(TARGETS)
        else:
            text = (f"{rng.choice(ONE_OFF_VERBS)} {rng.choice(ONE_OFF_OBJECTS)}"
                    f"{rng.choice(ONE_OFF_TAILS)}")
        session = f"s{i // 3}"
        row: dict[str, Any] = {"id": f"claude-code:{session}:{i % 3}", "session_id": session,
                               "project": PROJECT, "text": text}
        if with_actions:
            row["actions"] = actions(rng, task)
        out.append(row)
    return out


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one CLI run; a failure stops the bench."""
    from scale_nights import measured

    found = measured(args, env, Path.cwd())
    return found.wall, found.cpu, found.rss_mb


def one_size(n: int, cli: list[str], threshold: float | None,
             with_actions: bool = True) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        state = Path(tmp)
        env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(state / "home"))
        first_file = write(state / "history.jsonl", history(n, with_actions=with_actions))
        more = max(1, n // 100)
        second_file = write(state / "more.jsonl",
                            history(more, start=n, with_actions=with_actions))
        # ``mine`` is a preview unless told where to keep its own state (never the nights').
        kept = state / "mine-state"
        mine = [*cli, "mine", "--embedder", "hashing", "--json", "--state", str(kept)]
        if threshold is not None:
            mine += ["--threshold", str(threshold)]
        mine.append("--requests")
        first_s, first_cpu, rss1 = run([*mine, str(first_file)], env)
        second_s, second_cpu, rss2 = run([*mine, str(second_file)], env)
        db = sqlite3.connect(kept / "archive.sqlite3") \
            if (kept / "archive.sqlite3").exists() else None
        families = db.execute("SELECT COUNT(*) FROM families").fetchone()[0] if db else -1
        if db:
            db.close()
    return {"requests": n, "first_s": round(first_s, 2), "second_requests": more,
            "second_s": round(second_s, 2), "second_ratio": round(second_s / first_s, 4),
            "first_cpu_s": round(first_cpu, 2), "second_cpu_s": round(second_cpu, 2),
            "second_cpu_ratio": round(second_cpu / first_cpu, 4),
            "peak_rss_mb": round(max(rss1, rss2), 1), "families": families}


def in_process(n: int, threshold: float | None, with_actions: bool = True,
               embedder: str = "hashing", catalog_too: bool = True) -> dict[str, float]:
    """First and second mining through ``Miner.mine`` (no start-up, no CLI I/O); the
    night's path (``Catalog.refresh``) too unless ``catalog_too`` is off."""
    sys.path.insert(0, str(ROOT))
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.families import FamilySettings
    from skillopt_sleep.mine.miner import Miner
    from skillopt_sleep.mine.requests import request_from_json

    with tempfile.TemporaryDirectory(prefix="scale-bench-lib-") as tmp:
        state = Path(tmp)
        archive = Archive(state / "archive.sqlite3")
        nightly = Archive(state / "nightly.sqlite3")
        settings = FamilySettings() if threshold is None else FamilySettings(threshold)
        times, cpus, catalog = [], [], []
        for rows in (history(n, with_actions=with_actions),
                     history(max(1, n // 100), start=n, with_actions=with_actions)):
            requests = [request_from_json(r) for r in rows]
            miner = Miner(archive, make_embedder(embedder), settings, index_base=state / "index")
            start, cpu = time.perf_counter(), time.process_time()
            miner.mine(requests, every_family=False)  # as ``mine`` asks: what grew, by key
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            if not catalog_too:
                continue
            refresh = Catalog(nightly, make_embedder("hashing"),
                              settings=CatalogSettings(family=settings),
                              index_base=state / "nightly-index")
            start = time.perf_counter()
            refresh.refresh(requests)
            catalog.append(time.perf_counter() - start)
        archive.close()
        nightly.close()
    prefix = "lib" if embedder == "hashing" else f"lib_{embedder}"
    out = {f"{prefix}_first_s": round(times[0], 2), f"{prefix}_second_s": round(times[1], 3),
           f"{prefix}_ratio": round(times[1] / times[0], 4),
           f"{prefix}_first_cpu_s": round(cpus[0], 2), f"{prefix}_second_cpu_s": round(cpus[1], 3),
           f"{prefix}_cpu_ratio": round(cpus[1] / cpus[0], 4)}
    if catalog:
        out |= {"catalog_first_s": round(catalog[0], 2), "catalog_second_s": round(catalog[1], 2)}
    return out


def exponents(results: list[dict[str, Any]], key: str) -> dict[str, float]:
    """Growth exponent of ``key`` between consecutive sizes: log(t2/t1) / log(n2/n1)."""
    import math

    found = {}
    for a, b in itertools.pairwise(results):
        if a.get(key) and b.get(key) and b["requests"] > a["requests"]:
            found[f"{a['requests']}-{b['requests']}"] = round(
                math.log(b[key] / a[key]) / math.log(b["requests"] / a["requests"]), 2)
    return found


def with_nights(n: int, cli: list[str], tasks_rss_at: set[int]) -> dict[str, Any]:
    """The nights half (``scale_nights``): the history as transcripts, a first night, a
    nothing-new night; at the sizes in ``tasks_rss_at``, ``tasks``' peak RSS as well."""
    import scale_nights

    base = {json.loads(line)["text"] for line in LABELLED.read_text().splitlines()}
    recurring = {b + t for b in base for t in TARGETS}
    with tempfile.TemporaryDirectory(prefix="scale-bench-nights-") as tmp:
        found = scale_nights.nights(n, history(n), recurring, Path(tmp), cli)
        if n in tasks_rss_at:
            found |= scale_nights.tasks_rss(Path(tmp), cli)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--threshold", type=float, default=None,
                        help="family threshold (default: config family_threshold, 0.3)")
    parser.add_argument("--parts", default="mine,nights",
                        help="mine (the mining figures), nights (first and nothing-new night)")
    parser.add_argument("--no-actions", action="store_true",
                        help="requests without action fingerprints (text alone)")
    parser.add_argument("--minilm-at", default="",
                        help="sizes at which to mine in-process with MiniLM too (slow)")
    parser.add_argument("--tasks-rss-at", default="100000",
                        help="sizes at which to measure tasks' peak RSS (minilm, cached)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if not parts <= {"mine", "nights"}:
        parser.error(f"--parts takes mine and/or nights, not {args.parts!r}")
    rss_at = {int(s) for s in args.tasks_rss_at.split(",") if s}
    cli = [sys.executable, "-m", "skillopt_sleep"]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
    acts = not args.no_actions
    minilm_at = {int(s) for s in args.minilm_at.split(",") if s}
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        result: dict[str, Any] = {"requests": n, "actions": acts}
        if "mine" in parts:
            result |= one_size(n, cli, args.threshold, acts) | in_process(n, args.threshold, acts)
            if n in minilm_at:
                result |= in_process(n, args.threshold, acts, "minilm", catalog_too=False)
        if "nights" in parts:
            result |= with_nights(n, cli, rss_at)
        result["load"] = round(os.getloadavg()[0], 1)
        results.append(result)
        print(json.dumps(result) if args.json else
              "  ".join(f"{k} {v}" for k, v in result.items()), flush=True)
    growth = {k: exponents(results, k) for k in ("first_s", "lib_first_s", "lib_minilm_first_s",
                                                 "first_cpu_s", "lib_first_cpu_s")
              if len(results) > 1}
    if growth:
        print(json.dumps({"growth_exponent": growth}) if args.json else
              f"growth exponent {growth}", flush=True)


if __name__ == "__main__":
    main()
