"""Which split a task family belongs to: a pure function of its id.

The split never depends on what else was mined that night, so a family's tasks stay in
the same split from night to night, and a validation family never leaks into training.
Synthetic variants inherit their family's split and are only ever made for train.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ..errors import ConfigError
from ..records import Split

DEFAULT_RATIOS: tuple[int, int, int] = (2, 1, 7)
"""train : validation : test, by family (the design's settled ratio)."""

_SCALE = 1 << 32


def check_ratios(ratios: Sequence[float]) -> tuple[float, float, float]:
    """Three non-negative weights with a positive sum, else ``ConfigError``."""
    if len(ratios) != 3 or any(r < 0 for r in ratios) or sum(ratios) <= 0:
        raise ConfigError(
            "split ratios are three non-negative weights train:validation:test, not all zero,"
            f" such as 2:1:7; got {':'.join(str(r) for r in ratios)}"
        )
    return float(ratios[0]), float(ratios[1]), float(ratios[2])


def split_for(family_id: str, ratios: Sequence[float] = DEFAULT_RATIOS) -> str:
    """``train``, ``validation`` or ``test`` for ``family_id``, stable forever for fixed ratios."""
    train, validation, test = check_ratios(ratios)
    digest = hashlib.sha256(f"split\x00{family_id}".encode()).digest()
    point = int.from_bytes(digest[:4], "big") / _SCALE * (train + validation + test)
    if point < train:
        return Split.TRAIN.value
    if point < train + validation:
        return Split.VALIDATION.value
    return Split.TEST.value


def parse_ratios(text: str) -> tuple[float, float, float]:
    """``"2:1:7"`` → ``(2.0, 1.0, 7.0)``; anything else is a ``ConfigError`` that shows the form."""
    try:
        parts = tuple(float(p) for p in text.split(":"))
    except ValueError as exc:
        raise ConfigError(f"split ratios look like 2:1:7, got {text!r}") from exc
    return check_ratios(parts)
