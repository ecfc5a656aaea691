"""Family quality on the labelled multilingual set, through the real miner.

    python experiments/mining_quality.py [--json] [--sweep]

Requests: ``tests/data/multilingual_requests.jsonl`` (``multilingual_data.py``: 43
families in English, Spanish, German, Japanese and Russian, written as the four agents'
transcripts and harvested back, plus near-miss singles). Pairwise precision and recall
overall and per language (pairs with at least one member in that language), for the
shipped setting (``FamilySettings()``), text only (the miner before fingerprints) and
action only (no text, no English tables); with ``--sweep``, a grid of text weight ×
threshold, with and without the English intent guards, on the same vectors
(``families.cluster``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.archive.db import Archive  # noqa: E402
from skillopt_sleep.mine.embed import Embedder, make_embedder  # noqa: E402
from skillopt_sleep.mine.families import Compatibility, FamilySettings, cluster  # noqa: E402
from skillopt_sleep.mine.fingerprint import Combiner  # noqa: E402
from skillopt_sleep.mine.intent import embed_text, parse  # noqa: E402
from skillopt_sleep.mine.miner import Miner  # noqa: E402
from skillopt_sleep.mine.requests import request_from_json  # noqa: E402

DATA = ROOT / "tests" / "data" / "multilingual_requests.jsonl"


class Memo:
    """An embedder that embeds each text once for all the variants' fresh archives."""

    def __init__(self, inner: Embedder):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if todo:
            self.seen.update(zip(todo, self.inner.embed(todo), strict=True))
        return np.stack([self.seen[t] for t in texts]) if texts else self.inner.embed([])


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def scores(rows: Sequence[dict[str, Any]], groups: Sequence[Sequence[int]]) -> dict[str, Any]:
    """Pairwise precision/recall overall and per language (pairs touching the language)."""
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    langs = sorted({r["lang"] for r in rows})
    tally = {k: [0, 0, 0] for k in ["all", *langs]}  # both, predicted, true
    for i, j in combinations(range(len(rows)), 2):
        pred = i in group_of and group_of.get(i) == group_of.get(j)
        true = rows[i]["family"] == rows[j]["family"]
        if not (pred or true):
            continue
        for key in {"all", rows[i]["lang"], rows[j]["lang"]}:
            tally[key][0] += pred and true
            tally[key][1] += pred
            tally[key][2] += true
    out: dict[str, Any] = {}
    for key, (both, predicted, truth) in tally.items():
        out[key] = {
            "precision": round(both / predicted if predicted else 1.0, 3),
            "recall": round(both / truth if truth else 1.0, 3),
        }
    return out


def mine(
    rows: Sequence[dict[str, Any]], embedder: Embedder, settings: FamilySettings, state: Path
) -> list[list[int]]:
    """The families the miner forms of ``rows`` (as row indices), in a fresh archive."""
    requests = [request_from_json(r) for r in rows]
    state.mkdir(parents=True, exist_ok=True)
    archive = Archive(state / "archive.sqlite3")
    report = Miner(archive, embedder, settings, index_base=state / "index").mine(requests)
    archive.close()
    position = {r.id: i for i, r in enumerate(requests)}
    return [[position[m] for m in f.members] for f in report.families]


def variants(rows: Sequence[dict[str, Any]], embedder: Embedder, state: Path) -> dict[str, Any]:
    base = FamilySettings()
    out: dict[str, Any] = {"threshold": base.threshold, "action_threshold": base.action_threshold,
                           "text_weight": base.text_weight}
    cases = {"shipped": base,
             # the miner before fingerprints: text, English tables, one bar for every pair
             "text_only": FamilySettings(text_weight=1.0, action_threshold=base.threshold),
             # the fingerprint alone: no text, no English tables
             "action_only": FamilySettings(text_weight=0.0, guards=False)}
    for name, settings in cases.items():
        groups = mine(rows, embedder, settings, state / name)
        out[name] = scores(rows, groups) | {"families": len(groups)}
    return out


def sweep(rows: Sequence[dict[str, Any]], text: np.ndarray) -> dict[str, Any]:
    """Precision/recall (overall, worst language) over text weight × threshold × guards."""
    intents = [parse(r["text"]) for r in rows]
    keys = [(embed_text(r["text"]), tuple(r["actions"])) for r in rows]
    out: dict[str, Any] = {}
    for weight in (0.0, 0.1, 0.2, 0.3, 0.4, 1.0):
        vectors = Combiner(weight).combine(text, [r["actions"] for r in rows])
        for threshold in (0.3, 0.35, 0.42, 0.45, 0.5, 0.6):
            for guards in (True, False):
                groups = cluster(vectors, intents, threshold, 20, Compatibility(guards), keys)
                s = scores(rows, [g for g in groups if len({rows[i]["session_id"] for i in g}) > 1])
                worst = min(v["recall"] for k, v in s.items() if k != "all")
                out[f"w{weight}/t{threshold}/{'guards' if guards else 'noguards'}"] = (
                    s["all"]["precision"],
                    s["all"]["recall"],
                    worst,
                )
    return out


def quality(embedder: Embedder, with_sweep: bool = False) -> dict[str, Any]:
    rows = load()
    result: dict[str, Any] = {
        "ml_requests": len(rows),
        "ml_families": len({r["family"] for r in rows if not r["family"].startswith("near:")}),
        "ml_near_misses": sum(r["family"].startswith("near:") for r in rows),
        "ml_languages": sorted({r["lang"] for r in rows}),
    }
    with tempfile.TemporaryDirectory(prefix="mining-quality-") as tmp:
        result |= variants(rows, embedder, Path(tmp))
    if with_sweep:
        result["sweep"] = sweep(rows, embedder.embed([embed_text(r["text"]) for r in rows]))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--embedder", default="minilm", help="minilm or use-multilingual")
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    result = quality(Memo(make_embedder(args.embedder)), args.sweep)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        if key == "sweep":
            for cell, figures in value.items():
                print(
                    f"  {cell:28} P={figures[0]:.3f} R={figures[1]:.3f} worst R={figures[2]:.3f}"
                )
        else:
            print(f"{key:14} {value}")


if __name__ == "__main__":
    main()
