"""Secret slots that are not ``key = value``: a value in the place a secret noun, a
credential-taking call or a sibling field governs.

- *prose*: a secret noun in any of the common languages (``password``, ``mot de passe``,
  ``contraseña``, ``Passwort``, ``senha``, ``пароль``, ``パスワード`` …), an optional
  qualifier (``for the staging db``), a copula (``is``, ``est``, ``ist``, ``lautet``, ``é``,
  ``:``, ``=``) and the value; or the noun then the value at once (``use pw X``, ``with
  password `X```, SQL's ``IDENTIFIED BY 'X'``). A value counts when it mixes letters with
  digits or signs, or looks generated; a generated value also counts a few words after the
  noun (``the API key you gave me, 9f2c…, works``).
- *calls*: the argument a credential-taking call takes its password in, by the call's
  kind: a connection's third (``new PDO(dsn, user, PASS)``, ``mysqli_connect(h, u, PASS)``,
  ``getConnection(url, user, PASS)``, ``new Sequelize(db, user, PASS)``), a login's or a
  basic-auth pair's second (``smtp.login(user, PASS)``, ``auth=(user, PASS)``), a signing
  call's key (``jwt.encode(payload, KEY)``). Only a string literal is read.
- *siblings*: a ``value`` field of an object (JSON, or a YAML list item) whose sibling
  ``name``/``key`` names a secret, whose own key names one, or that is marked
  ``"sensitive": true`` (Terraform state), ``SecureString`` (AWS SSM).
"""

from __future__ import annotations

import json
import re

from skillopt_sleep.secrets.values import (
    Name,
    looks_random,
    name_of,
    password_like,
    plausible_secret,
)

__all__ = ["ASCII_HINTS", "CALL_HINTS", "ESCAPED_HINTS", "NOUNS", "WIDE_HINTS", "find"]

Span = tuple[int, int, str]

# Secret nouns, lower-cased, the password family first (said then a value at once).
_PASSWORD_WORDS = (
    "password", "passwort", "passwd", "passphrase", "passcode", "mot de passe", "mdp",
    "contraseña", "contrasena", "kennwort", "senha", "wachtwoord", "lösenord", "losenord",
    "passord", "adgangskode", "hasło", "haslo", "heslo", "şifre", "sifre", "parola",
    "salasana", "jelszó", "jelszo", "пароль", "パスワード", "密码", "密碼", "비밀번호",
    "κωδικός", "kata sandi", "mật khẩu", "clave", "pw", "pwd", "identified by",
)


def _escaped(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` and, for those that are not ASCII, their JSON-escaped spelling (a JSON
    text written with ``ensure_ascii``: ``contrase\\u00f1a``, once and twice), lower-cased."""
    once = tuple(json.dumps(w)[1:-1].lower() for w in words if not w.isascii())
    return words + once + tuple(json.dumps(w)[1:-1] for w in once)


_PASSWORD_NOUNS = _escaped(_PASSWORD_WORDS)
_OTHER_NOUNS = ("api key", "api-key", "apikey", "token", "secret", "access key",
                "secret key", "private key", "credentials", "credential")
NOUNS = _PASSWORD_NOUNS + _OTHER_NOUNS
# What the prefilter looks for (lower-cased): ASCII nouns the assignment words do not hold
# (``WIDE_HINTS`` only in a text that is not ASCII), and the calls' names.
ASCII_HINTS = ("mot de passe", "mdp", "contrasena", "kennwort", "senha", "wachtwoord",
               "losenord", "passord", "adgangskode", "haslo", "heslo", "sifre", "parola",
               "salasana", "jelszo", " clave", "identified by", " pw ", " pw:", "`pw",
               "kata sandi")
ESCAPED_HINTS = tuple(n for n in NOUNS if n.isascii() and "\\u" in n)  # only after ``\u``
WIDE_HINTS = tuple(n for n in NOUNS if not n.isascii())

_COPULAS = ("is", "was", "are", "'s", "’s", "=", ":", "->", "—", "-", "is now", "is still",
            "should be", "will be", "set to", "changed to", "now is", "est", "es", "ist",
            "lautet", "é", "è", "är", "er", "jest", "je", "to", "это", "は", "是", "为", "為",
            "는", "είναι", "on", "van", "adalah", "là", "era", "sera", "será", "war", "wird",
            "vaut")
