"""Mining: from harvested requests to recurring task families, tasks with judges, recall_k.

Entry points: ``Catalog`` (mine requests into families and tasks, stored in the archive),
``Miner`` (families only), ``Recaller`` (recall_k), ``split_for`` (a family's split),
``make_embedder`` (``minilm``, ``hashing``, ``mock``).

Internal: the public API is ``skillopt_sleep.__all__``.
"""

from __future__ import annotations

from skillopt_sleep.mine.catalog import Catalog, CatalogResult, CatalogSettings
from skillopt_sleep.mine.embed import (
    Embedder,
    HashingEmbedder,
    MockEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.miner import Miner, MineReport
from skillopt_sleep.mine.recall import Neighbour, Recaller
from skillopt_sleep.mine.requests import Request, requests_from_sessions
from skillopt_sleep.mine.route import LEARNED_SKILL, SkillInfo
from skillopt_sleep.mine.splits import DEFAULT_RATIOS, split_for

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
