"""What refusing a damaged archive costs: ``Archive.verify`` (``PRAGMA quick_check``, run by
``run``, ``adopt``, ``rollback`` and ``harvest`` before they write) and ``doctor``'s
read-only ``PRAGMA integrity_check`` on an archive of ``--mb`` MB.

    .venv/bin/python experiments/archive_check_bench.py [--mb 200] [--json]

The archive is filled through the archive's own API with synthetic sessions (random text,
so pages do not compress into nothing), then each check is timed three times (the file is
in the page cache after the build, as it is for a command run twice).
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.health import check
from skillopt_sleep.archive.sessions import save_sessions
from skillopt_sleep.records import Session, ToolCall, Turn

TURN_CHARS = 3000


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(string.ascii_letters + " ", k=n))


def build(path: Path, mb: int) -> None:
    rng = random.Random(0)
    archive = Archive(path)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    batch, n = [], 0
    while path.stat().st_size < mb * 1_000_000:
        turns = [Turn(id=f"bench:s{n}:{i}", index=i, request=_text(rng, 200),
                      final_answer=_text(rng, TURN_CHARS),
                      tool_calls=[ToolCall("Bash", ok=None, args={"command": "make"})])
                 for i in range(20)]
        batch.append(Session("bench", f"s{n}", "/p", when, when, turns=turns))
        n += 1
        if len(batch) == 50:
            save_sessions(archive, batch)
            batch = []
    archive.close()


def _best(run: Callable[[], object], times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.sqlite3"
        build(path, args.mb)
        archive = Archive(path)
        verify = _best(archive.verify)
        archive.close()
        doctor = _best(lambda: check(path))
        size = path.stat().st_size / 1_000_000
    figures = {"archive_mb": round(size), "verify_s": round(verify, 3),
               "doctor_integrity_check_s": round(doctor, 3)}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"archive {figures['archive_mb']} MB: verify (quick_check) {verify:.2f} s, "
              f"doctor (integrity_check) {doctor:.2f} s")


if __name__ == "__main__":
    main()
