"""Assignments whose key names a secret, in every format a developer's files and tools use.

One reader covers them by their shared shape, a key then a separator then a value:
shell and ``.env`` (``export DB_PASSWORD=…``), YAML (``password: …``), JSON
(``"password": "…"``, also JSON-escaped inside JSON), TOML, INI, tfvars, HCL and
properties (``key = "…"``), Java options (``-Djavax.net.ssl.keyStorePassword=…``), URL
query parameters (``&X-Amz-Signature=…``), connection strings (``…;Password=…;``), HTTP
headers (``Authorization: Bearer …``), XML elements (``<password>…</password>``),
name/value pairs (``<add key="ApiKey" value="…"/>``, ``{"name": "DB_PASSWORD", "value":
"…"}``), ``.netrc`` (``machine h login u password …``) and ``.pgpass`` lines.

Detection starts from a secret word (``pass``, ``token``, ``key``, …) found in the
lower-cased text, widens it to the whole key, and only then reads what follows: most text
holds no such word, and a word that is not a key costs one dictionary look-up.
"""

from __future__ import annotations

import functools
import re

from skillopt_sleep.secrets.values import (
    Name,
    looks_random,
    name_of,
    password_like,
    plausible_secret,
)

__all__ = ["HINTS", "HINT_GROUPS", "find", "find_pgpass", "keyed", "may_hold_pgpass",
           "value_at"]

Span = tuple[int, int, str]

# Substrings one of which every key that names a secret holds (lower-cased), grouped under
# the word they refine: ``passes``, ``path``, ``signed`` and ``session`` fill ordinary text,
# so a text with a word but none of its refinements is not read at all. The prefilter
# (``secrets.prefilter``) reads these groups.
HINT_GROUPS: dict[str, tuple[str, ...]] = {
    "pass": ("passw", "passph", "passc", "_pass", "-pass", "pass=", "pass:", '"pass',
             "storepass", "keypass", "requirepass"),
    "sig": ("sig=", "signature"),
    "session": ("session=", "session_", "sessionid", '"session"', "session:"),
    "pat": ("pat=", "pat:", 'pat"'),
    "pwd": (), "secret": (), "token": (), "key": (), "auth": (), "credential": (),
    "cookie": (), "bearer": (),
}
HINTS = tuple(h for word, refined in HINT_GROUPS.items() for h in (refined or (word,)))


_HIT = re.compile("pass|pwd|secret|token|key|auth|credential|sig|cookie|session|bearer|pat")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_MAX_VALUE = 1024

# After the key: an optional closing quote (JSON-escaped or not) and subscript bracket
# (``config["SECRET_KEY"] = …``), an index (``Unseal Key 1: …``), then the separator.
_SEP = re.compile(r"(?P<close>\\{0,7}[\"'])?\]?(?:[ \t]+#?[0-9]{1,2}(?=[ \t]*[:=]))?[ \t]*"
                  r"(?P<sep>:=|=>|=(?!=)|:(?![/:])|[ \t]+)[ \t]*")
# ``Authorization: Bearer …``: the scheme word stays readable, the credential goes.
_SCHEME = re.compile(r"(?i)(?:basic|bearer|token|digest|negotiate|ntlm|apikey|sso-key|ssws"
                     r"|splunk|geniekey|aws4-hmac-sha256|key)[ \t]+")
# ``key="ApiKey" value="…"``, ``"name": "DB_PASSWORD", "value": "…"``.
_PAIR_VALUE = re.compile(r"\\{0,7}[\"'][ \t]*[,;]?[ \t]*\\{0,7}[\"']?"
                         r"(?:[Vv]alue|VALUE|ParameterValue|SecretString|secretValue)"
                         r"\\{0,7}[\"']?[ \t]*[:=][ \t]*")
# ``variable "db_password" { default = "…" }`` (Terraform).
_HCL_DEFAULT = re.compile(r"\\{0,7}[\"'][ \t]*\{[^}\n]{0,80}?\bdefault[ \t]*=[ \t]*")
# A YAML block scalar (``secret: |`` then the value on indented lines).
_YAML_BLOCK = re.compile(r"[|>][-+]?[ \t]*(?:\r?\n|\\+n)[ \t]+(?P<v>[^\s\\]+(?:(?:\r?\n|\\+n)"
                         r"[ \t]+[^\s\\]+)*)")
