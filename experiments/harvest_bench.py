"""Harvest throughput and memory on a synthetic Claude Code tree built from the test fixtures.

    .venv/bin/python experiments/harvest_bench.py [--mb 200] [--big-mb 300] [--json]
    .venv/bin/python experiments/harvest_bench.py --source codex [--mb 200]
    .venv/bin/python experiments/harvest_bench.py --redaction-cost [--mb 200] [--source codex]

Builds ``--mb`` MB of session files (copies of the project's Claude Code transcripts in
``tests/fixtures/transcripts`` with fresh session ids), then times, each against the same
archive: a full harvest, a second harvest with nothing new, and one after appending 1 % of
the bytes to existing files. Then peak RSS of a fresh process harvesting one ``--big-mb``
MB session file. Targets: full ≥ 120 MB/s, no-change ≤ 5 % of full, peak RSS ≤ 100 MB.
``--redaction-cost`` instead times full harvests of one tree in-process, alternately with
redaction and with it switched off (``secrets`` finds nothing, ``may_hold_secrets`` says
no), three of each, each into a fresh archive, and reports the share of harvest time that
redaction costs (target <= 15 %), by CPU time and by wall time.
``--source codex`` builds a ``CODEX_HOME`` of rollouts from the Codex fixtures instead (no
big-file step): the same three passes. ``SKILLOPT_SLEEP_FIXTURES=DIR`` builds from another
corpus laid out the same way (``<agent>/*.jsonl``), e.g. the shared public transcripts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("SKILLOPT_SLEEP_FIXTURES",
                             ROOT / "tests" / "fixtures" / "transcripts"))
CLAUDE = FIXTURES / "claude-code"
CODEX = FIXTURES / "codex"


SESSION_KB = 56
"""Claude Code sessions are padded to about this size (the fixtures are small on purpose;
real sessions carry whole files in their tool results)."""
ROLLOUT_KB = 170
BIG_ROUND_KB = 52
"""The big file repeats a session padded to this size: about 2.3 KB a record, as in a real
session of reads and edits (records, not bytes, are what its memory grows with)."""


def _filler(size: int) -> str:
    """``size`` characters of file content, as a Read or a shell command would return."""
    line = "    return render(request, 'orders/list.html', {{'orders': page_{n}}})\n"
    out, n = [], 0
    while size > 0:
        text = f"{n:>6}\t" + line.format(n=n)
        out.append(text[:size])
        size -= len(text)
        n += 1
    return "".join(out)


def pad_claude(data: bytes, kb: int) -> bytes:
    """The session with its tool results (else its answers) grown to about ``kb`` KB."""
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    slots: list[dict[str, Any]] = []
    for record in records:
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                slots.append(block)
    if not slots:
        slots = [block for r in records if r.get("type") == "assistant"
                 for block in r["message"]["content"] if block.get("type") == "text"]
    key = "content" if slots and "content" in slots[0] else "text"
    for block in slots:
        block[key] += "\n" + _filler((kb * 1024 - len(data)) // len(slots))
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def pad_codex(data: bytes, kb: int) -> bytes:
    """The rollout with its command outputs grown to about ``kb`` KB."""
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    outputs = [r["payload"] for r in records
               if r.get("type") == "response_item"
               and r["payload"].get("type") == "function_call_output"]
    for payload in outputs:
        extra = _filler((kb * 1024 - len(data)) // max(1, len(outputs)))
        try:
            inner = json.loads(payload["output"])
            inner["output"] += extra
            payload["output"] = json.dumps(inner)
        except (ValueError, TypeError, KeyError):
            payload["output"] += extra
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def _templates() -> list[tuple[str, bytes]]:
    """Each fixture with its session id, so copies can be given fresh ids by byte replace."""
    found = []
    for path in sorted(CLAUDE.glob("*.jsonl")):
        data = pad_claude(path.read_bytes(), SESSION_KB)
        for line in data.splitlines():
            try:
                sid = json.loads(line).get("sessionId")
            except ValueError:
                continue
            if sid:
                found.append((sid, data))
                break
    return found


def build_tree(root: Path, megabytes: int) -> int:
    return _fill(root / "projects" / "-bench-project", _templates(), megabytes, "{}.jsonl")


def append_one_percent(root: Path, total: int, seed: int = 7) -> int:
    """Continue random sessions with fresh turns until 1 % of the bytes were added.

    The new records chain onto each file's last record, with the file's session id, as
    a session that goes on after a harvest does (one more round of a real session).
    """
    template = [json.loads(line) for line in
                (CLAUDE / "rewind_compact.jsonl").read_bytes()
                .splitlines() if line.strip()]
    files = sorted((root / "projects").rglob("*.jsonl"))
    rng = random.Random(seed)
    added, round_ = 0, 0
    while added < total // 100:
        path = rng.choice(files)
        envelope = _tail_ids(path)
        blob = _continuation(template, envelope, f"a{round_}")
        with path.open("ab") as fh:
            fh.write(blob)
        added += len(blob)
        round_ += 1
    return added


def _tail_ids(path: Path) -> dict[str, object]:
    """Session id, working folder and last record's uuid of a session file."""
    found: dict[str, object] = {"sessionId": path.stem, "cwd": "/tmp", "leaf": None}
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("uuid"), str) \
                and not record.get("isSidechain"):
            found["leaf"] = record["uuid"]
            for key in ("sessionId", "cwd"):
                found[key] = record.get(key) or found[key]
    return found


