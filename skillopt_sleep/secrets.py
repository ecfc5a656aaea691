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
from typing import Any

__all__ = [
    "SECRET_PATTERNS",
    "SecretPattern",
    "find_secrets",
    "may_hold_secrets",
    "redact",
    "redact_tree",
]


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
# Names whose value is a secret, whatever prefix or suffix they carry (``DB_PASSWORD``,
# ``STRIPE_SECRET``, ``MY_SERVICE_TOKEN``, ``aws_secret_access_key``, ``"SecretAccessKey"``).
_SECRET_NAME = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|private[_\-]?key|client[_\-]?secret|credentials?)"
)
# A value: not a placeholder (``$VAR``, ``${VAR}``, ``<your key>``, ``%VAR%``, ``{{ x }}``,
# ``***``), at least four characters.
_VALUE = r"(?P<secret>(?![$%<{*\[])[^\s\"'`,;&<>()\[\]{}\\]{4,})"
# An optional quote, JSON-escaped or not (a transcript may hold JSON inside JSON).
_Q = r"(?:\\?[\"'])?"

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
    _p("aws_secret_key", "secret",
       r"(?i)secret_?access_?key" + _Q + r"\s*[:=]\s*" + _Q
       + r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    _p("google_api_key", "aiza", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _p("google_oauth_token", "ya29.", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
    _p("slack_token", "xox", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"),
    _p("slack_webhook", "hooks.slack.com",
       r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}"),
    _p("stripe_key", "_live_ _test_", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _p("huggingface_token", "hf_", r"\bhf_[A-Za-z0-9]{30,}"),
    _p("npm_token", "npm_", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _p("pypi_token", "pypi-", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    _p("digitalocean_token", "dop_v1_ doo_v1_", r"\bdo[op]_v1_[a-f0-9]{64}"),
    _p("shopify_token", "shpat_ shpss_ shpca_", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    _p("vault_token", "hvs.", r"\bhvs\.[A-Za-z0-9_\-]{24,}"),
    _p("databricks_token", "dapi", r"\bdapi[a-f0-9]{32}\b"),
    _p("telegram_bot_token", ":aa", r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    _p("age_secret_key", "age-secret-key-", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    _p("azure_storage_key", "accountkey", r"(?i)AccountKey=(?P<secret>[A-Za-z0-9+/=]{40,})"),
    _p("jwt", "eyj", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    _p("authorization_header", "authorization",
       r"(?i)\bauthorization" + _Q + r"\s*[:=]\s*" + _Q
       + r"(?:(?:basic|bearer|token|digest|apikey)\s+)?(?P<secret>[A-Za-z0-9._~+/=\-]{8,})"),
    _p("bearer_token", "bearer", r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    _p("connection_string", "://",
       r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{1,128}:(?P<secret>[^\s@/\"'<>]{1,256})@"),
    _p("cli_password", "mysql mariadb sshpass",
       r"\b(?:mysql(?:dump|admin|import)?|mariadb(?:-dump)?)\b[^\n|;]*?\s-p(?P<secret>[^\s\-`'\"][^\s`'\"]*)"
       r"|\bsshpass\s+-p\s*(?P<secret2>\S+)"),
    _p("password_pair", "pass pwd secret key token credential",
       # No prefix is matched (``DB_`` in ``DB_PASSWORD``): only the value is redacted.
       r"(?i)" + _SECRET_NAME + r"[A-Za-z0-9_\-]*" + _Q + r"\s*"
       r"(?::=|=>|[:=])\s*" + _Q + _VALUE),
)

# Plain substring tests on the lower-cased text decide which regexes run at all: most
# texts hold none of the hints, and a case-insensitive alternation is far slower.
# A hint that contains another adds nothing to the "any hint at all" test: only the
# shortest are kept (this test runs on every harvested text).
_ALL_HINTS = {h for p in SECRET_PATTERNS for h in p.hints}
_HINTS = tuple(sorted(h for h in _ALL_HINTS if not any(o != h and o in h for o in _ALL_HINTS)))


def _spans(text: str, low: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for pattern in SECRET_PATTERNS:
        if not any(hint in low for hint in pattern.hints):
            continue
        for match in pattern.regex.finditer(text):
            start, end = _span(match)
            named = pattern.kind == "password_pair"
            if named and not _secret_like(text[start:end], text[end : end + 1]):
                continue
            if any(s < end and start < e for s, e, _ in found):
                continue
            found.append((start, end, pattern.kind))
    found.sort()
    return found


def _span(match: re.Match[str]) -> tuple[int, int]:
    """The part of a match to redact: the ``secret`` group(s) if the pattern names one."""
    for group in ("secret", "secret2"):
        if group in match.re.groupindex and match.group(group) is not None:
            return match.span(group)
    return match.span(0)


def _secret_like(value: str, after: str) -> bool:
    """A named value worth hiding (``after``: the character after it): not a bare
    number (``max_tokens=2000``), a word documentation uses (``required``), or code — a
    call (``get_token(``) or a lower-case name or attribute (``data.token``)."""
    low = value.lower().strip(".")
    if low in _NOT_SECRETS or value.isdigit() or after == "(":
        return False
    if re.fullmatch(r"[a-z_]+(?:\.[a-z_]+)+|[a-z]+(?:_[a-z]+)+", value):
        return False
    return not re.fullmatch(r"[a-z]+(?:-[a-z]+)*", low) or len(value) >= 8


_NOT_SECRETS = frozenset({
    "true", "false", "none", "null", "yes", "no", "required", "optional", "string", "str",
    "int", "bool", "env", "file", "path", "basic", "bearer", "token", "digest",
})


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


def redact_tree(node: Any) -> Any:
    """``node`` (JSON-like: dicts, lists, strings) with every string redacted."""
    if isinstance(node, str):
        return redact(node)[0]
    if isinstance(node, dict):
        return {k: redact_tree(v) for k, v in node.items()}
    if isinstance(node, list):
        return [redact_tree(v) for v in node]
    return node
