"""Secrets and their redaction: one engine for the harvest, every surface and the firewall.

Everything kept from a transcript goes through ``redact`` before it reaches the archive;
the firewall calls ``find_secrets`` so an edit can never carry a secret the harvest would
have removed. A secret is found by its *context* first, as secret scanners read it:

- ``assignments``: a value given to a key that names a secret, in every config format;
- ``commands``: options, short flags, ``user:pass`` and positional secrets of command
  lines, read with a shell lexer;
- ``urls``: URL userinfo (signature and token query parameters are assignments);
- ``slots``: a value a secret noun governs in prose (in several languages), the password
  argument of a credential-taking call, a ``value`` field whose sibling names a secret;
- ``pem``: private key blocks bounded by their footer;
- ``vendor``: detect-secrets' vendor rules and the prefixed-random-token class.

Each finding is replaced by ``[REDACTED:<kind>]``. Redaction is idempotent: a finding
that touches a marker is dropped, and no detector reads a marker as a value, so
redacting redacted text (a resumed session) changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.secrets import assignments, commands, pem, prefilter, slots, urls, vendor

__all__ = [
    "SECRET_PATTERNS",
    "SecretPattern",
    "find_secrets",
    "may_hold_secrets",
    "redact",
    "redact_tree",
    "redact_value",
]

Span = tuple[int, int, str]


@dataclass(frozen=True)
class SecretPattern:
    """The regex a detector starts from; ``hints`` are lower-case substrings it needs."""

    kind: str
    regex: re.Pattern[str]
    hints: tuple[str, ...]


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern("private_key", pem._BLOCK, pem.HINTS),
    SecretPattern("password_pair", assignments._HIT, assignments.HINTS),
    SecretPattern("bearer_token", re.compile(r"(?i)\bbearer\s+"), ("bearer",)),
    SecretPattern("connection_string", urls._USERINFO, urls.HINTS),
    SecretPattern("prefixed_token", vendor.PREFIXED, ()),
)

MARKER = re.compile(r"\[REDACTED:[A-Za-z0-9_]+\]")
def _lower(text: str) -> str:
    """``text`` lower-cased position for position (a few characters grow when lowered)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _spans(text: str) -> list[Span]:
    low = _lower(text)
    kinds = prefilter.kinds(low)  # the families whose words the text holds, in one pass
    found: list[Span] = []
    if kinds & prefilter.PEM:
        found += pem.find(text)
    if kinds & prefilter.URL:
        found += urls.find(text)
    found += vendor.find(text)
    if ":" in text:
        found += assignments.find_pgpass(text)
    if kinds & prefilter.ASSIGNMENT:
        found += assignments.find(text, low)
    if kinds & (prefilter.ASSIGNMENT | prefilter.COMMAND):
        # An option whose name holds an assignment word (``--db-password X``) is a command's.
        found += commands.find(text, low)
    if kinds & (prefilter.ASSIGNMENT | prefilter.SLOT):
        found += slots.find(text, low)
    return _merged(found, text)


def _merged(found: list[Span], text: str) -> list[Span]:
    """Overlapping findings as one (the earliest's kind), none touching a marker."""
    if not found:
        return []
    markers = [m.span() for m in MARKER.finditer(text)] if "[REDACTED:" in text else []
    out: list[Span] = []
    # On a tie a named shape (``github_token``) is reported before what its context says.
    generic = ("password_pair", "cli_password", "connection_string", "prefixed_token")
    for start, end, kind in sorted(found, key=lambda s: (s[0], -s[1], s[2] in generic)):
        if start >= end or any(s < end and start < e for s, e in markers):
            continue
        end = _whole_token(text, start, end, kind)
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, kind))
    return out


# A finding that ends inside a run of token characters takes the whole run: a vendor
# rule that matched a token's prefix or its first N characters never leaves the body.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-]+")
_VENDOR_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]*[A-Za-z0-9_\-+/=]")
_CONTEXT_KINDS = frozenset({"password_pair", "cli_password", "connection_string",
                           "webhook_url", "pgpass", "private_key"})


def _whole_token(text: str, start: int, end: int, kind: str) -> int:
    if end >= len(text) or not (text[end - 1].isalnum() and (text[end].isalnum()
                                                             or text[end] in "_-+/=")):
        return end
    tail = (_TOKEN_TAIL if kind in _CONTEXT_KINDS else _VENDOR_TAIL).match(text, end)
    return tail.end() if tail else end


def may_hold_secrets(texts: list[str]) -> bool:
    """False when no text of ``texts`` can hold a secret (so ``redact`` would keep each).

    One test on the texts joined, far cheaper than a test per short text: a rule's word
    found in the joined text lies inside one of them (the words hold no NUL), and a
    ``.pgpass`` line or a token run that spans two texts only makes the answer True more
    often. The rules' words are found in one pass (``prefilter``); a ``.pgpass`` line and
    a token run that may be a vendor's (``vendor.may_find``: not a UUID) in one scan each.
    """
    joined = "\0".join(texts)
    return prefilter.any_rule(joined.lower()) or assignments.may_hold_pgpass(joined) \
        or vendor.may_find(joined)


def find_secrets(text: str) -> list[tuple[str, str]]:
    """Every secret in ``text`` as ``(kind, matched text)``, in order of position."""
    if not text:
        return []
    return [(kind, text[s:e]) for s, e, kind in _spans(text)]


def redact(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and how many were replaced."""
    if not text:
        return text, 0
    spans = _spans(text)
    if not spans:
        return text, 0
    parts: list[str] = []
    last = 0
    for start, end, kind in spans:
        parts.append(text[last:start])
        parts.append(f"[REDACTED:{kind}]")
        last = end
    parts.append(text[last:])
    return "".join(parts), len(spans)


def redact_value(key: Any, value: str) -> tuple[str, int]:
    """``value`` as given under ``key`` in a mapping (a tool's input, a JSON object): whole
    ``[REDACTED:password_pair]`` when the key names a secret and the value is one by the
    assignment rules' judgement (``{"password": "hunter2"}``), else ``redact(value)``."""
    if isinstance(key, str) and value and assignments.keyed(key, value):
        return KEYED_MARK, 1
    return redact(value)


KEYED_MARK = "[REDACTED:password_pair]"


def redact_tree(node: Any) -> Any:
    """``node`` (JSON-like: dicts, lists, strings) with every string redacted, a dict's
    values in their keys' context (``redact_value``)."""
    if isinstance(node, str):
        return redact(node)[0]
    if isinstance(node, dict):
        return {k: redact_value(k, v)[0] if isinstance(v, str) else redact_tree(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [redact_tree(v) for v in node]
    return node