def _continuation(template: list[dict[str, object]], envelope: dict[str, object],
                  tag: str) -> bytes:
    """``template``'s records with fresh uuids, its roots hung under the file's leaf."""
    out = []
    for original in template:
        record = dict(original)
        for key in ("uuid", "parentUuid", "logicalParentUuid"):
            if isinstance(record.get(key), str):
                record[key] = f"{record[key]}-{tag}"
        if record.get("parentUuid") is None and record.get("type") != "system":
            record["parentUuid"] = envelope["leaf"]
        for key in ("sessionId", "cwd"):
            if key in record:
                record[key] = envelope[key]
        out.append(json.dumps(record).encode() + b"\n")
    return b"".join(out)


def _codex_templates() -> list[tuple[str, bytes]]:
    """Each Codex fixture that opens with a ``session_meta``, with its session id."""
    found = []
    for path in sorted(CODEX.glob("*.jsonl")):
        data = path.read_bytes()
        first = json.loads(data.split(b"\n", 1)[0])
        if first.get("type") == "session_meta":
            found.append((first["payload"]["id"], pad_codex(data, ROLLOUT_KB)))
    return found


def build_codex_tree(root: Path, megabytes: int) -> int:
    """``root/sessions/2025/09/25/rollout-…-<id>.jsonl`` copies with fresh ids."""
    folder = root / "sessions" / "2025" / "09" / "25"
    return _fill(folder, _codex_templates(), megabytes, "rollout-2025-09-25T02-12-23-{}.jsonl")


def _fill(folder: Path, templates: list[tuple[str, bytes]], megabytes: int, name: str) -> int:
    """Copies of the template sessions, each under a fresh id, until ``megabytes`` are written."""
    target = megabytes * 1024 * 1024
    folder.mkdir(parents=True, exist_ok=True)
    written, n = 0, 0
    while written < target:
        sid, data = templates[n % len(templates)]
        new_id = f"{n:08x}-0000-4000-8000-000000000000"
        blob = data.replace(sid.encode(), new_id.encode())
        (folder / name.format(new_id)).write_bytes(blob)
        written += len(blob)
        n += 1
    return written


def append_codex_one_percent(root: Path, total: int, seed: int = 7) -> int:
    """Continue random rollouts with the compaction fixture's turns (fresh call ids)."""
    template = pad_codex((CODEX / "compacted.jsonl").read_bytes(), 5) \
        .splitlines(keepends=True)[1:]  # every line but its session_meta
    files = sorted((root / "sessions").rglob("rollout-*.jsonl"))
    rng = random.Random(seed)
    added, round_ = 0, 0
    while added < total // 100:
        blob = b"".join(template).replace(b"\"call_c", f"\"call_r{round_}_".encode())
        with rng.choice(files).open("ab") as fh:
            fh.write(blob)
        added += len(blob)
        round_ += 1
    return added


def timed_harvest(root: Path, source: str = "claude-code") -> dict[str, float]:
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.ingest import harvest
    from skillopt_sleep.harvest.base import HarvestStats
    from skillopt_sleep.harvest.sources import make_source
    from skillopt_sleep.paths import archive_path

    stats = HarvestStats()
    archive = Archive(archive_path())
    start, cpu = time.perf_counter(), time.process_time()
    sessions = sum(1 for _ in harvest(archive, [make_source(source, root, stats=stats)]))
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    archive.close()
    return {"seconds": seconds, "cpu_seconds": cpu, "bytes_read": stats.bytes_read,
            "sessions": sessions,
            "files_read": stats.files_read, "files_unchanged": stats.files_unchanged,
            "files_resumed": stats.files_resumed, "resume_fallbacks": stats.resume_fallbacks}


_RSS_CHILD = """
import sys, resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
source = ClaudeCodeSource(Path(sys.argv[1]), include_headless=True)
sessions = list(source.sessions_from(Path(sys.argv[2])))
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak_kb, len(sessions[0].turns) if sessions else 0)
"""


