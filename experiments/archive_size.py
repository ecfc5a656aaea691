"""What the archive keeps of a transcript tree, and what compressing turns saves.

    python experiments/archive_size.py [--mb 40] [--json]

Builds ``--mb`` MB of Claude Code sessions the way ``harvest_bench.py`` does (the test
fixtures, tool results padded to real session sizes; ``SKILLOPT_SLEEP_FIXTURES=DIR`` for
another corpus), harvests them into a fresh archive, and prints the tree's size, the
archive's size, and the turns' answers and tool calls as stored (zlib, ``payload_z``)
against the same JSON uncompressed. Tool output is clipped before it is stored (a failed
call's first 300 characters, arguments to 400, answers to 4,000), so the archive is a
fraction of the tree before compression; compression takes the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def measure(megabytes: int) -> dict[str, float]:
    import harvest_bench

    with tempfile.TemporaryDirectory(prefix="archive-size-") as tmp:
        os.environ["SKILLOPT_SLEEP_HOME"] = str(Path(tmp) / "home")
        from skillopt_sleep.archive.db import Archive
        from skillopt_sleep.archive.ingest import harvest
        from skillopt_sleep.harvest.sources import make_source
        from skillopt_sleep.paths import archive_path

        tree = harvest_bench.build_tree(Path(tmp) / "claude", megabytes)
        archive = Archive(archive_path())
        sessions = sum(1 for _ in harvest(archive, [make_source("claude-code",
                                                                Path(tmp) / "claude")]))
        archive.close()
        conn = sqlite3.connect(archive_path())
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored = plain = 0
        for (blob,) in conn.execute("SELECT payload_z FROM turns WHERE payload_z IS NOT NULL"):
            stored += len(blob)
            plain += len(zlib.decompress(blob))
        conn.close()
        size = archive_path().stat().st_size
    mb = 1024 * 1024
    return {"tree_mb": round(tree / mb, 1), "sessions": sessions,
            "archive_mb": round(size / mb, 2), "turn_payloads_plain_mb": round(plain / mb, 2),
            "turn_payloads_stored_mb": round(stored / mb, 2),
            "saved_mb": round((plain - stored) / mb, 2),
            "archive_without_compression_mb": round((size + plain - stored) / mb, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.mb)
    print(json.dumps(result) if args.json else
          "  ".join(f"{k} {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
