"""Rule checks read from what users said when they corrected an answer.

"no, use pytest -q" is a rule the user wants: the answer should contain ``pytest -q``.
Only a few unambiguous shapes are read (use X / use X instead of Y / don't use X /
shorter / more detail / add a section / don't refuse); anything else is left to the
LLM miner or to nothing. Every check carries ``why``: the words it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

Check = dict[str, Any]

MAX_CHARS_DEFAULT = 800
MIN_CHARS_DEFAULT = 400

# A quoted span, or bare words up to the clause end (a dot inside a name like os.path stays).
_THING = r"`([^`]{1,60})`|\"([^\"]{1,60})\"|'([^']{1,60})'|((?:[^.,;!?\n]|\.(?=\S)){1,60}?)"
_END = (r"(?=\s+(?:instead|please|next time|from now on|always|here|for this)\b"
        r"|[,;!?\n]|\.(?:\s|$)|$)")
_INSTEAD = re.compile(
    rf"\b(?:use|run|call|prefer)\s+(?:{_THING}),?\s+"
    rf"(?:instead of|rather than|over|not)\s+(?:{_THING}){_END}",
    re.IGNORECASE,
)
_USE = re.compile(
    rf"(?:^|[,.;!?]\s*|\b(?:no|nope|please|always|just)\s+)"
    rf"(?:use|run|call|prefer|with)\s+(?:{_THING}){_END}",
    re.IGNORECASE,
)
_AVOID = re.compile(
    rf"\b(?:don'?t|do not|never|stop|avoid|no more)\s+"
    rf"(?:(?:use|using|run|running|add|adding|call|calling)\s+)?(?:{_THING}){_END}",
    re.IGNORECASE,
)
_SECTION = re.compile(
    r"\b(?:add|include|needs?|missing|with)\s+(?:an?|the)\s+[\"'`#\s]*"
    r"([A-Za-z][\w \-]{1,30}?)[\"'`]?\s+(?:section|heading)\b",
    re.IGNORECASE,
)
_SHORTER = re.compile(
    r"\b(too long|shorter|more concise|be (?:brief|concise)|less verbose|tl;?dr)\b", re.IGNORECASE
)
_LONGER = re.compile(r"\b(too short|more detail(?:ed)?|elaborate|too brief)\b", re.IGNORECASE)
_REFUSED = re.compile(
    r"\b(just do it|you can do (?:it|this)|don'?t refuse|you refused|stop refusing)\b",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def _thing(match: re.Match[str], start: int) -> str:
    for group in match.groups()[start : start + 4]:
        if group:
            return _ARTICLE.sub("", group.strip()).strip()
    return ""


def _usable(text: str) -> bool:
    # Pronouns and vague words are not checkable ("use it", "don't do that").
    return bool(text) and text.lower() not in {"it", "that", "this", "them", "those", "one"}


# A negation just before a shape word takes the demand back ("it isn't too long", "no need
# to elaborate"): up to two words may stand between them.
_NEGATED = re.compile(
    r"\b(?:not|no|never|without|(?:do|does|did|is|was|are|were)n'?t)(?:\s+[\w']+){0,2}\s+$",
    re.IGNORECASE,
)


def _says(shape: re.Pattern[str], text: str, named: str) -> bool:
    """Does ``text`` ask for ``shape`` in words other than a thing it names (``named``),
    and not negated?"""
    return any(m.group(0).lower() not in named and not _NEGATED.search(text[: m.start()])
               for m in shape.finditer(text))


def rules_from_correction(text: str) -> list[Check]:
    """Checks a correction asks for; an empty list when none is clear."""
    why = text.strip()[:200]
    found: list[Check] = []
    for match in _INSTEAD.finditer(text):
        want, avoid = _thing(match, 0), _thing(match, 4)
        if _usable(want):
            found.append({"op": "contains", "text": want, "why": why})
        if _usable(avoid):
            found.append({"op": "not_contains", "text": avoid, "why": why})
    if not found:
        for match in _USE.finditer(text):
            if _usable(want := _thing(match, 0)):
                found.append({"op": "contains", "text": want, "why": why})
    for match in _AVOID.finditer(text):
        if _usable(avoid := _thing(match, 0)):
            found.append({"op": "not_contains", "text": avoid, "why": why})
    for match in _SECTION.finditer(text):
        found.append({"op": "section_present", "section": match.group(1).strip(), "why": why})
    # A length word inside a thing the user names is that thing, not a length: "use
    # `TL;DR:`" asks for the label, and a length cap read from it would reward cutting the
    # answer short.
    named = " ".join(str(c["text"]).lower() for c in found if "text" in c)
    if _says(_SHORTER, text, named):
        found.append({"op": "max_chars", "n": MAX_CHARS_DEFAULT, "why": why})
    if _says(_LONGER, text, named):
        found.append({"op": "min_chars", "n": MIN_CHARS_DEFAULT, "why": why})
    if _says(_REFUSED, text, named):
        found.append({"op": "no_refusal", "why": why})
    return found


def check_key(check: Check) -> tuple[str, ...]:
    """What makes two checks the same check (``why`` aside)."""
    args = (f"{k}={str(v).lower()}" for k, v in sorted(check.items()) if k not in ("op", "why"))
    return (str(check.get("op")), *args)


def merge_checks(groups: Iterable[Iterable[Check]]) -> list[Check]:
    """Deduplicated checks, first seen first, with contradicting pairs dropped
    (``contains X`` and ``not_contains X`` from different corrections cancel out)."""
    merged: dict[tuple[str, ...], Check] = {}
    for group in groups:
        for check in group:
            merged.setdefault(check_key(check), check)
    wanted = {str(c["text"]).lower() for c in merged.values() if c["op"] == "contains"}
    avoided = {str(c["text"]).lower() for c in merged.values() if c["op"] == "not_contains"}
    clash = wanted & avoided
    return [c for c in merged.values()
            if c["op"] not in ("contains", "not_contains") or str(c["text"]).lower() not in clash]
