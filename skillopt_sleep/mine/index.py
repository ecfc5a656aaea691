"""A faiss index per project and embedder, persisted in the state dir, grown in place.

Exact inner-product search (``IndexFlatIP``) over unit vectors is cosine search; at
100k vectors of 384 dimensions one query takes milliseconds, so no approximate index is
needed. Row ``i`` of the index belongs to ``keys[i]``: adding appends, nothing is ever
re-embedded or re-added, and an index whose files disagree is dropped and rebuilt from
the archive's vector cache (cheap: no model involved).

On disk: a base (``.faiss`` + ``.keys.json``, written whole) and a delta log
(``.delta``: records of key and vector, appended), so saving a pass that added 1 % does
not rewrite the other 99 %. The delta is folded into the base once it holds more than
``DELTA_SHARE`` of it. A torn last record (a crash mid-append) is ignored on load and cut
off before the next append; vectors lost that way are refilled from the vector cache.
"""

from __future__ import annotations

import json
import logging
import os
import struct
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np
from filelock import FileLock

from skillopt_sleep import paths
from skillopt_sleep.records import sha256_text

log = logging.getLogger(__name__)

Hit = tuple[str, float]
DELTA_SHARE = 0.25
_KEY_LEN = struct.Struct("<H")


def project_key(project: str) -> str:
    """Short, filesystem-safe name of a project (its path is not)."""
    return sha256_text(project)[:16]


def space(embedder: str) -> str:
    """Name of the vector space an index holds: the embedder and the canonical form of the
    texts it embedded (``intent.CANONICAL_FORM``)."""
    from skillopt_sleep.mine.intent import CANONICAL_FORM

    return f"{embedder}-{CANONICAL_FORM}"


def index_dir(state: Path | None = None) -> Path:
    return (state or paths.state_dir()) / "index"


ONE_THREAD_WORK = 1 << 30
"""Multiply-adds (queries × rows × dimensions) below which a search runs on one thread."""


