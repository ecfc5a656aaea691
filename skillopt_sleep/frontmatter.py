"""Frontmatter as the agents read it: found by its fences, read tolerantly, edited by value.

Real skills carry frontmatter that a strict YAML loader refuses but Claude Code, Codex and
Copilot still load (``keywords: [@Cron]`` in a nested map), a ``name`` that is a list,
descriptions as block scalars, ``#`` comment lines, CRLF, a BOM, or no frontmatter at all.
Such a document is still a skill: it is read with what can be read and a ``Note`` says
what was odd (``lint`` and ``doctor`` show them), never a refusal.

Reading: the whole block through ``yaml.safe_load`` first; when that fails, each top-level
entry (a ``key:`` line at column 0 with its indented, blank and ``- item`` lines) is loaded
on its own, and an entry that still fails is kept as its raw text, so one bad nested list
costs that key alone.

Editing: ``replace_description`` rewrites the lines of the ``description`` entry only, in
the style the user wrote it (plain, single or double quoted, ``|``/``>`` block scalar with
its chomping and indentation indicators, on the key's line or below it, wrapped at the
width it was wrapped at), with the document's own line ending; every other byte stays.
The result is read back, and where it does not give exactly the new value with every
other key unchanged, the edit is refused with the reason.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field

import yaml

BOM = "\ufeff"
DESCRIPTION_MAX_CHARS = 1024
"""The Agent Skills limit on a frontmatter ``description``; a night's own cap is lower."""
_OPEN = re.compile(r"\A\ufeff?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_KEY = re.compile(r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?=[ \t\r\n]|$)")
_BLOCK_HEADER = re.compile(
    r"^(?P<kind>[|>])(?P<a>[1-9]?)(?P<chomp>[+-]?)(?P<b>[1-9]?)(?P<comment>[ \t]+#.*)?[ \t]*$")
_MIN_WRAP = 40


@dataclass(frozen=True)
class Note:
    """Something odd about a document that does not stop it being a skill."""

    code: str
    detail: str

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


@dataclass(frozen=True)
class Block:
    """The frontmatter's YAML: ``text[start:end]``, fences excluded, final line break kept."""

    start: int
    end: int
    close_end: int
    """Where the closing fence's line ends (the body starts there)."""


@dataclass(frozen=True)
class Fields:
    """What the frontmatter says, as far as it can be read."""

    present: bool
    values: dict[str, object] = field(default_factory=dict)
    notes: tuple[Note, ...] = ()
    as_text: tuple[str, ...] = ()
    """Keys whose value YAML could not read, kept as their raw text."""
    strict: bool = True
    """Whether the whole block is valid YAML (a strict loader reads it as agents do)."""

    def text(self, key: str) -> str:
        """``key``'s value when it is a string (or a number), else ``""``."""
        value = self.values.get(key)
        if isinstance(value, str):
            return value
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""


def locate(text: str) -> Block | None:
    """The frontmatter block, or None when the document has none (or it is never closed)."""
    opened = _OPEN.match(text)
    if not opened:
        return None
    close = _CLOSE.search(text, opened.end())
    if close is None:
        return None
    newline = text.find("\n", close.start())
    return Block(opened.end(), close.start(), len(text) if newline < 0 else newline + 1)


def body_start(text: str) -> int:
    """Where the text after the frontmatter starts (0 without frontmatter)."""
    block = locate(text)
    return block.close_end if block else 0


