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
from dataclasses import fields, is_dataclass
from typing import Any

from skillopt_sleep.secrets import KEYED_MARK, may_hold_secrets, redact
from skillopt_sleep.secrets.assignments import keyed

__all__ = ["KEPT", "LIMITS", "SPAN", "Clean", "Scrubber", "clip", "mark_clean"]

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


SPAN = 1024
"""How far past a field's limit the rules read a text before it is cut. A secret that
starts before the cut and ends within ``SPAN / 2`` past it is seen whole (every token
shape, a password, a connection string). A longer one cannot leave a usable part in what
is kept: a PEM block is redacted from its header to the window's end (the PEM rule's
cut-footer case), and a JWT cut before its signature is no credential. What lies further
on is cut away whatever it holds. ``Scrubber.text`` falls back on the whole text when
redaction shrank the window so much that this no longer holds. The window is small
because the harvest's redaction reads every byte of it (``experiments/harvest_bench.py
--redaction-cost``: 16 KiB cost 42 % of harvest CPU, 1 KiB stays within 15 %)."""


BATCH_BELOW = 1000
"""Texts shorter than this are prefiltered together, per record (``Scrubber._apply``)."""
SHORTEST = 6
"""A text shorter than this holds nothing the rules can find (a secret needs its context:
``/p:abcd`` is the shortest they find, 7 characters); tool names and the like skip them."""


class Scrubber:
    """Redacts and cuts every string of the records it is given; ``count`` sums the
    secrets it replaced."""

    def __init__(self) -> None:
        self.count = 0

    def text(self, text: str, limit: int | None = None, key: str | None = None) -> str:
        """``text`` redacted (whole, or as far as can matter, see ``SPAN``), then cut to
        ``limit``; ``key``: the mapping key it was given under (``{"password": "…"}``), in
        whose context it is judged first."""
        if key is not None and keyed(key, text):
            self.count += 1
            return clip(KEYED_MARK, limit)
        window = text[: limit + SPAN] if limit is not None else text
        if len(window) < SHORTEST or not may_hold_secrets([window]):
            # The prefilter is never wrong (a text it clears holds nothing to redact) and
            # costs a fraction of the rules: most harvested text is code and logs.
            return clip(text, limit)
        if len(window) < len(text):
            clean, found = redact(window)
            if len(clean) < limit + SPAN // 2:  # type: ignore[operator]
                clean, found = redact(text)
        else:
            clean, found = redact(text)
        self.count += found
        return clip(clean, limit)

    def held(self, text: str, limit: int, key: str | None = None) -> str:
        """``text`` as a reader hands it over: a text over ``limit`` is redacted and cut at
        once (and marked ``Clean``), so a builder never holds a megabyte until ``finish``;
        a shorter one waits for the walk (``key``: as for ``text``)."""
        return Clean(self.text(text, limit, key)) if len(text) > limit else text

    def scrub(self, record: Any) -> None:
        """Redact then cut, in place, every string of ``record`` not already ``Clean``."""
        places: list[_Place] = []
        _collect(record, None, None, places)
        self._apply(places)

    def items(self, values: list[str], where: tuple[str, str]) -> list[str]:
        """``values``, the items of the field ``where`` (class, field), as ``scrub`` would
        leave them."""
        kept = list(values)
        places: list[_Place] = []
        _collect(kept, LIMITS.get(where), where, places)
        self._apply(places)
        return kept

    def _apply(self, places: list[_Place]) -> None:
        if not places:
            return
        # Short texts are prefiltered together (one test instead of thousands of calls;
        # a hint in the joined text lies inside one of them); long ones each on their own
        # (``text``), so one hint in a session does not send every long text to the rules.
        # Identities (a session id: a generated run by nature) stay out of the joint test,
        # or every session's would fail it.
        short = [p[0] for p in places if len(p[0]) < BATCH_BELOW and p[2] not in _IDENTITIES]
        clear = not may_hold_secrets(short)
        renamed: dict[int, tuple[dict[Any, Any], dict[str, str]]] = {}
        # A dict's values are placed before its keys (``_collect``), so a value is set
        # under its old key, and the keys are renamed once every value is in.
        for text, limit, where, container, slot in places:
            # A dict's value is judged under its key (a tool's ``{"password": "…"}``): the
            # joint prefilter cannot clear it, as the value alone may hold no rule's word.
            key = slot if isinstance(container, dict) and isinstance(slot, str) else None
            short_and_clear = clear and len(text) < BATCH_BELOW and where not in _IDENTITIES \
                and not (key is not None and keyed(key, text))
            new = _clip_only(text, limit, where) if short_and_clear else \
                self._field(text, limit, where, key)
            if new is text:
                continue
            if slot is _KEY:
                renamed.setdefault(id(container), (container, {}))[1][text] = new
            elif isinstance(container, list | dict):
                container[slot] = new
            else:
                setattr(container, slot, new)
        for mapping, names in renamed.values():
            _rename(mapping, names)

    def _field(self, text: str, limit: int | None, where: tuple[str, str],
               key: str | None = None) -> str:
        clean = self.text(text, limit, key)
        if where in _IDENTITIES and clean != clip(text, limit):
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            return f"{clean}~{digest[:12]}"
        return clean


def _clip_only(text: str, limit: int | None, _where: tuple[str, str]) -> str:
    return clip(text, limit)


def _rename(mapping: dict[Any, Any], names: dict[Any, Any]) -> None:
    """``mapping``'s keys renamed by ``names``, in the same order, in place."""
    items = [(names.get(k, k), v) for k, v in mapping.items()]
    mapping.clear()
    mapping.update(items)


_KEY = object()
"""The slot of a dict key (as opposed to the value under it)."""
_Place = tuple[str, "int | None", tuple[str, str], Any, Any]
"""A raw text, its limit, its (class, field), and where it sits: container and slot."""
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


def _collect(node: Any, limit: int | None, where: Any, out: list[_Place]) -> None:
    """Every raw (not ``Clean``) string under ``node`` as a place to rewrite: the fields of a
    record, the items of a list, the keys and values of a dict, recursively."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            _place(item, limit, where, node, index, out)
    elif isinstance(node, dict):
        for key, item in node.items():
            _place(item, limit, where, node, key, out)
            if isinstance(key, str) and not isinstance(key, Clean):
                out.append((key, None, where, node, _KEY))
    elif is_dataclass(node) and not isinstance(node, type):
        for name, field_where, field_limit in _fields_of(type(node)):
            _place(getattr(node, name), field_limit, field_where, node, name, out)


def _place(value: Any, limit: int | None, where: Any, container: Any, slot: Any,
           out: list[_Place]) -> None:
    if isinstance(value, str):
        if not isinstance(value, Clean):
            out.append((value, limit, where, container, slot))
    elif isinstance(value, list | dict) or is_dataclass(value):
        _collect(value, limit, where, out)


def mark_clean(record: Any) -> None:
    """Wrap every string of ``record`` (in place) in ``Clean``: text an earlier harvest
    redacted, which a continued read must keep byte for byte."""
    places: list[_Place] = []
    _collect(record, None, None, places)
    keys: dict[int, tuple[dict[Any, Any], dict[Any, Any]]] = {}
    for text, _limit, _where, container, slot in places:
        if slot is _KEY:
            keys.setdefault(id(container), (container, {}))[1][text] = Clean(text)
        elif isinstance(container, list | dict):
            container[slot] = Clean(text)
        else:
            setattr(container, slot, Clean(text))
    for mapping, names in keys.values():
        _rename(mapping, names)