def write_big_session(path: Path, megabytes: int) -> int:
    """One session file of ``megabytes`` MB: rounds of a session, chained end to end."""
    template = pad_claude((CLAUDE / "bugfix_snapshots.jsonl").read_bytes(), BIG_ROUND_KB)
    lines = [json.loads(line) for line in template.splitlines() if line.strip()]
    path.parent.mkdir(parents=True, exist_ok=True)
    target, written, round_ = megabytes * 1024 * 1024, 0, 0
    last: str | None = None
    with path.open("wb") as fh:
        while written < target:
            for original in lines:
                record = dict(original)
                for key in ("uuid", "parentUuid"):  # fresh uuids keep the chain linear
                    if record.get(key):
                        record[key] = f"{record[key]}-r{round_}"
                if round_ and record.get("parentUuid") is None and record.get("type") == "user":
                    record["parentUuid"] = last
                if record.get("uuid"):
                    last = record["uuid"]
                blob = json.dumps(record).encode() + b"\n"
                fh.write(blob)
                written += len(blob)
            round_ += 1
    return written


def big_file_rss(tmp: Path, megabytes: int) -> dict[str, float]:
    """Peak RSS of a fresh process reading one session file of ``megabytes`` MB."""
    path = tmp / "big" / "projects" / "-big" / "big-session.jsonl"
    written = write_big_session(path, megabytes)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(tmp / "big"), str(path)],
                         capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    peak_kb, turns = out.stdout.split()
    return {"file_mb": written / 2**20, "peak_rss_mb": int(peak_kb) / 1024,
            "seconds": seconds, "turns": int(turns)}


def three_passes(tmp: Path, source: str, megabytes: int) -> dict[str, Any]:
    """Full, no-change and +1 % harvests of a fresh tree of ``source`` sessions."""
    root = tmp / source
    build, grow = ((build_codex_tree, append_codex_one_percent) if source == "codex"
                   else (build_tree, append_one_percent))
    total = build(root, megabytes)
    full = timed_harvest(root, source)
    unchanged = timed_harvest(root, source)
    appended_bytes = grow(root, total)
    appended = timed_harvest(root, source)
    mb = total / 2**20
    return {
        "source": source,
        "tree_mb": round(mb, 1),
        "full": {**full, "mb_per_s": round(mb / full["seconds"], 1)},
        "no_change": {**unchanged, "pct_of_full": round(100 * unchanged["seconds"]
                                                        / full["seconds"], 2)},
        "append_1pct": {**appended, "appended_mb": round(appended_bytes / 2**20, 2),
                        "pct_of_full": round(100 * appended["seconds"] / full["seconds"], 2)},
    }


def report(result: dict[str, Any]) -> None:
    full, unchanged, appended = result["full"], result["no_change"], result["append_1pct"]
    mb = result["tree_mb"]
    print(f"{result['source']} tree: {mb:.0f} MB in {full['files_read']} files")
    print(f"full pass:      {full['seconds']:.2f} s  = {mb / full['seconds']:.0f} MB/s "
          f"(target >= 120); this process's CPU {full['cpu_seconds']:.2f} s = "
          f"{mb / full['cpu_seconds']:.0f} MB/s")
    print(f"no-change pass: {unchanged['seconds']:.3f} s = "
          f"{unchanged['pct_of_full']}% of full (target <= 5%)")
    print(f"after +1 %:     {appended['seconds']:.2f} s = {appended['pct_of_full']}%"
          f" of full; {appended['files_resumed']} grown files resumed, "
          f"{appended['resume_fallbacks']} read whole; "
          f"{appended['bytes_read'] / 2**20:.1f} MB read")
    big = result.get("big_file")
    if big:
        print(f"one {big['file_mb']:.0f} MB file: peak RSS {big['peak_rss_mb']:.0f} MB "
              f"(target <= 100), {big['seconds']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=("claude-code", "codex"), default="claude-code")
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--big-mb", type=int, default=300)
    parser.add_argument("--workers", type=int, default=0,
                        help="worker processes (default: the harvester's own choice)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--redaction-cost", action="store_true",
                        help="time harvests with and without redaction (target <= 15 %%)")
    args = parser.parse_args()
    if args.workers:
        os.environ["SKILLOPT_SLEEP_HARVEST_WORKERS"] = str(args.workers)
    with tempfile.TemporaryDirectory(prefix="harvest-bench-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["SKILLOPT_SLEEP_HOME"] = str(tmp / "home")
        if args.redaction_cost:  # its own module: the comparison switches redaction off
            from redaction_cost import print_cost, redaction_cost

            print_cost(redaction_cost(tmp, args.source, args.mb), args.json)
            return
        result = three_passes(tmp, args.source, args.mb)
        if args.source == "claude-code":
            result["big_file"] = big_file_rss(tmp, args.big_mb)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)


if __name__ == "__main__":
    main()
