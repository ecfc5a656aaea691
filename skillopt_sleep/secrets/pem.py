"""PEM-style private key blocks, bounded by their footer.

A header erases nothing by itself (a document that names the format): what is erased is
the key material between it and its footer, or, when the footer is missing (a paste or an
output cut short), the base64 lines that follow it up to the first line that is not one.
"""

from __future__ import annotations

import re

__all__ = ["HINTS", "find"]

Span = tuple[int, int, str]

# What each rule below starts from, lower-cased: a header (``_BLOCK``, ``_HEADER``) and
# PuTTY's line count (``_PUTTY``; a window may start after its file's first line).
HINTS = ("-----begin", "---- begin", "private-lines:", "private-mac:", "private-hash:")
# PEM's five dashes, and SSH2's (RFC 4716, ``ssh.com``) four with spaces inside.
_BLOCK = re.compile(
    r"-{4,5} ?BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?) ?-{4,5}"
    r"(?P<body>(?:(?!-{4,5} ?BEGIN )[\s\S]){1,65536}?)-{4,5} ?END (?P=label) ?-{4,5}"
)
# PuTTY's format has no footer: its ``Private-Lines`` say how many base64 lines follow,
# and its ``Private-MAC`` (``Private-Hash`` in version 1) is computed from the key.
_PUTTY = re.compile(r"Private-Lines:\s*(?P<n>[0-9]{1,3})(?:\r?\n|\\n)")
_PUTTY_MAC = re.compile(r"Private-(?:MAC|Hash):[ \t]*(?P<v>[0-9a-fA-F]{32,128})")
_PUTTY_LINE = re.compile(r"[A-Za-z0-9+/=]+(?:\r?\n|\\n)?")


# A header whose footer is missing (a paste or an output cut short): what is erased is the
# key material that does follow it, base64 lines up to the first line that is not one.
_HEADER = re.compile(r"-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_NL = r"(?:\r?\n|\\+[nr])"
_CUT_BODY = re.compile(
    r"(?:" + _NL + r"[A-Za-z-]+: [^\n\\]*)*"  # Proc-Type:, DEK-Info:, Comment: headers
    r"(?:" + _NL + r"?[ \t]*[A-Za-z0-9+/=]{16,})+[A-Za-z0-9+/=]*"
    r"(?:" + _NL + r"[A-Za-z0-9+/=]{1,15}(?=$|" + _NL + r"|[\"'\\]|-----))?")  # a last, short line


def find(text: str) -> list[Span]:
    """Every private key in ``text``: a block's body (its header and footer stay), or the
    key material after a header whose footer was cut off. A header alone erases nothing."""
    found: list[Span] = [(m.start("body"), m.end("body"), "private_key")
                         for m in _BLOCK.finditer(text) if _has_key(m.group("body"))]
    for header in _HEADER.finditer(text):
        if any(s <= header.end() <= e for s, e, _ in found):
            continue
        body = _CUT_BODY.match(text, header.end())
        if body and body.end() > body.start():
            found.append((body.start(), body.end(), "private_key"))
    for match in _PUTTY.finditer(text):
        end = match.end()
        for _ in range(int(match.group("n"))):
            line = _PUTTY_LINE.match(text, end)
            if not line or line.end() == end:
                break
            end = line.end()
        if end > match.end():
            found.append((match.end(), end, "private_key"))
    found.extend((*m.span("v"), "private_key") for m in _PUTTY_MAC.finditer(text))
    return found


def _has_key(body: str) -> bool:
    """A body of base64 (or an encrypted block's headers and base64), not prose."""
    return any(not run.isalpha() or not run.islower()
               for run in re.findall(r"[A-Za-z0-9+/=]{12,}", body))
