"""Mining: from harvested requests to recurring task families, tasks with judges, recall_k.

Entry points: ``Catalog`` (mine requests into families and tasks, stored in the archive),
``Miner`` (families only), ``Recaller`` (recall_k), ``split_for`` (a family's split),
``make_embedder`` (``minilm``, ``hashing``, ``mock``).
"""

from __future__ import annotations

from .catalog import Catalog, CatalogResult, CatalogSettings
from .embed import (
    Embedder,
    HashingEmbedder,
    MockEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from .families import FamilySettings
from .miner import Miner, MineReport
from .recall import Neighbour, Recaller
from .requests import Request, requests_from_sessions
from .route import LEARNED_SKILL, SkillInfo
from .splits import DEFAULT_RATIOS, split_for

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
