"""Credentials inside URLs: the password of ``scheme://user:password@host`` and a token
given as the whole userinfo (``https://ghp_…@github.com``, ``https://TOKEN@host``).

Signature and token query parameters (``X-Amz-Signature``, ``X-Goog-Signature``, Azure
SAS ``sig``, ``access_token``, ``key``) are read by the assignment reader, whose key
words cover them; a query value ends at ``&``.
"""

from __future__ import annotations

import re

from skillopt_sleep.secrets.values import Name, looks_random, plausible_secret

__all__ = ["HINTS", "find"]

Span = tuple[int, int, str]

HINTS = ("://", "@tcp(", "@unix(", "@//", ":thin:", "connect ", "conn ")
"""Every URL this module reads holds the first (a webhook URL is an ``http(s)://`` one
too); the others start the connection strings that are not URLs (Go's MySQL DSN, Oracle's
``user/password@host``)."""

# ``user:password@tcp(host:3306)/db`` (Go's MySQL driver); ``scott/tiger@//host:1521/svc``,
# ``jdbc:oracle:thin:scott/tiger@host``, ``CONNECT scott/tiger@orcl`` (Oracle).
_GO_DSN = re.compile(r"(?<![\w/:@.\-])[\w.\-]{1,64}:(?P<pw>[^\s@/\"'`:]{1,128})@(?:tcp|unix|udp)\(")
_ORACLE = re.compile(
    r"(?i)(?::thin:|(?:\b|(?<=\\[nrt]))conn(?:ect)?[ \t]+)"
    r"[A-Za-z_][\w$#.]{0,29}/(?P<pw>[^\s/@\"'`]{1,128})@"
    r"|(?<![\w/.@\-])[A-Za-z_][\w$#]{0,29}/(?P<pw2>[^\s/@\"'`]{1,128})@(?=//|\((?i:description))")
# A secret-named path segment's next segment: ``…/with/key/VALUE`` (IFTTT), ``/token/VALUE``.
_PATH_SLOT = re.compile(r"(?i)/(?:key|token|apikey|api_key|api-key|secret|access_token|auth)"
                        r"/(?P<v>[^/\s?#\"'<>`\\]{8,256})")

_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://(?P<user>[^\s:/@\"'<>`]{0,256})"
    r"(?::(?P<password>[^\s@/\"'<>`]{1,512}))?@(?=[A-Za-z0-9\[])"
)


# A webhook URL is a credential by itself: whoever holds it can post. Its generated path
# segments are the secret (``hooks.slack.com/services/T…/B…/SECRET``,
# ``discord.com/api/webhooks/ID/SECRET``, ``…/webhook/SECRET``).
_WEBHOOK = re.compile(r"https?://[^\s\"'<>`\\]*?(?:hook)[^\s\"'<>`?#\\]*", re.IGNORECASE)
_SEGMENT = re.compile(r"(?<=/)[^/\s\"'<>`?#\\]{6,}")


def _hook_secret(segment: str) -> bool:
    """A webhook path's generated segment: long and random (Slack, Discord), or short with
    letters and digits mixed (Zapier's ``catch/ACCOUNT/3kq9xzb``); never a host or a word."""
    if "." in segment:
        return False
    if len(segment) >= 16:
        return looks_random(segment)
    return bool(re.fullmatch(r"[a-z0-9]*(?:[a-z][0-9]|[0-9][a-z])[a-z0-9]*", segment))


def _connection_strings(text: str) -> list[Span]:
    found: list[Span] = []
    low = text.lower()
    patterns = [p for p, words in ((_GO_DSN, ("@tcp(", "@unix(", "@udp(")),
                                   (_ORACLE, (":thin:", "conn", "@//", "@(description")))
                if any(w in low for w in words)]
    for pattern in patterns:
        for match in pattern.finditer(text):
            group = "pw2" if match.groupdict().get("pw2") else "pw"
            if plausible_secret(match.group(group), Name.STRONG):
                found.append((*match.span(group), "connection_string"))
    return found


def find(text: str) -> list[Span]:
    """Every secret in the userinfo of a URL in ``text``, and webhook URLs' secrets."""
    found: list[Span] = []
    low = text.lower()
    if "hook" in low:
        for hook in _WEBHOOK.finditer(text):
            found.extend((hook.start() + s.start(), hook.start() + s.end(), "webhook_url")
                         for s in _SEGMENT.finditer(hook.group(0)) if _hook_secret(s.group(0)))
    if "@" in text:
        found += _connection_strings(text)
    if "://" in text:
        found.extend((*m.span("v"), "connection_string") for m in _PATH_SLOT.finditer(text)
                     if plausible_secret(m.group("v"), Name.STRONG) and looks_random(m.group("v")))
    for match in _USERINFO.finditer(text):
        password = match.group("password")
        if password is not None:
            if plausible_secret(password, Name.STRONG) or looks_random(password):
                found.append((*match.span("password"), "connection_string"))
            elif looks_random(match.group("user")):  # ``TOKEN:x-oauth-basic@``
                found.append((*match.span("user"), "connection_string"))
        elif looks_random(match.group("user")):
            found.append((*match.span("user"), "connection_string"))
    return found
