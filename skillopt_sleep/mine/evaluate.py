"""Pairwise precision and recall of a grouping against labels (for the labelled set).

Over all pairs of items: a pair is predicted together when both are in one group and
truly together when both carry one label. Precision = true pairs among predicted pairs,
recall = predicted pairs among true pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def _pairs(counts: Counter[object]) -> int:
    return sum(n * (n - 1) // 2 for n in counts.values())


def pairwise_scores(labels: Sequence[str], groups: Sequence[Sequence[int]]) -> dict[str, float]:
    """``{"precision", "recall", "f1"}`` of ``groups`` (lists of item indices) vs ``labels``."""
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    predicted = _pairs(Counter(group_of.get(i, -1 - i) for i in range(len(labels))))
    truth = _pairs(Counter(labels))
    both = _pairs(Counter((labels[i], group_of.get(i, -1 - i)) for i in range(len(labels))))
    precision = both / predicted if predicted else 1.0
    recall = both / truth if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}