def _entries(lines: list[str]) -> list[tuple[str, int, int]]:
    """Top-level entries as ``(key, first line, end line)``; comment lines at column 0
    belong to none, trailing blank lines are left outside."""
    found: list[tuple[str, int, int]] = []
    i = 0
    while i < len(lines):
        match = _KEY.match(lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and _continues(lines[end]):
            end += 1
        last = end
        while last > i + 1 and not lines[last - 1].strip():
            last -= 1
        found.append((match.group("key"), i, last))
        i = end
    return found


def _continues(line: str) -> bool:
    return (not line.strip() or line[:1] in " \t"
            or (line.startswith("-") and not line.startswith("---")))


def read(text: str) -> Fields:
    """The frontmatter's fields and notes; never raises."""
    block = locate(text)
    notes: list[Note] = [Note("bom", "the file starts with a byte-order mark")] \
        if text.startswith(BOM) else []
    if block is None:
        return Fields(False, {}, (*notes, Note("no_frontmatter",
                                               "no frontmatter: no name or description")))
    raw = text[block.start:block.end]
    bad: list[str] = []
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        data, bad = _by_entry(raw)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        notes.append(Note("frontmatter_not_yaml",
                          f"not valid YAML ({first}); read key by key, "
                          f"{', '.join(bad) or 'no key'} kept as text"))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        notes.append(Note("frontmatter_not_mapping", "the frontmatter is not a key: value map"))
        data = {}
    values = {str(k): v for k, v in data.items()}
    return Fields(True, values, tuple(notes + _value_notes(values)), tuple(bad), not bad
                  and not any(n.code == "frontmatter_not_yaml" for n in notes))


def _by_entry(raw: str) -> tuple[dict[str, object], list[str]]:
    lines = raw.splitlines(keepends=True)
    values: dict[str, object] = {}
    bad: list[str] = []
    for key, start, end in _entries(lines):
        chunk = "".join(lines[start:end])
        try:
            loaded = yaml.safe_load(chunk)
        except yaml.YAMLError:
            loaded = None
        if isinstance(loaded, dict) and key in loaded:
            values[key] = loaded[key]
        else:
            bad.append(key)
            values[key] = " ".join(chunk.split(":", 1)[1].split())
    return values, bad


def _value_notes(values: dict[str, object]) -> list[Note]:
    notes = []
    for key in ("name", "description"):
        value = values.get(key)
        if value is None and key == "description":
            # A missing name is ordinary (the folder names the skill; instruction files
            # have none); a missing description leaves routing nothing to read.
            notes.append(Note("no_description", "the frontmatter has no description"))
        elif value is not None and (not isinstance(value, str | int | float)
                                    or isinstance(value, bool)):
            notes.append(Note(f"{key}_not_string",
                              f"{key} is a {type(value).__name__}, not text; "
                              + ("the folder name is used" if key == "name" else "not read")))
    description = values.get("description")
    if isinstance(description, str) and len(description.strip()) > DESCRIPTION_MAX_CHARS:
        notes.append(Note("description_over_limit",
                          f"description is {len(description.strip())} characters "
                          f"(agents may cut it at {DESCRIPTION_MAX_CHARS})"))
    return notes


def folder_notes(fields: Fields, folder: str) -> list[Note]:
    """Notes that need the skill's folder: a ``name`` other than the folder's."""
    name = fields.text("name")
    if fields.present and name and folder and name != folder:
        return [Note("name_differs_from_folder",
                     f"name {name!r} differs from its folder {folder!r}; both route here")]
    return []


# --- the description edit ----------------------------------------------------------------


@dataclass(frozen=True)
class ValueEdit:
    """A description edit: the new text, or None and why it was not made."""

    text: str | None
    reason: str = ""


def description_style(text: str) -> str:
    """How the description is written: ``plain``, ``single``, ``double``, ``literal``,
    ``folded``, ``other``, or ``none`` (no frontmatter or no description key)."""
    block = locate(text)
    if block is None:
        return "none"
    lines = text[block.start:block.end].splitlines(keepends=True)
    found = [(s, e) for key, s, e in _entries(lines) if key == "description"]
    if not found:
        return "none"
    start, end = found[0]
    colon = _KEY.match(lines[start])
    assert colon is not None
    below = [ln.strip() for ln in lines[start + 1:end] if ln.strip()]
    first = lines[start][colon.end():].strip() or (below[0] if below else "")
    return {"'": "single", '"': "double", "|": "literal", ">": "folded"}.get(
        first[:1], "other" if first[:1] in "&!*[{" else "plain")


def replace_description(text: str, value: str) -> ValueEdit:
    """``text`` with its frontmatter ``description`` value replaced by ``value`` (one line),
    in the value's own style, every other byte kept (see the module docstring)."""
    block = locate(text)
    if block is None:
        return ValueEdit(None, "no frontmatter: a description is not added to a file "
                               "whose first bytes are the user's text")
    lines = text[block.start:block.end].splitlines(keepends=True)
    eol = "\r\n" if (lines[0] if lines else "").endswith("\r\n") else "\n"
    found = [(s, e) for key, s, e in _entries(lines) if key == "description"]
    if len(found) > 1:
        return ValueEdit(None, "the frontmatter has two description keys")
    if not found and "description" in read(text).values:
        return ValueEdit(None, "the description key is written in a form this edit does not "
                               "rewrite (quoted or inside a flow map); not edited")
    if not found:
        new_lines = [*lines, f"description: {_plain_or_quoted(value)}{eol}"]
    else:
        start, end = found[0]
        rendered = _render(lines[start:end], value, eol)
        if isinstance(rendered, str):
            return ValueEdit(None, rendered)
        new_lines = lines[:start] + rendered + lines[end:]
    new_text = text[:block.start] + "".join(new_lines) + text[block.end:]
    return _verified(text, new_text, value)


def _plain_or_quoted(value: str) -> str:
    dumped = yaml.safe_dump(value, default_flow_style=True, width=10_000,
                            allow_unicode=True).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()


def _verified(old: str, new: str, value: str) -> ValueEdit:
    before, after = read(old), read(new)
    if (before.strict and not after.strict) or "description" in after.as_text:
        return ValueEdit(None, "the description's style cannot hold this value as valid "
                               "YAML (a plain value cannot hold ': ' or ' #', or start with "
                               "a quote or indicator); not edited")
    got = after.values.get("description")
    if not isinstance(got, str) or got.rstrip("\n") != value:
        return ValueEdit(None, "the description's style cannot hold this value exactly "
                               "(it would read back differently)")
    others_before = {k: v for k, v in before.values.items() if k != "description"}
    others_after = {k: v for k, v in after.values.items() if k != "description"}
    if others_before != others_after:
        return ValueEdit(None, "rewriting the description would change another key")
    return ValueEdit(new)


def _render(entry: list[str], value: str, eol: str) -> list[str] | str:
    """The entry's lines holding ``value`` in the entry's style, or why that cannot be."""
    head = entry[0].rstrip("\r\n")
    colon = _KEY.match(head)
    assert colon is not None
    key_part, rest = head[: colon.end()], head[colon.end():]
    inline = rest.strip()
    below = [ln.rstrip("\r\n") for ln in entry[1:]]
    content = [ln for ln in below if ln.strip()]
    indent = _indent(content[0]) if content else "  "
    width = max((len(ln) for ln in [head, *below] if ln.strip()), default=0)
    wrap = width if below and width >= _MIN_WRAP else 0
    if inline[:1] in "|>" and inline:
        return _render_block(key_part, rest, below, value, eol, indent)
    starter = inline or (content[0].strip() if content else "")
    if starter[:1] in "&!*[{":
        return "the description is an anchor, tag, alias or flow collection; not edited"
    if _trailing_comment(starter, inline, below):
        return "a comment follows the description's value; not edited to keep it"
    scalar = _quoted(value, starter[:1]) if starter[:1] in "'\"" else value
    if not inline and content:
        body = _wrap(scalar, wrap or len(scalar) + len(indent), indent, indent)
        return [f"{key_part}{rest}{eol}", *(f"{ln}{eol}" for ln in body)]
    space = rest[: len(rest) - len(rest.lstrip())] or " "
    first = f"{key_part}{space}"
    body = _wrap(scalar, wrap or len(first) + len(scalar), first, indent)
    return [f"{ln}{eol}" for ln in body]


def _render_block(key_part: str, rest: str, below: list[str], value: str, eol: str,
                  indent: str) -> list[str] | str:
    header = _BLOCK_HEADER.match(rest.strip())
    if header is None:
        return "the description's block scalar header is not one this edit can keep"
    explicit = header.group("a") or header.group("b")
    if explicit:
        indent = " " * int(explicit)
    content = [ln for ln in below if ln.strip()]
    width = max((len(ln) for ln in content), default=0)
    if header.group("kind") == "|" or width < _MIN_WRAP:
        body = [indent + value]
    else:
        body = _wrap(value, width, indent, indent)
    return [f"{key_part}{rest}{eol}", *(f"{ln}{eol}" for ln in body)]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _quoted(value: str, quote: str) -> str:
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def _trailing_comment(starter: str, inline: str, below: list[str]) -> bool:
    """Whether a ``# comment`` follows a quoted or plain value (rewriting would drop it)."""
    joined = " ".join([inline, *(ln.strip() for ln in below)]).strip()
    if starter[:1] in "'\"":
        closing = joined.rfind(starter[:1])
        return closing > 0 and joined[closing + 1:].strip().startswith("#")
    return " #" in joined or "\t#" in joined


def _wrap(scalar: str, width: int, first: str, indent: str) -> list[str]:
    """``scalar`` folded at spaces into lines of at most ``width`` (a word longer stays
    whole), the first line after ``first``, the others after ``indent``."""
    return textwrap.wrap(scalar, width=max(width, len(first) + 1), initial_indent=first,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False, drop_whitespace=True, expand_tabs=False,
                         replace_whitespace=False) or [first.rstrip()]