_ATTR_TEXT = re.compile(r"\\{0,7}[\"'][^>\n]{0,100}>(?P<v>[^<\n]{1,512})</")
_XML_VALUE = re.compile(r"(?:[ \t][^>\n]{0,200})?>(?P<v>[^<\n]{1,512})</")
_QUOTE = re.compile(r"\\{0,7}[\"']")
# An unquoted value ends at white space or a quote; inside it, a shell operator, the next
# ``;Key=`` of a connection string, ``&key=`` of a query or a JSON escape ends it too.
_BARE = re.compile(r"[^\s\"'`<>]+")
_BARE_STOP = re.compile(r"&&|\|\||\||;(?=[\w .\-]*=)|&(?=[\w.\-]+=)|\\+[nrt\"']|\\$")
# ``host:port:database:user:password``, the host at a line's start or after a space.
_PGPASS_HOST = re.compile(r"(?:^|(?<=[\s\"'])|(?<=\\[nr]))[^\s:#\\\"'=]+$", re.M)
_PGPASS_REST = re.compile(
    r"[^\s:\\\"']+:[^\s:\\\"']+:(?P<v>[^\s:\\\"']{4,})(?=$|[\s\"']|\\+[nr\"'])", re.M)
_NETRC = re.compile(r"(?:\b|(?<=\\[nrt]))(?:machine\s+\S+|default\s+login\b)")
_LINE_START = re.compile(r"(?:^|\n|\\+n|&&|;|\|)[ \t]*\Z")  # a line's or a command's start
_TO_LINE_END = re.compile(r"[^\s\\\"]{6,128}[ \t]*(?:$|\r?\n|\\+n|\\*\")", re.M)
_WS_LEAD = re.compile(r"(?:(?:is|was|set to)[ \t]+)?")


def find(text: str, low: str) -> list[Span]:
    """Every value in ``text`` given after a key that names a secret (``low`` is
    ``text.lower()`` when that keeps positions, else ``text`` itself)."""
    found: list[Span] = []
    edge = 0
    for hit in _HIT.finditer(low):
        if hit.start() < edge:
            continue
        start, end = _widen(text, hit.start(), hit.end())
        edge = end
        if start and text[start - 1] in "$%{":  # ``$DB_PASSWORD``, ``%TOKEN%``: a reference
            continue
        name = name_of(text[start:end])
        if name is Name.NONE:
            continue
        span = _value_after(text, start, end, name)
        if span is not None:
            found.append(span)
            edge = max(edge, span[1])
    return found


def keyed(key: str, value: str) -> bool:
    """Whether ``value``, given whole under ``key`` (a mapping's: a tool's input, a JSON
    object), is a secret: judged as a quoted value after that key in text is
    (``"password": "hunter2"``). A value alone says nothing of its key."""
    if len(value) > _MAX_VALUE:
        return False  # longer than any value read after a key: the text rules read it
    name = _key_name(key)
    return name is not Name.NONE and _judged(value, 0, len(value), name) is not None


@functools.lru_cache(maxsize=4096)
def _key_name(key: str) -> Name:
    return name_of(key)  # a harvest sees the same few argument names again and again


_PORT_FIELD = re.compile(r":(?:[0-9]{1,5}|\*):")
# The port field and what ``_PGPASS_REST`` needs of the rest, without its end (a text
# joined to others, ``may_hold_pgpass``, ends where the next begins): a clock's
# ``14:00:00.000Z`` has the field, never the two fields and the value after it.
_PGPASS_LINE = re.compile(_PORT_FIELD.pattern + r"[^\s:\\\"']+:[^\s:\\\"']+:[^\s:\\\"']{4}")


def may_hold_pgpass(text: str) -> bool:
    """False when ``find_pgpass`` finds nothing in ``text`` or any text it is joined from."""
    return ":" in text and _PGPASS_LINE.search(text) is not None


