"""The one place harvested text is redacted: every string of a finished session, whole,
then cut to its field's limit.

``scrub`` walks a record's dataclass fields generically (``dataclasses.fields``), and into
the lists, dicts (keys too) and records they hold, so a field added to ``Session``,
``Turn`` or ``ToolCall`` tomorrow is redacted without anyone remembering to. The order is
fixed: redaction sees the text whole, the cut comes after (a cut made first can leave all
but the last character of a token, which no rule then recognises).

Text already redacted and cut (an archived session being continued) is wrapped in
``Clean``: the walk passes it through untouched, since redacting it again could change it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass
from typing import Any

from skillopt_sleep.secrets import may_hold_secrets, redact

__all__ = ["KEPT", "LIMITS", "Clean", "Scrubber", "clip", "mark_clean"]

LIMITS: dict[tuple[str, str], int] = {
    ("Turn", "request"): 8000,
    ("Turn", "final_answer"): 4000,
    ("ToolCall", "error_head"): 300,
    ("ToolCall", "args"): 400,
    ("ToolCall", "name"): 80,
    ("Session", "files_touched"): 1000,
    ("Session", "skills_used"): 200,
}
"""The length each field is cut to, after redaction (a list or dict: each item)."""

KEPT = frozenset({("Session", "path"), ("Session", "source")})
"""Fields that are not transcript text: the transcript file's own location (the harvest
finds the file again by it, and its checkpoint row holds it anyway) and the source name."""

_IDENTITIES = frozenset({("Session", "session_id")})
"""Fields that name a record: a redacted value keeps a digest of the original, so two
sessions whose ids both held a secret stay two sessions."""


class Clean(str):
    """A text already redacted and cut: ``scrub`` keeps it as it is."""

    __slots__ = ()


def clip(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[:limit] + "…"


def mark_clean(record: Any) -> None:
    """Wrap every string of ``record`` (in place) in ``Clean``: text an earlier harvest
    redacted, which a continued read must keep byte for byte."""
    _rewrite(record, lambda text, _limit, _where: Clean(text))


class Scrubber:
    """Redacts and cuts every string of the records it is given; ``count`` sums the
    secrets it replaced."""

    def __init__(self) -> None:
        self.count = 0

    def text(self, text: str, limit: int | None = None) -> str:
        """``text`` redacted whole, then cut to ``limit``."""
        clean, found = redact(text)
        self.count += found
        return clip(clean, limit)

    def held(self, text: str, limit: int) -> str:
        """``text`` as a reader hands it over: a text over ``limit`` is redacted and cut at
        once (and marked ``Clean``), so a builder never holds a megabyte until ``finish``;
        a shorter one waits for the walk."""
        return Clean(self.text(text, limit)) if len(text) > limit else text

    def scrub(self, record: Any) -> None:
        """Redact then cut, in place, every string of ``record`` not already ``Clean``."""
        if not may_hold_secrets(list(_raw_texts(record))):
            _rewrite(record, lambda text, limit, _where: clip(text, limit))
            return
        _rewrite(record, self._field)

    def items(self, values: list[str], where: tuple[str, str]) -> list[str]:
        """``values``, the items of the field ``where`` (class, field), as ``scrub`` would
        leave them."""
        limit = LIMITS.get(where)
        if not may_hold_secrets([v for v in values if not isinstance(v, Clean)]):
            return [_value(v, limit, where, lambda t, n, _w: clip(t, n)) for v in values]
        return [_value(v, limit, where, self._field) for v in values]

    def _field(self, text: str, limit: int | None, where: tuple[str, str]) -> str:
        clean = self.text(text, limit)
        if where in _IDENTITIES and clean != clip(text, limit):
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            return f"{clean}~{digest[:12]}"
        return clean


_Edit = Callable[[str, "int | None", tuple[str, str]], str]
_FIELDS: dict[type, tuple[tuple[str, tuple[str, str], int | None], ...]] = {}


def _fields_of(cls: type) -> tuple[tuple[str, tuple[str, str], int | None], ...]:
    known = _FIELDS.get(cls)
    if known is None:
        rows = []
        for f in fields(cls):
            where = (cls.__name__, f.name)
            if where not in KEPT:
                rows.append((f.name, where, LIMITS.get(where)))
        known = _FIELDS[cls] = tuple(rows)
    return known


def _rewrite(record: Any, edit: _Edit) -> None:
    for name, where, limit in _fields_of(type(record)):
        value = getattr(record, name)
        new = _value(value, limit, where, edit)
        if new is not value:
            setattr(record, name, new)


def _value(value: Any, limit: int | None, where: tuple[str, str], edit: _Edit) -> Any:
    if isinstance(value, Clean):
        return value
    if isinstance(value, str):
        return edit(value, limit, where)
    if isinstance(value, list):
        return [_value(v, limit, where, edit) for v in value]
    if isinstance(value, dict):
        return {_value(k, None, where, edit): _value(v, limit, where, edit)
                for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        _rewrite(value, edit)
    return value


def _raw_texts(node: Any) -> Iterator[str]:
    """Every string of ``node`` the walk would redact."""
    if isinstance(node, Clean):
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _raw_texts(item)
    elif isinstance(node, dict):
        for key, item in node.items():
            yield from _raw_texts(key)
            yield from _raw_texts(item)
    elif is_dataclass(node) and not isinstance(node, type):
        for name, _where, _limit in _fields_of(type(node)):
            yield from _raw_texts(getattr(node, name))
