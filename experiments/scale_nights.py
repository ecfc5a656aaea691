"""The nights half of ``scale_bench.py``: a transcript tree for a synthetic history, a
first night and a nothing-new night through the real CLI, and ``tasks``' peak RSS with the
default embedder's vectors cached.

The tree is one Claude Code session file per three requests of ``scale_bench.history``
(``sim.transcripts`` writes them the way Claude Code does). In about a third of the
sessions whose second request is a recurring task, the third request is a correction of
it ("no, use pytest -q"), so the miner has judges and the night replayable tasks. The
project's config names the simulator for both roles (persona ``researcher``) and the
hashing embedder; the night runs with the default task budget.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

CORRECTIONS = ["no, use pytest -q", "no, keep lines under 80 columns",
               "no, add type hints to every function", "no, put the summary first",
               "no, run ruff before you answer", "don't touch the migrations folder"]
EPOCH = datetime(2025, 11, 1, 9, 0, 0)


def write_tree(home: Path, project: Path, rows: list[dict[str, str]], recurring: set[str],
               seed: int = 0) -> int:
    """Claude Code session files under ``home/.claude/projects`` for ``rows``; returns how
    many sessions were written."""
    from skillopt_sleep.sim.transcripts import _claude_session

    rng = random.Random(seed)
    slug = "".join(c if c.isalnum() else "-" for c in str(project))
    folder = home / ".claude" / "projects" / slug
    sessions: dict[str, list[str]] = {}
    for row in rows:
        sessions.setdefault(row["session_id"], []).append(row["text"])
    for n, (sid, texts) in enumerate(sessions.items()):
        if len(texts) == 3 and texts[1] in recurring and rng.random() < 0.35:
            texts[2] = rng.choice(CORRECTIONS)
        turns = [(text, f"Done: {text}. The change is in place and the checks pass.")
                 for text in texts]
        name = str(uuid.uuid5(uuid.NAMESPACE_URL, f"scale:{sid}"))
        _claude_session(folder / f"{name}.jsonl", str(project), turns,
                        EPOCH + timedelta(minutes=7 * n))
    return len(sessions)


def configure(project: Path, roots: list[Path]) -> None:
    project.mkdir(parents=True, exist_ok=True)
    (project / ".skillopt-sleep.toml").write_text(
        'target = "simulated"\noptimizer = "simulated"\npersona = "researcher"\n'
        'embedder = "hashing"\nsources = ["claude-code"]\n'
        f"skill_roots = {json.dumps([str(r) for r in roots])}\n", encoding="utf-8")


def timed(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of one CLI run; a failure stops the bench."""
    found = measured(args, env, cwd)
    return found.wall, found.rss_mb, found.out


@dataclass
class Run:
    wall: float
    cpu: float
    """User + system seconds of the child: on a shared, loaded machine the wall time is
    mostly waiting for a core, the CPU time is the work."""
    rss_mb: float
    out: str


