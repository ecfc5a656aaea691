"""PEM-style private key blocks, bounded by their footer.

A header with no matching footer after it erases nothing (a document that names the
format, a truncated paste): the key material, if any, is what lies between the two.
Base64 lines of a key cut short by a clip are still caught by the entropy of their
context elsewhere; here only whole blocks count.
"""

from __future__ import annotations

import re

__all__ = ["HINTS", "find"]

Span = tuple[int, int, str]

HINTS = ("-----begin", "putty-user-key-file")
_BLOCK = re.compile(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?P<body>(?:(?!-----BEGIN )[\s\S]){1,65536}?)-----END (?P=label)-----"
)
# PuTTY's format has no footer: its ``Private-Lines`` say how many base64 lines follow.
_PUTTY = re.compile(r"Private-Lines:\s*(?P<n>[0-9]{1,3})(?:\r?\n|\\n)")
_PUTTY_LINE = re.compile(r"[A-Za-z0-9+/=]+(?:\r?\n|\\n)?")


def find(text: str) -> list[Span]:
    """Every whole private key block in ``text`` (its body; the header and footer stay)."""
    found: list[Span] = [(m.start("body"), m.end("body"), "private_key")
                         for m in _BLOCK.finditer(text) if _has_key(m.group("body"))]
    for match in _PUTTY.finditer(text):
        end = match.end()
        for _ in range(int(match.group("n"))):
            line = _PUTTY_LINE.match(text, end)
            if not line or line.end() == end:
                break
            end = line.end()
        if end > match.end():
            found.append((match.end(), end, "private_key"))
    return found


def _has_key(body: str) -> bool:
    """A body of base64 (or an encrypted block's headers and base64), not prose."""
    return len(re.findall(r"[A-Za-z0-9+/=]{16,}", body)) > 0