# Copulas of languages written without spaces between words (``密码是 X``, ``パスワードは X``).
_CJK_COPULA = "(?:" + "|".join(
    re.escape(c) for c in _escaped(("是", "为", "為", "は", "：", "는", "은"))) + ")"
_COPULA = "(?:" + "|".join(re.escape(c) for c in sorted(_escaped(_COPULAS), key=len,
                                                         reverse=True)) + ")"
# ``the password [for the staging db] is VALUE``: a qualifier of up to six words that starts
# with a preposition (``for``, ``of``, ``de``, ``für`` …) or a possessive.
_QUALIFIER = (r"(?:[ \t]+(?:(?:for|of|to|on|at|in|de|du|des|del|della|dello|di|da|do|für|fur|"
              r"von|vom|para|per|voor|van|för|dla|для|от|の)(?:[ \t]+[^\s:=]{1,40}){1,5}?"
              r"|(?:dell|dall|all|d|l)['’][^\s:=]{1,40}(?:[ \t]+[^\s:=]{1,40}){0,4}?))?")
_VALUE = r"[ \t]*[\"'`“‘«]?(?P<v>[^\s\"'`”’»<>\\]{4,128})"
_TOLD_BY = (r"[ \t]*(?:[:：=][ \t]*|[ \t]" + _COPULA + r"[ \t:]+|" + _CJK_COPULA
            + r"[ \t:：]*)(?:now[ \t]+|still[ \t]+)?[\"'`“‘«]?")
_TOLD = re.compile(_TOLD_BY + r"(?P<v>[^\s\"'`”’»<>\\]{4,128})", re.IGNORECASE)
# A code given in groups (``abcd efgh ijkl mnop``, ``4F2K-9XQ3-77ZB``): app passwords,
# recovery and licence codes are shown to people that way.
_TOLD_GROUPED = re.compile(_TOLD_BY + r"(?P<v>[A-Za-z0-9]{3,8}(?:[ \-][A-Za-z0-9]{3,8}){2,7})"
                           r"(?![\w\-])", re.IGNORECASE)
_QUALIFIED_TOLD = re.compile(_QUALIFIER + r"[ \t]+" + _COPULA + r"[ \t:]+" + _VALUE,
                             re.IGNORECASE)
_AT_ONCE = re.compile(r"[ \t]+[\"'`“‘«]?(?P<v>[^\s\"'`”’»<>\\]{4,128})")
# A generated value a few words after the noun, none of them a word that names another
# thing the value would then be (an id, a digest, a path).
_NEAR = re.compile(r"(?P<gap>(?:[ \t,]+[^\s]{1,20}){0,5}?)[ \t,:(]+[\"'`]?"
                   r"(?P<v>[A-Za-z0-9+/_\-=]{16,256})")
_NOT_THE_VALUE = re.compile(r"(?i)\b(?:id|ids|sha|hash|digest|commit|checksum|fingerprint|"
                            r"version|name|file|path|url|uuid|for|in|at|from|of|named|called)\b")


def find(text: str, low: str) -> list[Span]:
    """Every secret in a prose, call or sibling slot of ``text`` (``low``: lower-cased)."""
    found = _prose(text, low)
    if "(" in text:
        found += _calls(text, low)
    if "value" in low:
        found += _siblings(text, low)
    return found


def _prose(text: str, low: str) -> list[Span]:
    found: list[Span] = []
    for noun in NOUNS:
        at = low.find(noun)
        while at >= 0:
            end = at + len(noun)
            if _word_bounded(low, at, end):
                span = _after_noun(text, end, noun in _PASSWORD_NOUNS)
                if span:
                    found.append(span)
            at = low.find(noun, end)
    return found


def _word_bounded(low: str, start: int, end: int) -> bool:
    before = low[start - 1] if start else " "
    after = low[end] if end < len(low) else " "
    if before.isalnum() or before in "_-$%{.":
        return before == "n" and low[max(0, start - 2):start] == "\\n"
    return not ((after.isascii() and after.isalnum()) or after in "_-.")  # 密码是: no spaces


