"""Secret shapes and their redaction: one rule set for the harvest and the skill-edit firewall.

Everything a harvester keeps (requests, answers, tool arguments, error heads, paths) goes
through ``redact`` before it reaches the archive. The firewall imports ``SECRET_PATTERNS``
/ ``find_secrets`` so an edit can never carry a secret the harvest would have removed.

A pattern with a named group ``secret`` redacts only that group (``password=hunter2`` keeps
``password=``); any other pattern redacts the whole match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SECRET_PATTERNS", "SecretPattern", "find_secrets", "may_hold_secrets", "redact"]


@dataclass(frozen=True)
class SecretPattern:
    """A secret shape; ``hints`` are lower-case substrings any match must contain."""

    kind: str
    regex: re.Pattern[str]
    hints: tuple[str, ...]


def _p(kind: str, hints: str, pattern: str, flags: int = 0) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern, flags), tuple(hints.split()))


# Order matters: specific provider shapes first, so ``sk-ant-…`` is reported as Anthropic
# and not as a generic OpenAI-looking key.
SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    _p("private_key", "-----begin", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
       r"(?:[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]{0,4096})"),
    _p("anthropic_key", "sk-ant-", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    _p("openai_key", "sk-", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    _p("github_token", "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
       r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    _p("gitlab_token", "glpat-", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    _p("aws_access_key", "akia asia", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _p("google_api_key", "aiza", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _p("slack_token", "xox", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    _p("stripe_key", "_live_ _test_", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _p("huggingface_token", "hf_", r"\bhf_[A-Za-z0-9]{30,}"),
    _p("npm_token", "npm_", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _p("jwt", "eyj", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    _p("bearer_token", "bearer", r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    _p("connection_string", "://",
       r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{1,128}:(?P<secret>[^\s@/\"'<>]{1,256})@"),
    _p("password_pair", "pass pwd secret key token",
       r"(?i)\b(?:password|passwd|pwd|passphrase|secret|secret[_\-]?key|api[_\-]?key|apikey"
       r"|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key)"
       r"[\"']?\s*[:=]\s*[\"']?(?P<secret>[^\s\"',;&<>]{4,})"),
)

# Plain substring tests on the lower-cased text decide which regexes run at all: most
# texts hold none of the hints, and a case-insensitive alternation is far slower.
_HINTS = tuple(sorted({h for p in SECRET_PATTERNS for h in p.hints}))


def _spans(text: str, low: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for pattern in SECRET_PATTERNS:
        if not any(hint in low for hint in pattern.hints):
            continue
        for match in pattern.regex.finditer(text):
            group = "secret" if "secret" in pattern.regex.groupindex else 0
            start, end = match.span(group)
            if any(s < end and start < e for s, e, _ in found):
                continue
            found.append((start, end, pattern.kind))
    found.sort()
    return found


def may_hold_secrets(texts: list[str]) -> bool:
    """False when no text of ``texts`` can hold a secret (so ``redact`` would keep each).

    One test on the texts joined: the hints are ASCII without NUL and lower-casing maps
    character by character as far as ASCII goes, so a hint found in the joined text lies
    inside one of them. Far cheaper than a test per short text.
    """
    low = "\0".join(texts).lower()
    return any(hint in low for hint in _HINTS)


def find_secrets(text: str) -> list[tuple[str, str]]:
    """Every secret in ``text`` as ``(kind, matched text)``, in order of position. Never raises."""
    low = text.lower() if text else ""
    if not any(hint in low for hint in _HINTS):
        return []
    return [(kind, text[s:e]) for s, e, kind in _spans(text, low)]


def redact(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and how many were replaced."""
    low = text.lower() if text else ""
    if not any(hint in low for hint in _HINTS):
        return text, 0
    spans = _spans(text, low)
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