def measured(args: list[str], env: dict[str, str], cwd: Path) -> Run:
    """One CLI run measured (see ``Run``); a failure stops the bench."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=out, stderr=err)
        peak = PeakRSS(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise SystemExit(f"{' '.join(args)} failed ({status}): "
                             f"{err.read().decode()[-2000:]}")
        return Run(wall, usage.ru_utime + usage.ru_stime, peak.stop(), out.read().decode())


class PeakRSS:
    """A child's peak RSS, read from ``/proc/<pid>/status`` (``VmHWM``) until it exits.

    Not ``wait4``'s ``ru_maxrss``: Linux carries the parent's high-water mark across the
    fork and exec, so a child of a bench that has grown large reports the bench's size.
    ``VmHWM`` belongs to the process's own address space, so it starts at the exec.
    """

    def __init__(self, pid: int, every: float = 0.02):
        self.path = Path(f"/proc/{pid}/status")
        self.peak_kb = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(every,), daemon=True)
        self._thread.start()

    def _watch(self, every: float) -> None:
        while not self._done.is_set():
            try:
                for line in self.path.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
            except (OSError, ValueError, IndexError):
                pass  # exited (or a zombie without memory): the last reading stands
            self._done.wait(every)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return self.peak_kb / 1024


def nights(n: int, rows: list[dict[str, str]], recurring: set[str], tmp: Path,
           cli: list[str]) -> dict[str, Any]:
    """A first night and a nothing-new night over ``rows`` as transcripts."""
    home, project = tmp / "home", tmp / "project"
    roots = [tmp / "skills"]
    configure(project, roots)
    sessions = write_tree(home, project, rows, recurring)
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               SKILLOPT_SLEEP_HOME=str(tmp / "state"))
    first_run = measured([*cli, "run", "--json"], env, project)
    first = json.loads(first_run.out)
    empty_run = measured([*cli, "run", "--json"], env, project)
    empty = json.loads(empty_run.out)
    if not empty["skipped"]:
        raise SystemExit(f"the second night at {n} requests was not skipped: "
                         f"{empty_run.out[:500]}")
    status = measured([*cli, "status", "--json"], env, project)
    check = measured([*cli, "harvest", "--source", "claude-code", "--json"], env, project)
    budget = first["counts"].get("task_budget", [])
    return {
        "sessions": sessions,
        "night_s": round(first_run.wall, 1),
        "night_rss_mb": round(first_run.rss_mb, 1),
        "night_calls": first["counts"].get("calls", 0),
        "tasks_available": sum(b["available"] for b in budget),
        "tasks_replayed": sum(b["chosen"] for b in budget),
        "nothing_new_s": round(empty_run.wall, 2),
        "nothing_new_cpu_s": round(empty_run.cpu, 2),
        "nothing_new_rss_mb": round(empty_run.rss_mb, 1),
        "nothing_new_calls": empty["counts"].get("calls", 0),
        "status_cpu_s": round(status.cpu, 2),
        "harvest_check_cpu_s": round(check.cpu, 2),
    }


def tasks_rss(tmp: Path, cli: list[str]) -> dict[str, Any]:
    """Peak RSS of ``tasks --embedder minilm`` over the archive ``nights`` left, with every
    request's vector already cached for ``minilm`` (as after the nights that embedded them).

    Embedding 100k texts with the real model takes about half an hour here, so the cached
    vectors are stand-ins of the model's shape (384 dimensions, unit length): the hashing
    embedder's vectors through a fixed random projection, which keeps their neighbourhoods.
    """
    project = tmp / "project"
    env = dict(os.environ, HOME=str(tmp / "home"), SKILLOPT_SLEEP_HOME=str(tmp / "state"))
    cached = _cache_minilm_vectors(tmp / "state" / "state" / "archive.sqlite3", str(project))
    wall, rss, out = timed([*cli, "tasks", "--embedder", "minilm", "--json",
                            "--project", str(project), "--skills-dir", str(tmp / "skills")],
                           env, project)
    listed = sum(1 for line in out.splitlines() if line.startswith('{"id"'))
    return {"tasks_minilm_s": round(wall, 1), "tasks_minilm_rss_mb": round(rss, 1),
            "tasks_minilm_cached_vectors": cached, "tasks_minilm_listed": listed}


def _cache_minilm_vectors(archive_path: Path, project: str) -> int:
    import numpy as np

    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.archive.sessions import load_sessions
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.intent import parse
    from skillopt_sleep.mine.requests import requests_from_sessions
    from skillopt_sleep.mine.vectors import VectorCache

    hashing = make_embedder("hashing")
    projection = np.random.default_rng(0).standard_normal((hashing.dim, 384)).astype(np.float32)

    class StandIn:
        name, dim = "minilm", 384

        def embed(self, texts: list[str]) -> np.ndarray:
            out = hashing.embed(texts) @ projection
            return out / np.linalg.norm(out, axis=1, keepdims=True)

    archive = Archive(archive_path)
    try:
        texts = {parse(r.text).canonical
                 for r in requests_from_sessions(load_sessions(archive, project=project))}
        cache = VectorCache(archive, StandIn())  # type: ignore[arg-type]
        cache.vectors(sorted(texts))
        return cache.embedded
    finally:
        archive.close()
