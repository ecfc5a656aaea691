"""Redaction's share of a harvest, in CPU and wall time: full in-process harvests of one
tree, alternately with redaction and with it switched off (``harvest_bench.py
--redaction-cost`` runs this). On a shared machine these times move between runs;
``redaction_instructions.py`` counts instructions instead."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harvest_bench import build_codex_tree, build_tree, timed_harvest

__all__ = ["ROUNDS", "print_cost", "redaction_cost", "redaction_off"]


@contextlib.contextmanager
def redaction_off() -> Iterator[None]:
    """Redaction switched off everywhere the harvest calls it, for the comparison only."""
    import skillopt_sleep.archive.ingest  # noqa: F401  (bind the harvest's imports first)
    import skillopt_sleep.secrets as secrets

    spans, may_hold = secrets._spans, secrets.may_hold_secrets
    bound = [(module, name) for module in list(sys.modules.values())
             for name in ("may_hold_secrets",)
             if getattr(module, name, None) is may_hold]
    secrets._spans = lambda text: []
    for module, name in bound:
        setattr(module, name, lambda texts: False)
    try:
        yield
    finally:
        secrets._spans = spans
        for module, name in bound:
            setattr(module, name, may_hold)


ROUNDS = 3
"""Harvests of each kind in ``--redaction-cost``, alternated; the best of each is kept (the
first pays one-time imports, and a shared machine's load comes and goes)."""


def redaction_cost(tmp: Path, source: str, megabytes: int) -> dict[str, Any]:
    """CPU and wall time of full in-process harvests with and without redaction."""
    root = tmp / source
    total = (build_codex_tree if source == "codex" else build_tree)(root, megabytes)
    os.environ["SKILLOPT_SLEEP_HARVEST_WORKERS"] = "1"
    runs: dict[str, list[dict[str, float]]] = {"with": [], "without": []}
    for i, mode in enumerate(["with", "without"] * ROUNDS):
        os.environ["SKILLOPT_SLEEP_HOME"] = str(tmp / f"home-{i}")
        with redaction_off() if mode == "without" else contextlib.nullcontext():
            runs[mode].append(timed_harvest(root, source))
    best = {mode: {key: min(r[key] for r in rs) for key in ("seconds", "cpu_seconds")}
            for mode, rs in runs.items()}
    share = {key: round(100 * (best["with"][key] - best["without"][key])
                        / best["with"][key], 1) for key in ("seconds", "cpu_seconds")}
    return {"source": source, "tree_mb": round(total / 2**20, 1), "best": best,
            "redaction_pct_of_harvest": share,
            "sessions": runs["with"][0]["sessions"]}


def print_cost(cost: dict[str, Any], as_json: bool) -> None:
    print(json.dumps(cost, indent=2) if as_json else
          f"{cost['source']} tree: {cost['tree_mb']:.0f} MB; best of {ROUNDS} full "
          f"in-process harvests: with redaction {cost['best']['with']['cpu_seconds']:.2f}"
          f" s CPU, without {cost['best']['without']['cpu_seconds']:.2f} s; redaction ="
          f" {cost['redaction_pct_of_harvest']['cpu_seconds']}% of harvest CPU time"
          f" ({cost['redaction_pct_of_harvest']['seconds']}% of wall time;"
          " target <= 15%)")
