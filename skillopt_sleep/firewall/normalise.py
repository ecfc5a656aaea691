"""What an agent reads: text as it is acted on, with everything a reader cannot see reported.

Hostile text hides in what a reviewer's eye skips: invisible and format characters (Unicode
category Cf, tag characters, bidi controls, variation selectors), HTML entities, shell line
continuations, look-alike letters. ``read`` undoes each so the rules see what an agent would
act on, and reports what it stripped so the finding can say so. Tag characters are ASCII in
disguise: they are decoded to the letters they stand for and read as content.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field

_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁһӏԛԝ" "АВЕКМНОРСТХУІЈЅԌ" "αβεικνορτυχ" "ΑΒΕΗΙΚΜΝΟΡΤΥΧ" "ɡɩʟ",
    "aeopcyxijsdhlqw" "ABEKMHOPCTXYIJSG" "abeikvoptux" "ABEHIKMNOPTYX" "gil",
)
# Invisible characters that are not category Cf: variation selectors, the combining
# grapheme joiner, Mongolian selectors, Hangul fillers, the Braille blank.
_OTHER_INVISIBLE = frozenset(
    [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x034F, 0x180B, 0x180C, 0x180D,
     0x180F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800]
)
_TAGS = range(0xE0000, 0xE0080)
_ZWJ, _VS15, _VS16 = 0x200D, 0xFE0E, 0xFE0F
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTINUATION = re.compile(r"[ \t]*\\\r?\n[ \t]*")


def invisible(ch: str) -> bool:
    """Does ``ch`` change nothing a reader sees?"""
    cp = ord(ch)
    return unicodedata.category(ch) == "Cf" or cp in _OTHER_INVISIBLE or cp in _TAGS


def _pictograph(ch: str) -> bool:
    """An emoji base or part of one: symbols, keycap bases, regional indicators, modifiers."""
    return unicodedata.category(ch) in ("So", "Sk") or ch in "#*0123456789\u20e3" or (
        0x1F000 <= ord(ch) <= 0x1FAFF)


def _emoji_glue(text: str, i: int) -> bool:
    """Is the character at ``i`` the glue of an emoji sequence (ZWJ between pictographs,
    a presentation selector after one)? Ordinary in anyone's text, so not hostile."""
    cp = ord(text[i])
    before = text[i - 1] if i else ""
    if cp in (_VS15, _VS16):
        return bool(before) and _pictograph(before)
    if cp == _ZWJ:
        after = text[i + 1] if i + 1 < len(text) else ""
        prev = text[i - 2] if before and ord(before) in (_VS15, _VS16) and i > 1 else before
        return bool(prev and after) and _pictograph(prev) and _pictograph(after)
    return False


@dataclass
class Reading:
    """``text`` as an agent acts on it; ``hidden`` lists what was stripped, by 1-based line."""

    text: str
    hidden: list[tuple[int, str]] = field(default_factory=list)


def _strip(text: str, hidden: list[tuple[int, str]]) -> str:
    out: list[str] = []
    last = 0
    for m in _NON_ASCII.finditer(text):  # every invisible character is outside ASCII
        i, ch = m.start(), m.group(0)
        if not invisible(ch) or _emoji_glue(text, i):
            continue
        out.append(text[last:i])
        last = i + 1
        line = text.count("\n", 0, i) + 1
        hidden.append((line, f"U+{ord(ch):04X} {unicodedata.name(ch, 'invisible')}"))
        if 0xE0020 <= ord(ch) <= 0xE007E:
            out.append(chr(ord(ch) - 0xE0000))  # a tag letter is the letter it hides
    out.append(text[last:])
    return "".join(out)


def read(text: str) -> Reading:
    """Strip and report invisible characters, then NFKC, entities and look-alikes.

    Line continuations are kept here (lines must keep their numbers); ``logical_lines``
    joins them."""
    hidden: list[tuple[int, str]] = []
    visible = _strip(text, hidden)
    folded = unicodedata.normalize("NFKC", visible)
    if "&" in folded:
        folded = html.unescape(folded)
    return Reading(_fold(folded), hidden)


_LOOKS_LATIN = frozenset(_LOOKALIKE)
_WORD = re.compile(r"[^\W\d_]+")


def _fold(text: str) -> str:
    """Look-alike letters folded to Latin in a word that is Latin in part, or spelled with
    look-alikes only ("сurl", "ехес"); a word of Russian or Greek keeps its own letters,
    so the text stays readable in its language."""
    if text.isascii():
        return text

    def word(m: re.Match[str]) -> str:
        w = m.group(0)
        if w.isascii() or not any(ord(c) in _LOOKS_LATIN for c in w):
            return w
        latin = any(c.isascii() for c in w) or all(ord(c) in _LOOKS_LATIN for c in w)
        return w.translate(_LOOKALIKE) if latin else w

    return _WORD.sub(word, text)


def normalise(text: str) -> str:
    """What an agent reads: invisible characters dropped, NFKC, entities decoded, look-alike
    letters folded, shell line continuations joined."""
    return _CONTINUATION.sub(lambda m: " " if m.group(0).strip("\\\r\n") else "",
                             read(text).text)


def _joinable(part: str, pending: list[str]) -> str:
    """A line as the shell joins it to the ones before (``pending``): the backslash-newline
    removed and nothing else, so ``https://hooks.\\`` + ``evil.io`` is one word; whitespace
    around the break (one space) still separates words."""
    if pending:
        part = re.sub(r"^[ \t]+", "" if pending[-1].endswith(" ") else " ", part)
    return re.sub(r"[ \t]+$", " ", part)


def logical_lines(text: str) -> list[tuple[int, str]]:
    """``(first line number, line)`` with shell line continuations joined: a command split
    over several lines is one command."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not pending:
            start = number
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending.append(_joinable(line[:-1], pending))
            continue
        out.append((start, "".join(pending) + _joinable(line, pending) if pending else line))
        pending = []
    if pending:
        out.append((start, "".join(pending)))
    return out
