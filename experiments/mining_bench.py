"""Mining benchmark: recall latency at 100k tasks, embedding speed, the cache, family quality.

    python experiments/mining_bench.py --json

- ``recall_p50_ms`` / ``recall_p95_ms``: recall_k (k=20) over an archive of ``--tasks``
  synthetic past tasks (unit vectors around family centres; no model involved), through
  the real store, faiss index and filtering code. Target: p50 ≤ 20 ms at 100k.
- ``embed_texts_per_s``: the real all-MiniLM-L6-v2 on ``--embed-texts`` distinct texts.
- ``second_night_embedded``: texts embedded when the labelled set is mined a second time
  (must be 0).
- ``families_precision`` / ``families_recall``: pairwise, on tests/data/paraphrases.jsonl
  at the default threshold, plus a threshold sweep.
- ``multilingual``: pairwise precision and recall overall and per language on the labelled
  multilingual set (tests/data/multilingual_requests.jsonl: 43 families in five
  languages, in the four agents' transcript formats, plus near misses), for the shipped
  miner, text only and action fingerprint only (``mining_quality.py``; ``--sweep`` there).
Everything runs in a temporary state dir.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.archive.db import Archive  # noqa: E402
from skillopt_sleep.archive.mining import MiningStore  # noqa: E402
from skillopt_sleep.mine.embed import SentenceTransformerEmbedder  # noqa: E402
from skillopt_sleep.mine.evaluate import pairwise_scores  # noqa: E402
from skillopt_sleep.mine.families import FamilySettings, cluster, family_id  # noqa: E402
from skillopt_sleep.mine.index import ProjectIndex, space  # noqa: E402
from skillopt_sleep.mine.intent import parse  # noqa: E402
from skillopt_sleep.mine.miner import Miner  # noqa: E402
from skillopt_sleep.mine.recall import Recaller  # noqa: E402
from skillopt_sleep.mine.requests import Request, read_requests  # noqa: E402
from skillopt_sleep.mine.splits import split_for  # noqa: E402
from skillopt_sleep.records import utcnow  # noqa: E402

LABELLED = ROOT / "tests" / "data" / "paraphrases.jsonl"
PROJECT = "/bench/project"


class _Fixed:
    """An embedder that must never be called: the bench's vectors are all precomputed."""

    name = "bench"

    def __init__(self, dim: int):
        self.dim = dim

    def embed(self, texts: object) -> np.ndarray:
        raise AssertionError("the recall bench must not embed anything")


def build_archive(state: Path, n_tasks: int, per_family: int, dim: int) -> tuple[Archive, float]:
    rng = np.random.default_rng(0)
    archive = Archive(state / "archive.sqlite3")
    store = MiningStore(archive)
    n_families = n_tasks // per_family
    centres = rng.standard_normal((n_families, dim)).astype(np.float32)
    vectors = np.repeat(centres, per_family, axis=0)
    vectors += 0.6 * rng.standard_normal(vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    requests = [Request(id=f"r{i}", session_id=f"s{i}", project=PROJECT, text=f"task {i}",
                        reaction="approval" if i % 3 else "correction")
                for i in range(n_families * per_family)]
    store.add_requests(requests)
    now = utcnow().isoformat()
    with archive.transaction() as conn:
        for f in range(n_families):
            ids = [f"r{f * per_family + j}" for j in range(per_family)]
            fid = family_id(ids)
            conn.execute("INSERT INTO families VALUES (?,?,?,?,?,?)",
                         (fid, PROJECT, "bench", split_for(fid), json.dumps(ids[:2]), now))
            conn.executemany("UPDATE mined_requests SET family_id = ? WHERE id = ?",
                             [(fid, i) for i in ids])
    start = time.perf_counter()
    index = ProjectIndex.open(PROJECT, space("bench"), dim, state / "index")
    index.add([r.id for r in requests], vectors)
    index.save()
    return archive, time.perf_counter() - start


def recall_latency(state: Path, n_tasks: int, queries: int, dim: int = 384) -> dict[str, float]:
    archive, build_s = build_archive(state, n_tasks, per_family=5, dim=dim)
    recaller = Recaller(archive, _Fixed(dim), index_base=state / "index")
    rng = np.random.default_rng(1)
    probes = rng.standard_normal((queries, dim)).astype(np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    recaller.recall_vector(probes[0], PROJECT, k=20, current="failure")  # opens the index
    times, found = [], []
    for probe in probes:
        start = time.perf_counter()
        found.append(len(recaller.recall_vector(probe, PROJECT, k=20, current="failure")))
        times.append((time.perf_counter() - start) * 1000)
    archive.close()
    return {"recall_tasks": n_tasks, "recall_p50_ms": float(np.percentile(times, 50)),
            "recall_p95_ms": float(np.percentile(times, 95)),
            "recall_mean_found": float(np.mean(found)), "index_build_s": build_s}


def embed_speed(embedder: SentenceTransformerEmbedder, n: int) -> float:
    base, _ = read_requests(LABELLED)
    suffixes = ["", " in the api module", " for the billing service", " before the release",
                " on the staging branch"]
    texts = list(dict.fromkeys(f"{r.text}{s}" for s in suffixes for r in base))[:n]
    embedder.embed(texts[:8])  # load the model outside the timing
    start = time.perf_counter()
    embedder.embed(texts)
    return len(texts) / (time.perf_counter() - start)


def family_quality(state: Path, embedder: SentenceTransformerEmbedder) -> dict[str, object]:
    requests, _ = read_requests(LABELLED)
    labels = [json.loads(line)["family"] for line in LABELLED.read_text().splitlines()]
    archive = Archive(state / "labelled.sqlite3")
    settings = FamilySettings(min_sessions=1)
    first = Miner(archive, embedder, settings, index_base=state / "labelled-index").mine(requests)
    second = Miner(archive, embedder, settings, index_base=state / "labelled-index").mine(requests)
    position = {r.id: i for i, r in enumerate(requests)}
    groups = [[position[m] for m in f.members] for f in first.families]
    scores = pairwise_scores(labels, groups)
    intents = [parse(r.text) for r in requests]
    vectors = embedder.embed([i.canonical for i in intents])
    sweep = {}
    for threshold in (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
        s = pairwise_scores(labels, cluster(vectors, intents, threshold))
        sweep[f"{threshold:.2f}"] = {k: round(v, 3) for k, v in s.items()}
    archive.close()
    return {"labelled_requests": len(requests), "labelled_families": len(set(labels)),
            "threshold": settings.threshold, "families_found": len(first.families),
            "families_precision": scores["precision"], "families_recall": scores["recall"],
            "families_f1": scores["f1"], "threshold_sweep": sweep,
            "first_night_embedded": first.counts.get("embedded", 0),
            "second_night_embedded": second.counts.get("embedded", 0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embed-texts", type=int, default=1000)
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="mining-bench-") as tmp:
        state = Path(tmp)
        os.environ["SKILLOPT_SLEEP_HOME"] = str(state)
        results |= recall_latency(state / "recall", args.tasks, args.queries)
        embedder = SentenceTransformerEmbedder()
        results["embed_texts"] = args.embed_texts
        results["embed_texts_per_s"] = embed_speed(embedder, args.embed_texts)
        results |= family_quality(state, embedder)
        from mining_quality import Memo, quality

        results["multilingual"] = quality(Memo(embedder))
    if args.json:
        print(json.dumps(results))
    else:
        for key, value in results.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
