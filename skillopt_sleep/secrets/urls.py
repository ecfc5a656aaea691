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

HINTS = ("://",)
"""Every URL this module reads holds it (a webhook URL is an ``http(s)://`` one too)."""

_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://(?P<user>[^\s:/@\"'<>`]{0,256})"
    r"(?::(?P<password>[^\s@/\"'<>`]{1,512}))?@(?=[A-Za-z0-9\[])"
)


# A webhook URL is a credential by itself: whoever holds it can post. Its generated path
# segments are the secret (``hooks.slack.com/services/T…/B…/SECRET``,
# ``discord.com/api/webhooks/ID/SECRET``, ``…/webhook/SECRET``).
_WEBHOOK = re.compile(r"https?://[^\s\"'<>`\\]*?(?:hook)[^\s\"'<>`?#\\]*", re.IGNORECASE)
_SEGMENT = re.compile(r"[^/\s\"'<>`?#\\]{16,}")


def find(text: str) -> list[Span]:
    """Every secret in the userinfo of a URL in ``text``, and webhook URLs' secrets."""
    found: list[Span] = []
    if "hook" in text.lower():
        for hook in _WEBHOOK.finditer(text):
            found.extend((hook.start() + s.start(), hook.start() + s.end(), "webhook_url")
                         for s in _SEGMENT.finditer(hook.group(0))
                         if looks_random(s.group(0)) and "." not in s.group(0))
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
