"""Mining: from harvested requests to recurring task families, tasks with judges, recall_k.

Entry points: ``Catalog`` (mine requests into families and tasks, stored in the archive),
``Miner`` (families only), ``Recaller`` (recall_k), ``split_for`` (a family's split),
``make_embedder`` (``minilm``, ``hashing``, ``mock``).

Internal: the public API is ``skillopt_sleep.__all__``.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names load on first use: light modules of this package (``names``, ``route``) are imported
# by the faces and by adoption, which must not pay for faiss and the embedder.
_WHERE = {
    "Catalog": "catalog", "CatalogResult": "catalog", "CatalogSettings": "catalog",
    "Embedder": "embed", "HashingEmbedder": "embed", "MockEmbedder": "embed",
    "SentenceTransformerEmbedder": "embed", "make_embedder": "embed",
    "FamilySettings": "families", "Miner": "miner", "MineReport": "miner",
    "Neighbour": "recall", "Recaller": "recall", "Request": "requests",
    "requests_from_sessions": "requests", "LEARNED_SKILL": "route", "SkillInfo": "route",
    "DEFAULT_RATIOS": "splits", "split_for": "splits",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'skillopt_sleep.mine' has no attribute {name!r}")
    return getattr(importlib.import_module(f"skillopt_sleep.mine.{module}"), name)


__all__ = [
    "DEFAULT_RATIOS",
    "LEARNED_SKILL",
    "Catalog",
    "CatalogResult",
    "CatalogSettings",
    "Embedder",
    "FamilySettings",
    "HashingEmbedder",
    "MineReport",
    "Miner",
    "MockEmbedder",
    "Neighbour",
    "Recaller",
    "Request",
    "SentenceTransformerEmbedder",
    "SkillInfo",
    "make_embedder",
    "requests_from_sessions",
    "split_for",
]