def _search(index: faiss.Index, block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    if len(block) * index.ntotal * index.d >= ONE_THREAD_WORK:
        return index.search(block, k)
    # A small search: OpenMP's thread start-up costs more than it saves (one query at 100k
    # vectors on 2 cores: 34 ms vs 9 ms), and on a busy machine its threads spin for a
    # core (232 queries over 1,124 family means of 1,024 dimensions, load 20: 43 ms of
    # CPU on two threads, 14 ms on one, and less wall time too), so it runs on one.
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        return index.search(block, k)
    finally:
        faiss.omp_set_num_threads(threads)


def faiss_nearest(base: np.ndarray, queries: np.ndarray, k: int) -> list[list[int]]:
    """Rows of ``base`` nearest (inner product) to each query row, best first."""
    return [[r for r, _ in row] for row in faiss_scored(base, queries, k)]


def faiss_scored(base: np.ndarray, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
    """``(row, inner product)`` of the rows of ``base`` nearest each query row, best first."""
    if len(base) == 0 or len(queries) == 0 or k <= 0:
        return [[] for _ in range(len(queries))]
    index = faiss.IndexFlatIP(base.shape[1])
    index.add(np.ascontiguousarray(base, dtype=np.float32))
    scores, rows = _search(index, np.ascontiguousarray(queries, dtype=np.float32),
                           min(k, len(base)))
    return [[(int(r), float(s)) for r, s in zip(row, srow, strict=True) if r >= 0]
            for row, srow in zip(rows, scores, strict=True)]


class ProjectIndex:
    """The vectors of one project's items (requests, by id) under one embedder."""

    def __init__(self, base: Path, project: str, embedder: str, dim: int):
        self.project = project
        self.dim = dim
        stem = base / f"{embedder}-{project_key(project)}"
        self.index_path = stem.with_suffix(".faiss")
        self.keys_path = stem.with_suffix(".keys.json")
        self.delta_path = stem.with_suffix(".delta")
        self._base = 0  # rows in the base files
        self._saved = 0  # rows in the base and the delta
        self._lock = FileLock(str(stem.with_suffix(".lock")))
        self.index: faiss.Index = faiss.IndexFlatIP(dim)
        self.keys: list[str] = []
        self._rows: dict[str, int] = {}

    @classmethod
    def open(cls, project: str, embedder: str, dim: int, base: Path | None = None) -> ProjectIndex:
        """Load the persisted index, or an empty one if it is missing or inconsistent."""
        self = cls(paths.ensure(base or index_dir()), project, embedder, dim)
        if self.index_path.exists() and self.keys_path.exists():
            with self._lock:
                self._load()
        return self

    def _load(self) -> None:
        try:
            index = faiss.read_index(str(self.index_path))
            keys = json.loads(self.keys_path.read_text(encoding="utf-8"))
        except (RuntimeError, OSError, ValueError) as exc:
            log.warning("index %s unreadable (%s); rebuilding", self.index_path, exc)
            return
        if index.ntotal != len(keys) or index.d != self.dim:
            log.warning("index %s out of step with its keys; rebuilding", self.index_path)
            return
        self.index, self.keys = index, list(keys)
        self._rows = {k: i for i, k in enumerate(self.keys)}
        self._base = len(self.keys)
        delta_keys, vectors, _ = self._read_delta()
        if delta_keys:
            self.add(delta_keys, vectors)
        self._saved = len(self.keys)

    def _read_delta(self) -> tuple[list[str], np.ndarray, int]:
        """Whole records of the delta log: keys, vectors and the bytes they span."""
        try:
            data = self.delta_path.read_bytes()
        except FileNotFoundError:
            data = b""
        width = 4 * self.dim
        keys: list[str] = []
        blocks: list[bytes] = []
        at = 0
        while at + _KEY_LEN.size <= len(data):
            (size,) = _KEY_LEN.unpack_from(data, at)
            end = at + _KEY_LEN.size + size + width
            if end > len(data):
                break  # a torn last record
            keys.append(data[at + _KEY_LEN.size : at + _KEY_LEN.size + size].decode())
            blocks.append(data[end - width : end])
            at = end
        vectors = np.frombuffer(b"".join(blocks), dtype=np.float32).reshape(-1, self.dim)
        return keys, vectors, at

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> int:
        """Append the vectors of keys not yet indexed; returns how many were added."""
        fresh = [i for i, k in enumerate(keys) if k not in self._rows]
        fresh = list({keys[i]: i for i in fresh}.values())  # a key repeated in one batch
        if not fresh:
            return 0
        block = np.ascontiguousarray(vectors[fresh], dtype=np.float32)
        self.index.add(block)
        for i in fresh:
            self._rows[keys[i]] = len(self.keys)
            self.keys.append(keys[i])
        return len(fresh)

    def search(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        """The ``k`` nearest keys of each query row, best first, as ``(key, cosine)``."""
        if len(self.keys) == 0 or k <= 0:
            return [[] for _ in range(len(queries))]
        block = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        scores, rows = _search(self.index, block, min(k, len(self.keys)))
        return [
            [(self.keys[r], float(s)) for s, r in zip(srow, rrow, strict=True) if r >= 0]
            for srow, rrow in zip(scores, rows, strict=True)
        ]

    def vectors(self, keys: Sequence[str]) -> np.ndarray:
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = np.fromiter((self._rows[k] for k in keys), dtype=np.int64, count=len(keys))
        return np.asarray(self.index.reconstruct_batch(rows), dtype=np.float32)

    def save(self) -> None:
        """Persist rows added since the last save, under a file lock: appended to the
        delta log while it stays small, else the whole index written atomically."""
        with self._lock:
            if len(self.keys) == self._saved:
                return
            if self._base and len(self.keys) - self._base <= DELTA_SHARE * self._base:
                self._append_delta()
            else:
                self._write_base()
            self._saved = len(self.keys)

    def _append_delta(self) -> None:
        _, _, whole = self._read_delta()
        fresh = self.keys[self._saved :]
        block = self.index.reconstruct_n(self._saved, len(fresh))
        records = b"".join(
            _KEY_LEN.pack(len(k.encode())) + k.encode()
            + np.ascontiguousarray(v, dtype=np.float32).tobytes()
            for k, v in zip(fresh, block, strict=True))
        with self.delta_path.open("r+b" if self.delta_path.exists() else "wb") as out:
            out.truncate(whole)  # drop a torn record left by a crash
            out.seek(whole)
            out.write(records)

    def _write_base(self) -> None:
        tmp_index = self.index_path.with_suffix(".faiss.tmp")
        tmp_keys = self.keys_path.with_suffix(".json.tmp")
        faiss.write_index(self.index, str(tmp_index))
        tmp_keys.write_text(json.dumps(self.keys), encoding="utf-8")
        os.replace(tmp_keys, self.keys_path)
        os.replace(tmp_index, self.index_path)
        self.delta_path.unlink(missing_ok=True)
        self._base = len(self.keys)