def _after_noun(text: str, end: int, password: bool) -> Span | None:
    for pattern in (_TOLD, _QUALIFIED_TOLD):
        told = pattern.match(text, end)
        if told and _judge(told.group("v"), generated_only=False):
            return _span(text, told.start("v"), told.group("v"))
    grouped = _TOLD_GROUPED.match(text, end)
    if grouped and _generated_groups(grouped.group("v")):
        return (grouped.start("v"), grouped.end("v"), "password_pair")
    if password:
        once = _AT_ONCE.match(text, end)
        if once and _judge(once.group("v"), generated_only=False) and \
                not once.group("v").lower().startswith(("is", "was")):
            return _span(text, once.start("v"), once.group("v"))
    near = _NEAR.match(text, end)
    if near and not _NOT_THE_VALUE.search(near.group("gap")) \
            and not _DIGEST.fullmatch(near.group("v")) \
            and _judge(near.group("v"), generated_only=True):
        return _span(text, near.start("v"), near.group("v"))
    return None


# A commit or content digest a few words after "token" (``fix the token refresh 3f2a…``).
_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _judge(value: str, generated_only: bool) -> bool:
    core = value.rstrip(".,;:)]}")
    if not plausible_secret(core, Name.STRONG):
        return False
    if "/" in core and not looks_random(core):  # ``pwd /srv/app1``: a path, not a password
        return False
    return looks_random(core) or (not generated_only and password_like(core))


def _generated_groups(value: str) -> bool:
    """Groups of one length that read as generated, not as words or numbers: at least half
    of them mix letters and digits. (Letters alone are not told from words here: English
    runs of equal-length words were measured to pass every letter-frequency test tried.)"""
    groups = re.split(r"[ \-]", value)
    if len({len(g) for g in groups}) != 1 or len(set(value.lower()) - set(" -")) < 6:
        return False
    mixed = sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups)
    return 2 * mixed >= len(groups)


def _span(text: str, start: int, value: str) -> Span:
    core = value.rstrip(".,;:)]}")
    return (start, start + len(core), "password_pair")


# A call that takes a credential, and which argument holds it: a connection's third, a
# login's or a pair's second, a JWT/HMAC signing call's key.
_CONNECT = ("pdo", "mysqli", "mysqli_connect", "mysql_connect", "pg_connect", "oci_connect",
            "db2_connect", "getconnection", "sequelize", "createconnection", "connect",
            "mysqlconnection", "sqlconnection")
_PAIR = ("login", "simple_bind_s", "simple_bind", "bind_s", "basicauth", "httpbasicauth",
         "httpdigestauth", "networkcredential", "authenticate", "plainauth", "setbasicauth",
         "usernamepasswordcredentials", "passwordauthentication", "with_credentials")
_SIGN = ("encode", "sign", "verify", "decode", "createhmac")
_OPEN = re.compile(r"[ \t]*\(")
_LITERAL = re.compile(r"[ \t]*(?P<q>\\{0,7}[\"'`])(?P<v>(?:(?!(?P=q))[^\n]){1,256})(?P=q)[ \t]*$")
# ``auth=(user, PASS)``, ``credentials: ['user', 'PASS']``: a pair given to a credential key.
_PAIR_KEY = re.compile(r"(?i)\b(?:auth|basic_auth|credentials|http_auth)[\"']?[ \t]*[:=][ \t]*"
                       r"[(\[][ \t]*")
# (``auth`` and ``credential`` are assignment words: a text holding them is read anyway.)
CALL_HINTS = ("connect", "pdo", "mysqli", "sequelize", "login", "bind", "jwt", "createhmac")


def _calls(text: str, low: str) -> list[Span]:
    """Found from each call name's substring (a scan in C), never by a pattern tried at
    every position of the text."""
    found: list[Span] = []
    for name in _CONNECT + _PAIR + _SIGN:
        at = low.find(name)
        while at >= 0:
            end = at + len(name)
            opened = _OPEN.match(low, end)
            if opened and not (at and (low[at - 1].isalnum() or low[at - 1] in "_$")) \
                    and (name not in _SIGN or name == "createhmac"
                         or "jwt" in low[max(0, at - 12) : at]):
                found += _argument(text, opened.end(), 2 if name in _CONNECT else 1)
            at = low.find(name, end)
    if "auth" in low or "credentials" in low:
        for pair in _PAIR_KEY.finditer(text):
            found += _argument(text, pair.end(), 1)
    return found


def _argument(text: str, start: int, index: int) -> list[Span]:
    """The string literal at argument ``index`` of the list that starts at ``start``."""
    args = _split_args(text, start)
    if len(args) <= index:
        return []
    a_start, a_end = args[index]
    literal = _LITERAL.match(text[a_start:a_end])
    if not literal:
        return []
    value = literal.group("v")
    if not plausible_secret(value, Name.STRONG) or not (password_like(value)
                                                         or looks_random(value)):
        return []
    return [(a_start + literal.start("v"), a_start + literal.end("v"), "password_pair")]


