"""Vendor token shapes, from a maintained rule set, plus the class they share.

The per-vendor regexes (AWS key ids, GitHub, GitLab, Slack, Stripe, npm, PyPI, SendGrid,
Twilio, Telegram, Discord, Mailchimp, OpenAI, JWT, Azure storage keys, …) are
``detect-secrets``' own (``detect_secrets.plugins.*.denylist``), imported on first need.
Its plugins import ``requests`` for their online verification, which this package never
calls; that import is most of the rule set's cost (about 200 M instructions, a sixth of a
10 MB harvest), so the plugins are imported with ``requests`` standing in as a module that
loads the real one on first use (``_Deferred``). Its keyword, entropy, IP and basic-auth
plugins are left out (this package reads context itself, see ``assignments`` and ``urls``).

Vendors that detect-secrets has no rule for share one shape, which is detected as a class:
a short lower-case prefix and separators (``sk-ant-api03-``, ``hf_``, ``dop_v1_``,
``shpat_``, ``hvs.``, ``AGE-SECRET-KEY-1``) before a long random body. So do credentials
given as request headers whose names say nothing (``_in_headers``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

from skillopt_sleep.secrets.values import _UUID, _placeholder, looks_random

__all__ = ["LONG_RUN", "PREFIXED", "find", "has_long_run", "keep_rules_in", "may_find",
           "vendor_rules"]

Span = tuple[int, int, str]

# A vendor prefix is one case (``sk-``, ``AGE-``): a mixed-case start is a random blob's.
# Every vendor token is, or holds, a run this long of token characters.
# (A run starts after a non-token character, or after a JSON escape such as ``\\n``.)
LONG_RUN = re.compile(r"(?:(?<=\\[nrt])|(?<![\w\-.\\]))[A-Za-z0-9][\w\-.]{19,}")
PREFIXED = re.compile(
    r"(?P<prefix>(?:[a-z][a-z0-9]{0,9}|[A-Z][A-Z0-9]{0,9})(?:[_\-.][A-Za-z0-9]{1,12}){0,3}[_\-.])"
    r"(?P<body>[A-Za-z0-9][A-Za-z0-9_\-]{19,})"
)
# Prefixes of things that look random and are not secrets: digests, checksums, and the
# public object ids APIs print and put in URLs (Stripe's ``cus_``/``pi_``/``sub_``/``price_``,
# Clerk's ``user_``/``org_``/``sess_``, OpenAI's ``batch_``/``file-``/``asst_``, …): an id
# names an object, it grants nothing.
_NOT_SECRET_PREFIX = frozenset({
    "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "uuid", "blake", "crc", "xxh",
    "git", "commit", "node", "chunk", "msg", "req", "toolu", "call", "run", "session",
    "file", "resp", "chatcmpl", "evt", "cs", "ch", "id", "rs", "fc", "item", "thread",
    "asst", "cus", "user", "usr", "org", "acct", "pi", "pm", "sub", "si", "price", "prod",
    "plan", "in", "ii", "il", "inv", "txn", "tr", "po", "py", "pyr", "re", "src", "seti",
    "card", "tok", "btok", "ba", "batch", "ft", "ftjob", "vs", "step", "cmpl", "ws", "team",
    "ins", "client", "sess", "obj", "order", "ord", "cart", "job", "task", "proj", "project",
    "dataset", "model", "img", "doc", "app", "cert", "sched", "dep", "build", "vid",
    "ticket", "prj", "env", "conv", "mcp", "srvtoolu", "trace", "span", "log", "event",
})
# Well-known vendor shapes the rule set lacks whose prefix runs into the body with no
# separator (gitleaks names them: Google API keys, Atlassian API tokens, Databricks, Alibaba,
# Tencent, NuGet, Facebook, Airtable PATs).
_NO_SEPARATOR = re.compile(
    r"AIza[0-9A-Za-z_\-]{35}|ATATT3[A-Za-z0-9_\-]{20,}|dapi[0-9a-f]{32}|LTAI[A-Za-z0-9]{12,20}"
    r"|AKID[A-Za-z0-9]{32}|oy2[a-z0-9]{43}|EAA[A-Za-z0-9]{6,}ZD[A-Za-z0-9]{20,}"
    r"|EAACEdEose0cBA[A-Za-z0-9]{20,}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}")
# Artifactory's ``AP[0-9A-F]…`` also matches words (``APDUResponse``); the IBM, SoftLayer
# and Cloudant rules are keyword rules, which ``assignments`` reads for every key.
_PLUGINS = ("aws", "azure_storage_key", "discord", "github_token", "gitlab_token", "jwt",
            "mailchimp", "npm", "openai", "pypi_token", "sendgrid", "slack", "square_oauth",
            "stripe", "telegram_token", "twilio")


# The plugin's module name is the finding's kind, in the names this package always used.
_KINDS = {"aws": "aws_access_key", "slack": "slack_token", "stripe": "stripe_key",
          "openai": "openai_key", "npm": "npm_token", "telegram_token": "telegram_bot_token",
          "discord": "discord_token", "mailchimp": "mailchimp_key", "sendgrid": "sendgrid_key",
          "square_oauth": "square_oauth_secret", "twilio": "twilio_key"}


class _Deferred(types.ModuleType):
    """A module name bound to the real module on first attribute use: code that imported it
    and never touches it (the plugins' verification) never loads it, and code that does
    (any thread that imported it meanwhile included) gets the real module's attributes."""

    def __getattr__(self, attr: str) -> object:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


@contextlib.contextmanager
def _deferred(name: str) -> Iterator[None]:
    if name in sys.modules:
        yield
        return
    stand_in = sys.modules[name] = _Deferred(name)
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


_kept_in: list[Callable[[], Path]] = []
_SAME = re.compile(r"(.)\1{4,}")


def _example(token: str) -> bool:
    """A documentation placeholder (``AKIAIOSFODNN7EXAMPLE``, ``ghp_xxxx…``), not a token.
    A run of one character inside a generated body (``…b0177777e…``, one hex token in a few
    thousand has one) does not make it a placeholder: the rest decides."""
    runs = sum(len(m.group(0)) for m in _SAME.finditer(token))
    if runs and 2 * runs < len(token):
        rest = _SAME.sub("", token)
        return bool(rest) and _placeholder(rest)
    return _placeholder(token)


def keep_rules_in(where: Callable[[], Path] | None) -> None:
    """Keep the rules between processes in the file ``where()`` names (``rule_file``),
    asked for when the rules are first needed; None: read them from the plugins each time.
    The CLI's entry point names one in the cache folder; a library user's process reads
    the plugins."""
    _kept_in[:] = [where] if where is not None else []
    vendor_rules.cache_clear()


@functools.cache
def vendor_rules() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """``(kind, regex)`` for every detect-secrets vendor rule, ``kind`` from its plugin."""
    if _kept_in:
        from skillopt_sleep.secrets import rule_file

        return rule_file.load(_kept_in[0](), _PLUGINS, _KINDS, _read_rules)
    return _read_rules()


def _read_rules() -> tuple[tuple[str, re.Pattern[str]], ...]:
    rules: list[tuple[str, re.Pattern[str]]] = []
    with _deferred("requests"):
        modules = [(name, importlib.import_module(f"detect_secrets.plugins.{name}"))
                   for name in _PLUGINS]
    for module_name, module in modules:
        for value in vars(module).values():
            # Only classes are asked (a module, the stand-in above, would load on the ask).
            denylist = getattr(value, "denylist", None) if isinstance(value, type) else None
            if isinstance(denylist, (list, tuple)):
                kind = _KINDS.get(module_name, module_name)
                rules.extend((kind, rule) for rule in denylist if isinstance(rule, re.Pattern))
    return tuple(rules)


# Token characters as ``a``, every other byte as a space: a run of twenty ``a`` in the
# translated bytes is a long token run, found at the speed of a substring search.
_RUN_TABLE = bytes(ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_-.")
                   else ord(" ") for b in range(256))
_RUN = b"a" * 20


def has_long_run(text: str) -> bool:
    """Whether ``text`` holds a run of twenty token characters (where every token lies)."""
    return _RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_TABLE)


