"""Queries on the vector cache (``vectors`` in ``m0003_mining``): one row per embedder and text.

Vectors are stored as raw float32 bytes with their dimension; turning them into arrays
is the miner's business, so this module needs neither numpy nor an embedder.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from skillopt_sleep.archive.db import Archive

__all__ = ["load_vectors", "save_vectors"]

_BATCH = 500  # SQLite's bound-parameter limit is far above this; it keeps IN lists short


def load_vectors(
    archive: Archive, embedder: str, hashes: Sequence[str]
) -> dict[str, tuple[int, bytes]]:
    """The stored (dimension, float32 bytes) of each of ``hashes`` that ``embedder`` has
    embedded before, by text hash; hashes never embedded are absent."""
    found: dict[str, tuple[int, bytes]] = {}
    unique = list(dict.fromkeys(hashes))
    for start in range(0, len(unique), _BATCH):
        chunk = unique[start : start + _BATCH]
        marks = ",".join("?" * len(chunk))
        rows = archive.conn.execute(
            f"SELECT text_hash, dim, vector FROM vectors WHERE embedder = ?"
            f" AND text_hash IN ({marks})",
            (embedder, *chunk),
        ).fetchall()
        for text_hash, dim, blob in rows:
            found[text_hash] = (dim, blob)
    return found


def save_vectors(archive: Archive, embedder: str, rows: Iterable[tuple[str, int, bytes]]) -> None:
    """Store (text hash, dimension, float32 bytes) rows for ``embedder`` in one transaction,
    replacing any earlier vector of the same text."""
    with archive.transaction() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            [(embedder, text_hash, dim, blob) for text_hash, dim, blob in rows],
        )