def _split_args(text: str, start: int) -> list[tuple[int, int]]:
    """Argument spans of a call (depth 0 commas, quotes kept whole), within one line."""
    args: list[tuple[int, int]] = []
    depth, quote, begin, escaped = 0, "", start, False
    for pos in range(start, min(len(text), start + 400)):
        char = text[pos]
        if quote:  # a quote opened as ``\"`` (JSON-escaped source) closes as one
            if char == quote and (text[pos - 1] == "\\") == escaped:
                quote = ""
        elif char in "\"'`":
            quote, escaped = char, text[pos - 1] == "\\"
        elif char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char in ")]}" or char == "\n" or (char == ";" and not depth):
            args.append((begin, pos))
            return args
        elif char == "," and not depth:
            args.append((begin, pos))
            begin = pos + 1
    return args


_NL = r"(?:\r?\n|\\{1,7}n)"
_VALUE_FIELD = re.compile(r"\\{0,7}\"(?:value|Value|VALUE)\\{0,7}\"[ \t]*:[ \t]*")
_SIBLING = re.compile(r"\\{0,7}\"(?:name|Name|key|Key|id|Id|parameter|Parameter)\\{0,7}\""
                      r"[ \t]*:[ \t]*\\{0,7}\"(?P<n>[^\"\\]{1,200})\\{0,7}\"")
_MARKED = re.compile(r"(?i)\\{0,7}\"(?:sensitive|secure)\\{0,7}\"[ \t]*:[ \t]*true"
                     r"|\"SecureString\\{0,7}\"")
_OWN_KEY = re.compile(r"\\{0,7}\"(?P<n>[\w.\-/]{1,100})\\{0,7}\"[ \t]*:[ \t]*$")
_YAML_ITEM = re.compile(
    r"(?:^|" + _NL + r"|[ \t])[ \t]*(?:-[ \t]+)?(?:name|key):[ \t]*"
    r"[\"']?(?P<n>[\w.\-/]{1,100})[\"']?"
    r"[ \t]*" + _NL + r"(?:[ \t]*[\w-]{1,40}:[^\n\\]{0,80}" + _NL + r"){0,3}?"
    r"[ \t]*value:[ \t]*")


def _siblings(text: str, low: str) -> list[Span]:
    """From each ``value`` word: a JSON field judged by its object, a YAML ``value:`` by the
    ``name:``/``key:`` a few lines above it."""
    from skillopt_sleep.secrets import assignments  # the value reader is the assignments'

    found: list[Span] = []
    at = low.find("value")
    while at >= 0:
        name, pos = Name.NONE, -1
        field = _VALUE_FIELD.search(text, max(0, at - 9), at + 24)
        item = _YAML_ITEM.search(text, max(0, at - 400), at + 24) \
            if field is None and low.startswith("value:", at) else None
        if field and field.start() <= at:
            name, pos = _object_name(text, field.start()), field.end()
        elif item and item.end() >= at + 6:
            name, pos = name_of(item.group("n")), item.end()
        if name is not Name.NONE:
            span = assignments.value_at(text, pos, name)
            if span:
                found.append(span)
        at = low.find("value", at + 5)
    return found




def _object_name(text: str, at: int) -> Name:
    """How strongly the object holding the field at ``at`` says its value is a secret."""
    open_at = _enclosing_open(text, at)
    if open_at < 0:
        return Name.NONE
    close_at = text.find("}", at)
    body = text[open_at:close_at if close_at >= 0 else at + 300]
    if _MARKED.search(body):
        return Name.STRONG
    names = [name_of(m.group("n")) for m in _SIBLING.finditer(body)]
    own = _OWN_KEY.search(text, max(0, open_at - 100), open_at)
    if own:
        names.append(name_of(own.group("n")))
    return Name.STRONG if Name.STRONG in names else Name.WEAK if Name.WEAK in names \
        else Name.NONE


def _enclosing_open(text: str, at: int) -> int:
    depth = 0
    for pos in range(at - 1, max(-1, at - 600), -1):
        char = text[pos]
        if char == "}":
            depth += 1
        elif char == "{":
            if not depth:
                return pos
            depth -= 1
    return -1