def find_pgpass(text: str) -> list[Span]:
    """The password field of ``.pgpass`` lines (``host:port:database:user:password``),
    read outward from the port field (a search that starts with a literal is fast)."""
    found: list[Span] = []
    for port in _PORT_FIELD.finditer(text):
        host = _PGPASS_HOST.search(text, max(0, port.start() - 255), port.start())
        rest = _PGPASS_REST.match(text, port.end())
        if host and rest and plausible_secret(rest.group("v"), Name.STRONG):
            found.append((rest.start("v"), rest.end("v"), "pgpass"))
    return found


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    while start and text[start - 1] in _KEY_CHARS:
        start -= 1
    while end < len(text) and text[end] in _KEY_CHARS:
        end += 1
    if start and text[start - 1] == "\\" and text[start] in "nrt":  # after a JSON ``\\n``
        start += 1
    while start < end and text[start] in ".-":  # ``--password``, ``-Dkey``: option dashes
        start += 1
    return start, end


def _value_after(text: str, start: int, end: int, name: Name) -> Span | None:
    """The secret value given to the key at ``text[start:end]``, if one is."""
    if start and text[start - 1] == "<":
        xml = _XML_VALUE.match(text, end)
        if xml:
            return _judged(text, xml.start("v"), xml.end("v"), name)
    pair = _PAIR_VALUE.match(text, end) or _HCL_DEFAULT.match(text, end)
    if pair:
        return _value_at(text, pair.end(), name, strict=False)
    element = _ATTR_TEXT.match(text, end) if start and text[start - 1] in "\"'" else None
    if element:  # ``<entry key="db.password">VALUE</entry>``
        return _judged(text, element.start("v"), element.end("v"), name)
    sep = _SEP.match(text, end)
    if sep is None:
        return None
    pos = sep.end()
    strict = sep.group("sep").strip() == ""
    told = False
    if strict:
        lead = _WS_LEAD.match(text, pos)
        told = bool(lead and lead.end() > pos)
        if told and lead:
            pos = lead.end()
        elif _NETRC.search(text, max(0, start - 300), start):
            strict = False  # ``.netrc``: ``password`` and its value are separated by a space
        else:  # a config directive, alone on its line: ``requirepass VALUE`` (redis.conf)
            told = bool(text[start].islower()
                        and _LINE_START.search(text, max(0, start - 40), start)
                        and _TO_LINE_END.match(text, pos))
    key = text[start:end].lower()
    if key.endswith("cookie"):  # ``Cookie: a=1; connect.sid=…``: every generated value
        return _cookie(text, pos)
    if key.endswith(("authorization", "auth")) or strict:
        scheme = _SCHEME.match(text, pos)
        pos = scheme.end() if scheme else pos
    return _value_at(text, pos, name, strict, told)


def value_at(text: str, pos: int, name: Name) -> Span | None:
    """The secret value that starts at ``pos`` (after a separator), judged under ``name``."""
    return _value_at(text, pos, name, strict=False)


# A literal handed to a decoder or a bytes wrapper: ``bytes.fromhex("…")``, ``[]byte("…")``,
# ``base64.b64decode('…')``, ``Buffer.from("…", "hex")``, ``Convert.FromBase64String("…")``.
_WRAPPED = re.compile(r"(?:new[ \t]+)?(?:[A-Za-z_$][\w$]*\.)*(?P<fn>\[\]byte|[A-Za-z_]\w*)"
                      r"[ \t]*\([ \t]*(?=[bBrRuU]?\\{0,7}[\"'])")
_DECODERS = frozenset({
    "fromhex", "b64decode", "urlsafe_b64decode", "standard_b64decode", "unhexlify",
    "a2b_hex", "a2b_base64", "[]byte", "bytes", "bytearray", "from", "frombase64string",
    "decodestring", "hexdecode", "getbytes", "secretkeyspec", "secretstr", "atob", "decode",
    "hex2bin", "base64_decode", "tochararray", "encode", "str", "string",
})
_PREFIXED_LITERAL = re.compile(r"[bBrRuU]{1,2}(?=\\{0,7}[\"'])")
# ``x = getenv("X", "fallback")``, ``credentials('n') ?: 'fallback'``, ``env.X || "fallback"``.
_FALLBACK = re.compile(r"[^\n;]{0,160}?(?:\?:|\|\||\?\?|[ \t]or[ \t]|(?:getenv|get|getProperty|"
                       r"fetch|env|getOrDefault)\([ \t]*(?P<q>\\{0,7}[\"'])[\w.\-/]{1,80}(?P=q)"
                       r"[ \t]*,)[ \t]*(?=\\{0,7}[\"'])")


