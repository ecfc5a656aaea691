"""Reading many files of one source on several cores.

Parsing JSON dominates a harvest and files are independent, so a large harvest (at least
``PARALLEL_MIN_FILES`` files and ``PARALLEL_MIN_BYTES`` bytes to read whole: a first
harvest of a long history) spreads files over worker processes (spawned: safe next to
threads, the same on every OS), as many as the load leaves cores idle
(``resources.harvest_workers``: one on a busy 2-core machine, where a second worker only
slows the first); ``SKILLOPT_SLEEP_HARVEST_WORKERS=N`` sets how many (1: always
in-process). Workers rebuild the source from its name and root and send back each file's
sessions, checkpoint and counts; the caller keeps the order and the archive writes.
A nightly harvest reads far less than the thresholds and stays in-process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest.base import FileRead, HarvestStats, Source, checkpoint_of
from skillopt_sleep.harvest.sources import SOURCE_NAMES, make_source
from skillopt_sleep.resources import HARVEST_WORKERS_ENV, harvest_workers

__all__ = ["PARALLEL_MIN_BYTES", "PARALLEL_MIN_FILES", "WORKERS_ENV", "read_files"]

PARALLEL_MIN_FILES = 64
"""Fewer changed files than this are read in-process: starting workers costs ~0.3 s."""

PARALLEL_MIN_BYTES = 64 * 1024 * 1024
"""Less than this to read is done in-process: below it, starting workers costs more than
it saves (about 0.6 s of reading at one core's pace)."""

WORKERS_ENV = HARVEST_WORKERS_ENV
"""Worker processes for a large harvest; default: the idle cores, at most 4. On the 2-core
development machine two workers read a 200 MB tree at 1.3x the in-process pace when it is
quiet, and at 0.71x when the load is ~12 (see experiments/harvest_bench.py)."""

_CHUNK = 16

FileResult = tuple[Path, FileRead]


def read_files(source: Source, paths: list[Path], workers: int | None = None
               ) -> Iterator[FileResult]:
    """``(path, FileRead)`` for each path read whole, in order."""
    spec = _spec(source)
    if spec is None or len(paths) < PARALLEL_MIN_FILES:
        workers = 1  # in-process whatever the load: no need to ask for it
    workers = workers or harvest_workers()
    if spec is None or workers < 2 or len(paths) < PARALLEL_MIN_FILES \
            or _bytes(paths) < PARALLEL_MIN_BYTES:
        for path in paths:
            yield path, read_one(source, path)
        return
    # Here: a harvest with little new to read (most nights) never starts a pool.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [paths[i : i + _CHUNK] for i in range(0, len(paths), _CHUNK)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for results, counts in pool.map(_read_chunk, [spec] * len(chunks), chunks):
            _merge(source.stats, counts)
            yield from results


def _bytes(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
        if total >= PARALLEL_MIN_BYTES:
            break
    return total


def read_one(source: Source, path: Path) -> FileRead:
    """One file read whole: through the source's ``read`` when it has one (which checkpoints
    from the same open file), else a checkpoint taken first and ``sessions_from``."""
    read = getattr(source, "read", None)
    if read is not None:
        result: FileRead = read(path)
        return result
    snapshot = checkpoint_of(path, source.name, [])
    before = source.stats.files_failed
    sessions = list(source.sessions_from(path))
    return FileRead(sessions, snapshot, None, source.stats.files_failed > before)


def _spec(source: Source) -> tuple[str, Any, bool] | None:
    """How a worker rebuilds ``source``; None for a source it cannot rebuild."""
    root = getattr(source, "root", None) or getattr(source, "roots", None)
    if source.name not in SOURCE_NAMES or root is None:
        return None
    return source.name, root, bool(getattr(source, "include_headless", True))


def _read_chunk(spec: tuple[str, Any, bool], paths: list[Path]
                ) -> tuple[list[FileResult], dict[str, Any]]:
    name, root, include_headless = spec
    source = make_source(name, root, include_headless=include_headless)
    results = [(path, read_one(source, path)) for path in paths]
    return results, {f.name: getattr(source.stats, f.name) for f in fields(HarvestStats)}


def _merge(stats: HarvestStats, counts: dict[str, Any]) -> None:
    for name, value in counts.items():
        mine = getattr(stats, name)
        if isinstance(mine, list):
            mine.extend(value)
        elif hasattr(mine, "update"):
            mine.update(value)  # Counter: adds
        else:
            setattr(stats, name, mine + value)