_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")


def _candidates(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each long token run of ``text`` that may be a token (a sentence's full stop cut
    off): letters and digits both, and not a UUID."""
    if not has_long_run(text):
        return
    for run in LONG_RUN.finditer(text):
        token = run.group(0).rstrip(".")
        if _DIGIT.search(token) and _LETTER.search(token) and not _UUID.fullmatch(token):
            yield run, token


def may_find(text: str) -> bool:
    """False when ``find`` finds nothing in ``text``, or in any text it is joined from by a
    character that is not a token's (a run ends there, as at the end of a text)."""
    return next(_candidates(text), None) is not None


def find(text: str) -> list[Span]:
    """Every vendor token in ``text``: detect-secrets' rules, then the prefixed class."""
    found: list[Span] = []
    for run, token in _candidates(text):
        start = max(0, run.start() - 16)
        window = text[start : run.end() + 2]
        if _example(token):  # ``AKIAIOSFODNN7EXAMPLE``: the documentation's own
            continue
        span = _vendor(window) or _prefixed(token, run.start() - start) \
            or _no_separator(token, run.start() - start) \
            or _in_headers(text, run.start(), token, run.start() - start)
        if span is not None:  # the whole token run (a JWT's signature, a key's tail)
            run_end = run.start() + len(token)
            end = max(start + span[1], run_end) if span[1] > run.start() - start \
                else start + span[1]
            found.append((start + span[0], end, span[2]))
    return found


def _vendor(window: str) -> Span | None:
    for kind, rule in vendor_rules():
        match = rule.search(window)
        if match is None:
            continue
        # A rule's group is the secret when it is token-sized (AWS's secret after its
        # key name); a short one only spells alternatives (``(ghp|gho)_``).
        group = next((g for g in range(rule.groups, 0, -1)
                      if len(match.group(g) or "") >= 16), 0)
        start, end = match.span(group)
        while start < end and not window[start].isalnum():  # rules that eat a delimiter
            start += 1
        while end > start and not window[end - 1].isalnum() and window[end - 1] not in "=_-":
            end -= 1
        secret = window[start:end]
        if len(secret) >= 16 and re.search(r"[0-9]", secret) and re.search("[A-Za-z]", secret):
            return (start, end, kind)
    return None


def _no_separator(token: str, offset: int) -> Span | None:
    match = _NO_SEPARATOR.match(token)
    return (offset, offset + len(token), "prefixed_token") if match else None


def _prefixed(token: str, offset: int) -> Span | None:
    match = PREFIXED.match(token)
    if match is None or match.end() != len(token) or _UUID.search(token):
        return None
    prefix = match.group("prefix").lower()
    if prefix.rstrip("_-.").split("_")[0].split("-")[0] in _NOT_SECRET_PREFIX:
        return None
    # The body's longest piece between separators must look generated: a slug with an id
    # in it (``claude-code-viewer__5c0375b4``) has short pieces and words.
    longest = max(re.split(r"[-_]", match.group("body")), key=len)
    if not looks_random(longest):
        return None
    return (offset, offset + len(token), "prefixed_token")


# Headers are where credentials travel, and a header's name says less than a key's
# (``x-honeycomb-team``, ``X-Tenant``): a generated value given as a request header is one,
# whatever its name, unless the name says it is an id (``X-Request-Id``, ``traceparent``).
# Request headers are read in the forms a developer writes them: a command's ``-H``
# option, a mapping after a key named ``headers`` (code, JSON, YAML), and a list of
# ``name=value`` pairs given as one value (``OTEL_EXPORTER_OTLP_HEADERS=…``). A response
# dump's header lines are not: their generated values are ids and caches' marks.
_NAME = r"[\"']?(?P<name>[A-Za-z][\w\-]{0,60})[\"']?"
_HEADER_CONTEXTS = (
    re.compile(r"(?:^|\s)(?:-H|--header)[ \t=]*\\{0,7}[\"']?" + _NAME + r"[ \t]*:[ \t]*\Z"),
    re.compile(r"(?i)headers?\\{0,7}[\"']?[ \t]*[:=(][ \t]*(?:dict\(|\{)(?:[^{}]{0,300}?[,\s])?"
               r"[ \t]*\\{0,7}" + _NAME + r"\\{0,7}[ \t]*[:=][ \t]*\\{0,7}[\"']\Z"),
    re.compile(r"(?i)headers?:[ \t]*\r?\n(?:[ \t]+[\w\-]+:[^\n]*\n){0,12}[ \t]+" + _NAME
               + r":[ \t]*[\"']?\Z"),
    re.compile(r"(?i)headers?\\{0,7}[\"']?[ \t]*[:=][ \t]*\\{0,7}[\"']?"
               r"(?:[^\s\"'=,;&]+=[^\s\"',;&]*[,;&][ \t]?)*(?P<name>[^\s\"'=,;&]+)=\Z"),
)
_ID_WORDS = ("id", "trace", "request", "correlation", "etag", "version", "nonce", "span",
             "parent", "session", "cursor")


def _in_headers(text: str, at: int, token: str, offset: int) -> Span | None:
    """The token at ``text[at:]`` as a request header's generated value, if it is one."""
    before = max(0, at - 600)
    # Most tokens (ids, digests) have no header near: a few scans in C, nothing copied.
    if all(text.find(word, before, at) < 0 for word in ("eader", "EADER", "-H")):
        return None
    if not looks_random(max(re.split(r"[-_.]", token), key=len)):
        return None
    for context in _HEADER_CONTEXTS:
        found = context.search(text, before, at)
        if found is not None:
            name = found.group("name").lower()
            if any(word in name for word in _ID_WORDS):
                return None
            return (offset, offset + len(token), "header_value")
    return None
