"""The frontmatter as the firewall compares it, tolerant where the agents are.

A proposal may change the ``description`` value and nothing else in the frontmatter.
Real frontmatter is not always YAML a strict parser accepts (``keywords: [@Cron]``, plain
scalars continued on the next line), so when ``yaml.safe_load`` refuses it, the keys are
read line by line: a top-level ``key:`` starts a value, indented or continued lines belong
to it. Either reading compares the same way; neither ever raises."""

from __future__ import annotations

import re

import yaml

FRONTMATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(.*)$")


def block(text: str) -> str | None:
    """The frontmatter's text, or None when the document has none."""
    match = FRONTMATTER.match(text)
    return match.group(1) if match else None


def keys(text: str) -> dict[str, object]:
    """The frontmatter as a mapping of top-level keys ({} when there is none)."""
    raw = block(text)
    if raw is None:
        return {}
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}
    return _by_lines(raw)


def _by_lines(raw: str) -> dict[str, object]:
    """Top-level keys and the raw text of their values, for YAML a strict parser refuses."""
    out: dict[str, object] = {}
    current = ""
    for line in raw.splitlines():
        match = _KEY.match(line) if line[:1] not in (" ", "\t", "#", "-") else None
        if match:
            current = match.group(1)
            out[current] = match.group(2).strip()
        elif current and not line.lstrip().startswith("#"):
            out[current] = f"{out[current]}\n{line.rstrip()}"
    return out


def shape_notes(text: str, folder: str = "") -> list[str]:
    """What a reader of the frontmatter should know: not YAML, no name or description, a
    name that is not a string or differs from the folder, a long description."""
    raw = block(text)
    if raw is None:
        return ["no frontmatter (the file name routes the skill)"]
    notes: list[str] = []
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 1}" if mark is not None else ""
        notes.append(f"frontmatter is not strict YAML{where}; read tolerantly")
        data = _by_lines(raw)
    if not isinstance(data, dict):
        return [*notes, "frontmatter is not a mapping"]
    name, description = data.get("name"), data.get("description")
    if name is not None and not isinstance(name, str):
        notes.append(f"name is a {type(name).__name__}, not a string")
    elif isinstance(name, str) and folder and name.strip() != folder:
        notes.append(f"name {name.strip()!r} differs from its folder {folder!r}")
    if description is None:
        notes.append("no description")
    elif isinstance(description, str) and len(description) > 1024:
        notes.append(f"description is {len(description)} characters (> 1,024)")
    return notes
