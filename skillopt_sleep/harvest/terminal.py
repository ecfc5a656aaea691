"""Terminal output as text: colour and cursor codes removed before error text is kept.

A failed command's output is what a terminal was sent: ANSI escape sequences (colours,
bold, cursor moves, OSC hyperlinks and titles) and other control characters come with
it, raw (``ESC [31m``) or escaped by the JSON a transcript holds it in (``\\u001b[31m``).
Kept, they cost tokens in every prompt that shows the error, break the judge's reading of
it, and can split a secret so redaction misses it; so every reader removes them from
error text before it is redacted and cut.
"""

from __future__ import annotations

import re

_CSI = r"\[[0-?]*[ -/]*[@-~]"
_OSC = r"\][^\x07\x1b]*(?:\x07|\x1b\\)"
_ESCAPES = re.compile(
    rf"\x1b(?:{_CSI}|{_OSC}|[@-Z\\-_])"  # raw escape sequences
    rf"|\\u001[bB](?:{_CSI})"  # the same, JSON-escaped inside a dumped value
    r"|\\u001[bB]\][^\\]*(?:\\u0007|\\u001[bB]\\\\)"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"  # other controls (keeps \t \n \r)
)


_START = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\\u001[bB]")
"""Where any sequence ``_ESCAPES`` removes must start: one character-class scan tells
most output (which holds none) apart far faster than the full alternation."""


def plain(text: str) -> str:
    """``text`` without terminal escape sequences and control characters."""
    return _ESCAPES.sub("", text) if text and _START.search(text) else text
