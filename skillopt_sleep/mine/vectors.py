"""Vectors cached in the archive by embedder and content hash.

A text is embedded once per embedder, ever: a second night over the same sessions
embeds nothing, and the model is not even loaded when every text is cached.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.vectors import load_vectors, save_vectors
from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.records import sha256_text


class VectorCache:
    """``vectors(texts)`` through the archive; ``embedded`` counts texts sent to the model."""

    def __init__(self, archive: Archive, embedder: Embedder):
        self.archive = archive
        self.embedder = embedder
        self.embedded = 0

    def _cached(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        stored = load_vectors(self.archive, self.embedder.name, hashes)
        # A vector of another dimension (the embedder changed shape) is embedded again.
        return {h: np.frombuffer(blob, dtype=np.float32)
                for h, (dim, blob) in stored.items() if dim == self.embedder.dim}

    def store(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        rows = [
            (h, int(v.shape[0]), np.ascontiguousarray(v, np.float32).tobytes())
            for h, v in zip(hashes, vectors, strict=True)
        ]
        save_vectors(self.archive, self.embedder.name, rows)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text, embedding only texts this embedder has never seen."""
        hashes = [sha256_text(t) for t in texts]
        found = self._cached(hashes)
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        if missing:
            text_of = dict(zip(hashes, texts, strict=True))
            fresh = self.embedder.embed([text_of[h] for h in missing])
            self.embedded += len(missing)
            self.store(missing, fresh)
            found.update(zip(missing, fresh, strict=True))
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        for row, h in enumerate(hashes):
            out[row] = found[h]
        return out


def medoid(vectors: np.ndarray) -> int:
    """Index of the member most similar, on average, to all the others (here, not in
    ``tasks``, so that ``mine`` can name a family's representative without importing the
    task builders and their judges)."""
    if len(vectors) <= 2:
        return 0
    # Row sums of V·Vᵀ are V·(Σ rows): one pass over the family instead of n².
    return int(np.argmax(vectors @ vectors.sum(axis=0)))
