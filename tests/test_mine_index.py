"""The per-project faiss index: exact search, persisted, grown in place, rebuilt if broken."""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np
import pytest

from skillopt_sleep.mine import index as index_module
from skillopt_sleep.mine.index import ProjectIndex, faiss_scored, index_dir


def _vectors(n: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_search_finds_itself_and_persists(tmp_path: Path) -> None:
    v = _vectors(50)
    keys = [f"k{i}" for i in range(50)]
    index = ProjectIndex.open("/p", "mock", 16, tmp_path)
    assert index.add(keys, v) == 50
    hits = index.search(v[7:8], 3)[0]
    assert hits[0][0] == "k7" and abs(hits[0][1] - 1.0) < 1e-5
    assert [h[1] for h in hits] == sorted((h[1] for h in hits), reverse=True)
    index.save()
    again = ProjectIndex.open("/p", "mock", 16, tmp_path)
    assert len(again) == 50 and again.search(v[7:8], 1)[0][0][0] == "k7"
    assert np.allclose(again.vectors(["k3"])[0], v[3])


def test_adding_is_incremental_and_idempotent(tmp_path: Path) -> None:
    v = _vectors(20)
    index = ProjectIndex.open("/p", "mock", 16, tmp_path)
    index.add([f"k{i}" for i in range(10)], v[:10])
    assert index.add([f"k{i}" for i in range(20)], v) == 10  # only the new ten
    assert index.add(["k5", "k5"], v[:2]) == 0
    assert len(index) == 20


def test_projects_are_separate(tmp_path: Path) -> None:
    v = _vectors(4)
    a = ProjectIndex.open("/a", "mock", 16, tmp_path)
    a.add(["x"], v[:1])
    a.save()
    b = ProjectIndex.open("/b", "mock", 16, tmp_path)
    assert len(b) == 0 and b.search(v[:1], 5) == [[]]


def test_inconsistent_files_are_dropped_for_a_rebuild(tmp_path: Path) -> None:
    index = ProjectIndex.open("/p", "mock", 16, tmp_path)
    index.add(["a", "b"], _vectors(2))
    index.save()
    index.keys_path.write_text('["a"]')  # a crash between the two writes
    assert len(ProjectIndex.open("/p", "mock", 16, tmp_path)) == 0
    index.index_path.write_bytes(b"not an index")
    assert len(ProjectIndex.open("/p", "mock", 16, tmp_path)) == 0


def test_default_location_is_the_state_dir(isolated_home: Path) -> None:
    assert index_dir().is_relative_to(isolated_home)


def test_a_small_addition_is_appended_not_rewritten(tmp_path: Path) -> None:
    v = _vectors(130)
    keys = [f"k{i}" for i in range(130)]
    index = ProjectIndex.open("/p", "mock", 16, tmp_path)
    index.add(keys[:100], v[:100])
    index.save()
    base = index.index_path.read_bytes()
    for start in (100, 110):  # two small passes: both go to the delta log
        index = ProjectIndex.open("/p", "mock", 16, tmp_path)
        index.add(keys[start : start + 10], v[start : start + 10])
        index.save()
    assert index.index_path.read_bytes() == base and index.delta_path.exists()
    again = ProjectIndex.open("/p", "mock", 16, tmp_path)
    assert again.keys == keys[:120]
    assert np.allclose(again.vectors(keys[:120]), v[:120])
    with again.delta_path.open("ab") as torn:  # a crash in the middle of an append
        torn.write(b"\x05\x00k99")
    again = ProjectIndex.open("/p", "mock", 16, tmp_path)
    assert len(again) == 120
    again.add(keys[120:121], v[120:121])
    again.save()
    assert ProjectIndex.open("/p", "mock", 16, tmp_path).keys == keys[:121]
    # Past a quarter of the base, the delta is folded into a rewritten base.
    again.add(keys[121:], v[121:])
    again.save()
    assert not again.delta_path.exists() and again.index_path.read_bytes() != base
    final = ProjectIndex.open("/p", "mock", 16, tmp_path)
    assert final.keys == keys and np.allclose(final.vectors(keys), v)


def test_small_and_large_searches_find_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search under ``ONE_THREAD_WORK`` runs on one thread and leaves faiss's thread
    count as it was; the answer is the one a search on every thread gives."""
    base, queries = _vectors(300, 32, 1), _vectors(40, 32, 2)
    threads = faiss.omp_get_max_threads()
    small = faiss_scored(base, queries, 5)
    assert faiss.omp_get_max_threads() == threads
    monkeypatch.setattr(index_module, "ONE_THREAD_WORK", 0)  # every search as a large one
    large = faiss_scored(base, queries, 5)
    assert [[r for r, _ in row] for row in large] == [[r for r, _ in row] for row in small]
    assert np.allclose([[s for _, s in row] for row in large],
                       [[s for _, s in row] for row in small])
