"""Which split a task family belongs to, decided once when the family is created.

A new family goes to the split furthest below its share of the ratio among the project's
families so far (ties broken by a hash of its id), and the choice is stored with the
family: it never changes from night to night, so a validation family never leaks into
training, and a project with a few dozen families still gets validation families (a pure
hash of the id leaves validation empty for 26 families in 6 % of projects). Synthetic
variants inherit their family's split and are only ever made for train.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.records import Split

DEFAULT_RATIOS: tuple[int, int, int] = (2, 1, 7)
"""train : validation : test, by family (the design's settled ratio)."""

_SCALE = 1 << 32
_ORDER = (Split.TRAIN.value, Split.VALIDATION.value, Split.TEST.value)


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


def balanced_split(family_id: str, counts: Mapping[str, int],
                   ratios: Sequence[float] = DEFAULT_RATIOS) -> str:
    """The split a new family joins, given how many families each split already holds."""
    weights = dict(zip(_ORDER, check_ratios(ratios), strict=True))
    total = sum(weights.values())
    n = sum(counts.get(s, 0) for s in _ORDER) + 1
    deficit = {s: weights[s] / total * n - counts.get(s, 0) for s in _ORDER if weights[s] > 0}
    best = max(deficit.values())
    tied = [s for s in _ORDER if s in deficit and abs(deficit[s] - best) < 1e-9]
    preferred = split_for(family_id, ratios)
    return preferred if preferred in tied else tied[0]


def parse_ratios(text: str) -> tuple[float, float, float]:
    """``"2:1:7"`` → ``(2.0, 1.0, 7.0)``; anything else is a ``ConfigError`` that shows the form."""
    try:
        parts = tuple(float(p) for p in text.split(":"))
    except ValueError as exc:
        raise ConfigError(f"split ratios look like 2:1:7, got {text!r}") from exc
    return check_ratios(parts)