def _value_at(text: str, pos: int, name: Name, strict: bool, told: bool = False
              ) -> Span | None:
    block = _YAML_BLOCK.match(text, pos) if not strict else None
    if block:
        first = re.split(r"\r?\n|\\+n", block.group("v"))[0]
        if plausible_secret(first.strip(), name):
            return (block.start("v"), block.end("v"), "password_pair")
        return None
    if not strict:
        pos = _unwrapped(text, pos, name)
    quote = _QUOTE.match(text, pos)
    if quote:
        body = _quoted(quote.group(0)).match(text, quote.end())
        if body:  # a quoted value after a space: a DSL's (``storePassword "…"``, SQL's)
            return _judged(text, body.start(1), body.end(1), name, strict, told or strict)
        pos = quote.end()  # never closed (a clip cut it): the value runs to a space
    if not strict and text.startswith("{", pos) and text[pos - 1 : pos] != "{":
        braced = _BRACED.match(text, pos)  # ODBC: ``Pwd={p;a=ss};``
        if braced and plausible_secret(braced.group("v"), name):
            return (braced.start("v"), braced.end("v"), "password_pair")
    bare = _BARE.match(text, pos)
    if not bare:
        return None
    value_end = bare.end()
    stop = _BARE_STOP.search(text, pos, value_end)
    if stop:
        value_end = stop.start()
    while value_end > pos and text[value_end - 1] in ".,;:)]}":
        value_end -= 1
    return _judged(text, pos, min(value_end, pos + _MAX_VALUE), name, strict, told)


_BRACED = re.compile(r"\{(?P<v>[^{}\n\\\"']{1,256})\}")


def _unwrapped(text: str, pos: int, name: Name) -> int:
    """Where the literal a decoder, a bytes prefix or a fallback holds starts, else ``pos``."""
    prefixed = _PREFIXED_LITERAL.match(text, pos)
    if prefixed:
        return prefixed.end()
    wrapped = _WRAPPED.match(text, pos)
    if wrapped and wrapped.group("fn").lower() in _DECODERS:
        inner = _PREFIXED_LITERAL.match(text, wrapped.end())
        return inner.end() if inner else wrapped.end()
    if name is Name.STRONG and text[pos : pos + 1].isalpha():
        fallback = _FALLBACK.match(text, pos)
        if fallback:
            return fallback.end()
    return pos


def _cookie(text: str, pos: int) -> Span | None:
    """A ``Cookie`` header's generated values, from the first to the last (a cookie's name
    says little: ``connect.sid``, ``_session_id``, ``laravel_session``, ``PHPSESSID``)."""
    end = _line_end(text, pos)
    spans = [(pos + pair.start("v"), pos + pair.end("v"))
             for pair in re.finditer(r"(?P<n>[^=;\s]+)=(?P<v>[^;\s\\\"']+)", text[pos:end])
             if looks_random(re.sub(r"%[0-9A-Fa-f]{2}|[.]", "", pair.group("v")))]
    return (spans[0][0], spans[-1][1], "password_pair") if spans else None


def _line_end(text: str, pos: int) -> int:
    ends = [e for e in (text.find("\n", pos), text.find("\\n", pos)) if e >= 0]
    return min(ends, default=len(text))


@functools.lru_cache(maxsize=16)
def _quoted(quote: str) -> re.Pattern[str]:
    """The body of a value opened by ``quote`` (``"``, ``'``, ``\\"``, …), up to its close."""
    if quote in ('"', "'"):
        return re.compile(rf"((?:[^{quote}\\\n]|\\.){{1,{_MAX_VALUE}}}){quote}")
    close = re.escape(quote)
    return re.compile(rf"((?:(?!{close})[^\n]){{1,{_MAX_VALUE}}}){close}")


def _judged(text: str, start: int, end: int, name: Name, strict: bool = False,
            told: bool = False) -> Span | None:
    """A span if ``text[start:end]`` is a secret; ``strict``: it came after a space, so only
    a generated value counts, or one that mixes signs in after ``is``/``was`` or in quotes
    (``told``)."""
    value = text[start:end]
    if not plausible_secret(value, name, text[end : end + 1], text[max(0, start - 2) : start]):
        return None
    if strict and not (looks_random(value) or (told and password_like(value))):
        return None
    return (start, end, "password_pair")
