"""Apply a night's change to each root's own text.

A night reads one root's text (newlines normalised) and proposes a whole document. What it
may change is the managed regions' bodies (a region it appends included) and the
frontmatter ``description`` value. ``merge`` carries exactly that change into another
root's text: its BOM, line endings, final newline and every byte outside the changed
regions stay its own. A root that cannot take the change (broken markers, a region or
description that differs from what the night changed) raises ``MergeRefused`` with the
reason; the caller skips that root.
"""

from __future__ import annotations

import re

from skillopt_sleep.errors import SkillDocError, StoreError
from skillopt_sleep.records import EditOutcome
from skillopt_sleep.skilldoc import REGIONS, SkillDoc, parse, set_description

__all__ = ["MergeRefused", "merge", "normalise"]

BOM = "\ufeff"
_FRONTMATTER = re.compile(r"\A---\r?\n.*?\r?\n---\r?\n", re.DOTALL)
_MARKER_OPEN = "<!--"
_MARKER_CLOSE = "-->"


class MergeRefused(StoreError):
    """This root cannot take the night's change; the message says why."""


def normalise(text: str) -> str:
    """The text as a night reads it: no BOM, LF line endings."""
    return text.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n")


def _newline(text: str, at: int | None = None) -> str:
    """The line ending at ``at`` (the first one from there; default: the text's last), so
    a file that mixes endings gets each part's own."""
    end = text.find("\n", at) if at is not None else text.rfind("\n")
    if end > 0 and text[end - 1] == "\r":
        return "\r\n"
    if end >= 0:
        return "\n"
    return "\r" if "\r" in text else "\n"


def _body(doc: SkillDoc, region: str) -> str | None:
    found = doc.regions.get(region)
    return None if found is None else normalise(doc.text[found.body_start:found.body_end])


def _parse(text: str, whose: str) -> SkillDoc:
    try:
        return parse(text)
    except SkillDocError as exc:
        raise MergeRefused(f"{whose} markers or frontmatter are broken: {exc}") from exc


def merge(own: str, base: str, proposal: str) -> str:
    """``own`` (one root's exact text) with the change from ``base`` (what the night read)
    to ``proposal`` applied; ``MergeRefused`` when it cannot take it."""
    bom = BOM if own.startswith(BOM) else ""
    text = own[len(bom):]
    old, new = _parse(normalise(base), "the night's"), _parse(proposal, "the proposal's")
    # Regions the proposal appends go in the order it has them.
    for region in sorted(REGIONS, key=lambda r: new.regions[r].body_start
                         if r in new.regions else -1):
        wanted, before = _body(new, region), _body(old, region)
        if wanted == before:
            continue
        if wanted is None:
            raise StoreError(f"the proposal removes the {region} region; refusing to write it")
        mine = _parse(text, "its")
        if _body(mine, region) != before:
            raise MergeRefused(f"its {region} region differs from the one the night changed")
        text = _with_region(mine, region, new)
    if new.description != old.description:
        text = _with_description(_parse(text, "its"), old, new.description)
    return bom + text


def _with_region(mine: SkillDoc, region: str, new: SkillDoc) -> str:
    """``mine`` with ``region``'s body from ``new`` (appended, markers and all, when
    ``mine`` has no such region), in the line endings of the place it goes."""
    span = new.regions[region]
    if region in mine.regions:
        own = mine.regions[region]
        nl = _newline(mine.text, own.body_start)
        body = new.text[span.body_start:span.body_end].replace("\n", nl)
        return mine.text[:own.body_start] + body + mine.text[own.body_end:]
    start = new.text.rfind(_MARKER_OPEN, 0, span.body_start)
    end = new.text.index(_MARKER_CLOSE, span.body_end) + len(_MARKER_CLOSE)
    block = new.text[start:end] + "\n"
    text = mine.text
    nl = _newline(text)
    sep = "" if text.endswith(nl + nl) else (nl if text.endswith(nl) else nl + nl)
    return text + sep + block.replace("\n", nl)


def _with_description(mine: SkillDoc, old: SkillDoc, description: str) -> str:
    """``mine`` with its frontmatter ``description`` replaced, its frontmatter's own line
    endings kept and nothing after the frontmatter touched."""
    if mine.description != old.description:
        raise MergeRefused("its description differs from the one the night changed")
    match = _FRONTMATTER.match(mine.text)
    if match is None:
        raise MergeRefused("it has no frontmatter to change the description in")
    head, rest = match.group(0), mine.text[match.end():]
    nl = _newline(head)
    plain = head.replace("\r\n", "\n")
    if "\r" in plain:
        raise MergeRefused("its frontmatter mixes line endings")
    changed, outcome = set_description(_parse(plain, "its"), description)
    if outcome is not EditOutcome.APPLIED:
        raise MergeRefused(f"its description cannot take the change ({outcome.value})")
    return changed.text.replace("\n", nl) + rest
