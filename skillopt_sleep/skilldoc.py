"""SKILL.md documents: frontmatter, the user's own text, and two managed regions.

A skill document is the user's text plus, somewhere in it, a *learned* region (step edits
land here) and optionally a *slow* region (end-of-night durable guidance), each between
marker comments. Everything outside the regions is the user's and stays byte-identical:
rendering only ever replaces the bodies between markers.

Entries in a region are Markdown bullets (``- text``), one per line, under a heading;
edits address one entry through an anchor. Applying an edit returns a typed ``EditOutcome``
and never raises.

The agent loads every line of a skill in every session that uses it, and several skills
are often loaded together, so the managed parts cost no more context than they must: a
region is appended only when an edit first writes to it, and a region with no entries is
its two markers alone, without a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from skillopt_sleep import frontmatter
from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.frontmatter import DESCRIPTION_MAX_CHARS, Note
from skillopt_sleep.records import Edit, EditOp, EditOutcome, sha256_text

REGIONS = ("learned", "slow")
MARKER_PREFIX = "skillopt-sleep:"
_MARKER = re.compile(r"<!--\s*skillopt-sleep:(learned|slow):(start|end)\s*-->")
_HEADERS = {
    "learned": "Learned from your sessions (managed by skillopt-sleep; edit above this block)",
    "slow": "Durable guidance (managed by skillopt-sleep)",
}


def start_marker(region: str) -> str:
    return f"<!-- skillopt-sleep:{region}:start -->"


def end_marker(region: str) -> str:
    return f"<!-- skillopt-sleep:{region}:end -->"


@dataclass(frozen=True)
class Region:
    """A managed region: the span of its body in the text, and its entries."""

    name: str
    body_start: int
    body_end: int
    entries: tuple[str, ...]


@dataclass(frozen=True)
class SkillDoc:
    """A parsed skill document. ``text`` is the exact source; regions index into it."""

    text: str
    name: str = ""
    description: str = ""
    regions: dict[str, Region] = field(default_factory=dict)
    notes: tuple[Note, ...] = ()
    """What was odd in the frontmatter (``frontmatter.read``): shown by lint and doctor."""

    @property
    def hash(self) -> str:
        return sha256_text(self.text)

    def entries(self, region: str = "learned") -> tuple[str, ...]:
        found = self.regions.get(region)
        return found.entries if found else ()

    def user_text(self) -> str:
        """The document with every managed region's body removed (the user's own words)."""
        text, offset = self.text, 0
        for region in sorted(self.regions.values(), key=lambda r: r.body_start):
            s, e = region.body_start - offset, region.body_end - offset
            text = text[:s] + text[e:]
            offset += region.body_end - region.body_start
        return text


def parse(text: str) -> SkillDoc:
    """Parse a skill document; raise ``SkillDocError`` for broken markers only: odd or
    missing frontmatter is read as far as it can be and noted (``SkillDoc.notes``)."""
    fields = frontmatter.read(text)
    # A block scalar's value ends in a line break (``|``, ``>``): not part of what routes.
    name, description = fields.text("name"), fields.text("description").strip()
    regions: dict[str, Region] = {}
    opened: dict[str, int] = {}
    for match in _MARKER.finditer(text):
        region, kind = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if kind == "start":
            if region in opened or region in regions:
                raise SkillDocError(f"line {line}: second start marker for the {region} region")
            opened[region] = match.end()
        else:
            if region not in opened:
                raise SkillDocError(f"line {line}: end marker of {region} region without a start")
            body_start = opened.pop(region)
            body = text[body_start : match.start()]
            regions[region] = Region(region, body_start, match.start(), _entries(body))
    if opened:
        region = next(iter(opened))
        raise SkillDocError(
            f"the {region} region has a start marker but no end marker; refusing to guess "
            f"where it ends (add '{end_marker(region)}')"
        )
    return SkillDoc(text=text, name=name, description=description, regions=regions,
                    notes=fields.notes)


def _entries(body: str) -> tuple[str, ...]:
    found = []
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("- "):
            found.append(stripped[2:].strip())
    return tuple(found)


def new_skill(name: str, description: str) -> str:
    """A managed skill document with empty learned and slow regions."""
    head = f"---\nname: {name}\ndescription: {yaml_scalar(description)}\n---\n\n# {name}\n\n"
    return head + _empty_region("learned") + "\n" + _empty_region("slow")


def yaml_scalar(value: str) -> str:
    """``value`` as one YAML scalar on one line (quoted only when YAML needs it)."""
    dumped = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()


def _empty_region(region: str) -> str:
    return f"{start_marker(region)}\n{_render_body(region, ())}{end_marker(region)}\n"


def ensure_regions(doc: SkillDoc, regions: tuple[str, ...] = REGIONS) -> SkillDoc:
    """Append the missing ``regions`` at the end; the existing text stays a byte-identical
    prefix."""
    text = doc.text
    for region in regions:
        if region not in doc.regions:
            sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
            text = text + sep + _empty_region(region)
    return doc if text == doc.text else parse(text)


def _render_body(region: str, entries: tuple[str, ...]) -> str:
    if not entries:
        return ""
    lines = [f"## {_HEADERS[region]}", ""] + [f"- {e}" for e in entries]
    return "\n".join(lines) + "\n"


def with_entries(doc: SkillDoc, region: str, entries: tuple[str, ...]) -> SkillDoc:
    """A new document whose ``region`` holds ``entries``; nothing outside it changes."""
    doc = ensure_regions(doc, (region,))
    span = doc.regions[region]
    body = "\n" + _render_body(region, entries)
    return parse(doc.text[: span.body_start] + body + doc.text[span.body_end :])


# --- edits -------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _find(entries: tuple[str, ...], anchor: str) -> tuple[int | None, EditOutcome | None]:
    key = _norm(anchor)
    if not key:
        return None, EditOutcome.INVALID
    exact = [i for i, e in enumerate(entries) if _norm(e) == key]
    if len(exact) == 1:
        return exact[0], None
    partial = [i for i, e in enumerate(entries) if key in _norm(e)]
    if len(partial) == 1:
        return partial[0], None
    if len(exact) > 1 or len(partial) > 1:
        return None, EditOutcome.ANCHOR_AMBIGUOUS
    return None, EditOutcome.ANCHOR_NOT_FOUND


def _clean_entry(text: str) -> str:
    return " ".join(text.strip().removeprefix("- ").split())


def apply_edit(
    doc: SkillDoc, edit: Edit, *, allow_slow: bool = False
) -> tuple[SkillDoc, EditOutcome]:
    """Apply one edit inside its region. Returns the (possibly unchanged) doc and the outcome."""
    if edit.region == "slow" and not allow_slow:
        return doc, EditOutcome.OUTSIDE_REGION
    if edit.region not in REGIONS or _MARKER.search(edit.text) or "<!--" in edit.text:
        return doc, EditOutcome.INVALID
    try:
        op = EditOp(edit.op)
    except ValueError:
        return doc, EditOutcome.INVALID
    doc = ensure_regions(doc, (edit.region,))
    entries = list(doc.entries(edit.region))
    text = _clean_entry(edit.text)
    if op is not EditOp.DELETE and not text:
        return doc, EditOutcome.INVALID
    if op is EditOp.APPEND:
        if any(_norm(e) == _norm(text) for e in entries):
            return doc, EditOutcome.NO_CHANGE
        entries.append(text)
    else:
        index, problem = _find(tuple(entries), edit.anchor)
        if index is None:
            if problem is EditOutcome.ANCHOR_NOT_FOUND and _norm(edit.anchor) in _norm(
                doc.user_text()
            ):
                return doc, EditOutcome.OUTSIDE_REGION
            return doc, problem or EditOutcome.ANCHOR_NOT_FOUND
        if op is EditOp.DELETE:
            del entries[index]
        elif op is EditOp.REPLACE:
            if _norm(entries[index]) == _norm(text):
                return doc, EditOutcome.NO_CHANGE
            entries[index] = text
        else:
            if any(_norm(e) == _norm(text) for e in entries):
                return doc, EditOutcome.NO_CHANGE
            entries.insert(index + 1, text)
    return with_entries(doc, edit.region, tuple(entries)), EditOutcome.APPLIED


# --- the description: the one frontmatter value a night may change -----------------------

@dataclass(frozen=True)
class DescriptionEdit:
    """The outcome of a description edit, with the reason when it was not applied."""

    doc: SkillDoc
    outcome: EditOutcome
    reason: str = ""


def edit_description(doc: SkillDoc, description: str) -> DescriptionEdit:
    """The document with its frontmatter ``description`` value replaced, nothing else.

    The value keeps the style the user wrote it in (``frontmatter.replace_description``);
    ``name``, every other key and everything after the frontmatter stay byte-identical.
    A value with a line break or over ``DESCRIPTION_MAX_CHARS``, a document without
    frontmatter, or a style that cannot hold the value is ``INVALID`` with the reason;
    the same value is ``NO_CHANGE``."""
    value = description.strip()
    if not value or "\n" in value or len(value) > DESCRIPTION_MAX_CHARS:
        return DescriptionEdit(doc, EditOutcome.INVALID,
                               f"a description is one line of 1 to {DESCRIPTION_MAX_CHARS} "
                               "characters")
    if value == doc.description.strip():
        return DescriptionEdit(doc, EditOutcome.NO_CHANGE, "the description is unchanged")
    edited = frontmatter.replace_description(doc.text, value)
    if edited.text is None:
        return DescriptionEdit(doc, EditOutcome.INVALID, edited.reason)
    try:
        new = parse(edited.text)
    except SkillDocError as exc:
        return DescriptionEdit(doc, EditOutcome.INVALID, f"the edited document: {exc}")
    if new.name != doc.name or new.user_text()[frontmatter.body_start(new.text):] != \
            doc.user_text()[frontmatter.body_start(doc.text):]:
        return DescriptionEdit(doc, EditOutcome.INVALID, "the edit would change more than "
                                                         "the description")
    return DescriptionEdit(new, EditOutcome.APPLIED)


def set_description(doc: SkillDoc, description: str) -> tuple[SkillDoc, EditOutcome]:
    """``edit_description`` as ``(doc, outcome)``."""
    done = edit_description(doc, description)
    return done.doc, done.outcome


def approx_tokens(text: str) -> int:
    """A provider-neutral token estimate (about four characters a token)."""
    return max(1, len(text) // 4)
