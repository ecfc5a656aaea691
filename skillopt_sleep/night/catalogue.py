"""The routing prompt's catalogue: every installed skill's card, fitted to the target.

A user with many real skills installed (the shared corpus holds 118, with descriptions of
up to 1,929 characters) gives the trigger check a catalogue of ~10,600 tokens; a local
target with a small context must still see every skill. So the catalogue is cut, never
dropped:

1. every description is cut at ``DESCRIPTION_MAX_CHARS`` (the Agent Skills limit; agents
   cut there too), at a word boundary, ending in ``…``;
2. when the catalogue is still over ``CATALOGUE_TOKENS``, the *other* skills' descriptions
   are cut to one common length, the largest that fits (the longest lose most, a short
   one loses nothing); the trained skill's own card, and every name, stay whole.

A catalogue within the budget is shown unchanged, so the routing replies stored for it
(``trigger.RouteAnswers``) stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillopt_sleep.frontmatter import DESCRIPTION_MAX_CHARS

CATALOGUE_TOKENS = 16_000
"""The routing prompt's budget for skill cards: a quarter of a 64k context, so a local
target routes with room for the task and its reply (about four characters a token)."""
_CARD_OVERHEAD = 40
"""Characters a card costs beyond its name and description (JSON keys, quotes, indent)."""
_CUT_MARK = "…"


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word boundary when it must be."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - len(_CUT_MARK))]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip() + _CUT_MARK


def size(cards: Sequence[tuple[str, str]]) -> int:
    """The catalogue's approximate size in characters, cards as ``(name, description)``."""
    return sum(len(name) + len(text) + _CARD_OVERHEAD for name, text in cards)


def fit(cards: Sequence[tuple[str, str]], own: str | None = None,
        budget_tokens: int = CATALOGUE_TOKENS) -> list[str]:
    """The descriptions of ``cards`` (``(name, description)``, in order) cut as the module
    says; ``own`` names the card never cut further than the description limit."""
    capped = [(name, cut(text, DESCRIPTION_MAX_CHARS)) for name, text in cards]
    budget = budget_tokens * 4
    if size(capped) <= budget:
        return [text for _, text in capped]
    fixed = sum(len(name) + _CARD_OVERHEAD + (len(text) if name == own else 0)
                for name, text in capped)
    lengths = [len(text) for name, text in capped if name != own]
    low, high = 0, max(lengths, default=0)
    while low < high:  # the largest common length whose catalogue fits
        mid = (low + high + 1) // 2
        if fixed + sum(min(n, mid) for n in lengths) <= budget:
            low = mid
        else:
            high = mid - 1
    return [text if name == own else cut(text, low) for name, text in capped]
