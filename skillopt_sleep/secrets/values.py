"""What a key's name says and what a value looks like: the judgement every detector shares.

A *key* (a variable, option, header, attribute or query parameter) names a secret when
its last word is one (``DB_PASSWORD``, ``--api-key``, ``X-Amz-Security-Token``,
``client-key-data``); ``token_limit``, ``max_tokens`` or ``password_policy`` do not.

A *value* after such a key is a secret unless it is a reference to one (``$DB_PASSWORD``,
``os.environ["X"]``, ``secrets.GITHUB_TOKEN``, ``{{ .Values.password }}``), a placeholder
(``<token>``, ``your-api-key``, ``xxxx``, ``changeme``, ``***``), code (``get_token()``),
a number, a type or a word documentation uses (``string``, ``required``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from enum import Enum

__all__ = ["Name", "entropy", "looks_random", "name_of", "password_like", "plausible_secret",
           "split_words"]


class Name(Enum):
    """How strongly a key's name says its value is a secret."""

    NONE = 0
    WEAK = 1  # ``key``, ``sig``, ``cookie``: only a random-looking value is a secret
    STRONG = 2  # ``password``, ``token``: any value that is not a reference or placeholder


# Last words of a key that hold a secret whatever the value looks like.
_STRONG_LAST = frozenset({
    "password", "passwd", "pass", "pwd", "passphrase", "passcode", "secret", "token",
    "apikey", "credential", "credentials", "auth", "authorization", "pat", "sas",
    "privatekey", "secretkey", "accesskey", "authtoken", "storepass", "keypass", "pin",
    "psk", "requirepass", "masterauth",
})
# Suffixes of a key run together (``identitytoken``, ``keyStorePassword``, ``npmAuthToken``).
_STRONG_SUFFIX = ("password", "passwd", "passphrase", "secret", "token", "apikey",
                  "secretkey", "privatekey", "accesskey", "credentials", "storepass",
                  "keypass")
# ``key`` is a secret only when qualified: ``api_key``, ``secret-access-key``, ``AccountKey``.
_KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "signing", "encryption", "master", "auth",
    "client", "account", "service", "license", "app", "application", "consumer",
    "subscription", "storage", "shared", "webhook", "session", "admin", "deploy", "ssh",
    "gpg", "pgp", "hmac", "jwt", "encrypt", "crypt", "primary", "secondary", "sas",
    "write", "read", "root", "user", "x", "function", "host", "instrumentation", "ingest",
    "tls", "ssl", "server", "role",
})
_WEAK_LAST = frozenset({
    "key", "sig", "signature", "cookie", "session", "sessionid", "sid", "salt", "nonce",
    "code", "otp", "bearer", "dsn",
})
# ``client-key-data`` (kubeconfig), ``private_key_pem``, ``api_key_value``: a key word
# followed by a word that only says how it is stored.
_STORAGE_WORDS = frozenset({"data", "pem", "value", "b64", "base64", "hex", "raw", "str",
                            "base"})
# Words after a secret word that make the key about the secret, not the secret
# (``token_limit``, ``password_file``); they are simply not secret last words.

# Words after a key's name that only say which one: an environment, a generation.
_VARIANT_WORDS = frozenset({"prod", "production", "dev", "development", "staging", "stage",
                            "test", "qa", "uat", "old", "new", "main", "backup", "local",
                            "live", "default", "alt", "next", "prev", "previous", "current"})

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def split_words(key: str) -> list[str]:
    """``X-Amz-Security-Token`` → ``["x", "amz", "security", "token"]``."""
    words: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", key):
        words.extend(w.lower() for w in _CAMEL.findall(part))
    return words


def name_of(key: str) -> Name:
    """How strongly ``key`` names a secret."""
    if "REDACTED" in key:  # a marker left by an earlier pass names nothing
        return Name.NONE
    words = split_words(key)
    if not words:
        return Name.NONE
    while len(words) > 1 and (words[-1] in _VARIANT_WORDS or words[-1].isdigit()
                              or len(words[-1]) == 1):
        words = words[:-1]  # ``GITHUB_TOKEN_PROD``, ``API_KEY_2``, ``TOKEN_X``
    last = words[-1]
    if last in _STORAGE_WORDS and len(words) > 1:
        words, last = words[:-1], words[-2]
    joined = "".join(words)
    if last in _STRONG_LAST or joined.endswith(_STRONG_SUFFIX):
        return Name.STRONG
    if last == "key" and len(words) > 1 and words[-2] in _KEY_QUALIFIERS:
        return Name.STRONG
    if last in _WEAK_LAST or joined.endswith(("signature", "sessionid", "cookie")):
        return Name.WEAK
    if len(last) >= 6 and last.endswith("key"):  # ``WRITEKEY``, ``licensekey``, ``hmackey``
        return Name.WEAK
    return Name.NONE


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


RANDOM_MIN_LENGTH = 16
"""Shortest value judged random on its looks alone (measured: see docs-draft/redact.md)."""
RANDOM_MIN_ENTROPY = 3.0
"""Bits per character a random-looking value reaches (hex of 16 chars ≈ 3.5, a word ≈ 2.8)."""


def looks_random(value: str) -> bool:
    """A value shaped like a generated token: long, letters and digits mixed, high entropy."""
    core = value.strip("=")
    if len(core) < RANDOM_MIN_LENGTH or _CODE.fullmatch(core) or _UUID.fullmatch(core):
        return False
    digits = sum(c.isdigit() for c in core)
    runs = 1 + sum(_class(a) != _class(b) for a, b in itertools.pairwise(core))
    if not digits or digits == len(core) or not re.search(r"[A-Za-z]", core):
        # Letters only (or digits only): generated if long, in token characters (never
        # prose or a path: ``memory](references/guide.md#cross-session``), changing case
        # almost every other character (``sPUYVvpuNlhOftCWglkgQh``, not ``AzureCredential``).
        return (len(core) >= 20 and entropy(core) >= 3.5 and _TOKEN_CHARS.fullmatch(core)
                is not None and len(core) / runs <= 2.0 and not _wordy(core))
    if entropy(core) < RANDOM_MIN_ENTROPY:
        return False
    # Generated text has digits all through it (in several places, not one date or
    # version: ``BetaMemoryTool20250818Param``), or changes character class every few
    # characters; words joined into a name or a slug (``DefaultAzureCredential2``, the
    # ``workflowsmonorepov2`` of ``agent-workflows-monorepo-v2``) keep a class for a word.
    spread = len(re.findall(r"[0-9]+", core)) >= 2
    if digits >= max(3, len(core) // 8) and spread:
        return True
    return len(core) / runs <= RANDOM_MAX_RUN and not _wordy(core)


def _wordy(core: str) -> bool:
    """CamelCase words: most lower-case runs are long (a random string's median is 1-2)."""
    lower_runs = sorted(len(run) for run in re.findall(r"[a-z]+", core))
    return bool(lower_runs) and lower_runs[len(lower_runs) // 2] > 2


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_\-~%]+")


RANDOM_MAX_RUN = 3.0
"""Longest mean run of one character class (upper, lower, digit) in a generated value
(random base62 ≈ 1.7, a CamelCase name ≈ 3.3 and up)."""


def _class(char: str) -> int:
    return 0 if char.isdigit() else 1 if char.islower() else 2 if char.isupper() else 3


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
# References and code: ``os.environ``, ``settings.api_key``, ``secrets.GITHUB_TOKEN``,
# ``get_token``, ``DB_PASSWORD`` (an environment variable's name), ``user_password``.
_CODE = re.compile(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"  # dotted attribute path
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"  # an environment variable's name
    r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"  # a snake_case name
)
# A version or range a package manifest gives a package whose name holds "token" or "auth".
_VERSION = re.compile(r"(?:[\^~>=<!]{1,2}|v)?[0-9]+(?:\.[0-9x*]+)+(?:[-+][\w.]+)?"
                      r"|latest|next|\*|workspace:[\^~*]?|npm:\S+|link:\S+|file:\S+")
_PLACEHOLDER_WORDS = (
    "your", "example", "placeholder", "changeme", "change_me", "change-me", "replace",
    "insert", "dummy", "redacted", "xxxx", "here", "sample", "todo", "fixme", "fake",
    "<", ">", "enter_", "enter-", "foobar", "notreal", "not-a-", "not_a_",
)
# Words a document or schema puts where a value goes: types, switches, auth modes.
_WORDS = frozenset({
    "true", "false", "none", "null", "nil", "yes", "no", "on", "off", "required",
    "optional", "string", "str", "int", "integer", "bool", "boolean", "number", "float",
    "object", "array", "list", "dict", "map", "bytes", "text", "any", "secret", "secretstr",
    "password", "token", "key", "env", "file", "path", "basic", "bearer", "digest",
    "oauth", "oauth2", "saml", "sso", "ldap", "jwt", "session", "cookie", "header",
    "query", "enabled", "disabled", "enable", "disable", "auto", "default", "empty",
    "hidden", "masked", "unset", "undefined", "string?", "str?", "test", "testing",
    "sensitive", "prompt", "stdin", "ask", "inherit", "keyring", "vault", "kms",
    "aws", "gcp", "azure", "iam", "kerberos", "ntlm", "negotiate", "anonymous", "public",
    # code: ``const token = await getToken()``, ``token = self._token``
    "await", "async", "new", "this", "self", "yield", "typeof", "lambda", "function",
    "return", "require", "import", "static", "final", "const", "readonly",
})


def plausible_secret(value: str, name: Name, after: str = "", before: str = "") -> bool:
    """Whether ``value`` (unquoted), given after a key of strength ``name``, is a secret.

    ``after`` and ``before`` are the characters around it: ``(`` or ``[`` after makes it a
    call or subscript (code), ``$`` or ``{`` before makes it an interpolation.
    """
    if name is Name.NONE or "[REDACTED:" in value:
        return False
    stripped = value.strip()
    judged = stripped.rstrip(",.;!?)]}")  # ``process.env.X!``, ``mfa_secret_temp,``
    if after[:1] in ("(", "[") or before[-1:] in ("$", "{", "%") or _code(judged):
        return False
    if name is Name.WEAK:  # a generated token, not a path, a name or prose
        return (looks_random(stripped) and _TOKEN_CHARS.fullmatch(stripped) is not None
                and not _placeholder(stripped))
    if len(stripped) < 4:
        return False
    low = stripped.lower()
    if stripped[0] in "$%<{[*@!&|(`#" or low in _WORDS or _placeholder(stripped):
        return False
    if re.fullmatch(r"[-+]?[0-9][0-9_.,:/]*[a-z]{0,2}", low):  # 4000, 1.5, 30s, 8080:80
        return False
    if _VERSION.fullmatch(stripped):  # "jsonwebtoken": "^9.0.2", "next-auth": "~4.24"
        return False
    if " " in stripped and _prose(stripped):
        return False
    return not _word(judged)


def _word(value: str) -> bool:
    """Letters only: a word (``include``, ``Pinned``, ``Least-privilege``) or a camelCase
    name (``mfaCode``), not a passphrase (``correct-horse-battery-staple``)."""
    if re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)+", value):
        return True
    if not re.fullmatch(r"[A-Za-z][a-z]*(?:[-_ ][A-Za-z][a-z]*)*", value):
        return False  # letters in mixed case (``QLtAweitCL``) look generated
    return len(value) < 12 or value[0].isupper()


def _code(value: str) -> bool:
    """A reference or an expression: a name, an attribute path, a call or a subscript."""
    if re.search(r"[A-Za-z_]\w*[(\[]", value):  # get_token(), os.environ["X"]
        return True
    if not _CODE.fullmatch(value):
        return False
    # An attribute path's parts are names; a dotted token's (Terraform's
    # ``….atlasv1.…``, a JWT) are generated, and one such part makes it a value.
    return not any(looks_random(part) for part in value.split(".")) and not looks_random(value)


def _placeholder(value: str) -> bool:
    low = value.lower()
    if low.endswith("...") or ("…" in low and len(low.replace(".", "").replace("…", "")) < 6):
        return True  # ``sk-ant-api03-...``, ``ghp_…``; a value a clip ended with ``…`` is longer
    if re.search(r"(.)\1{4,}", low) or len(set(low)) <= 2:
        return True  # ``github_pat_11AAAAAA``, ``yyyyyyyy``, ``abab``
    if len(set(low) - set("x*•.-_ 0#?")) == 0:  # xxxx, ****, ••••, 0000
        return True
    words = [word for word in _PLACEHOLDER_WORDS if word in low]
    if not words:
        return False
    # A generated value that happens to hold a word (``…bPxRfiCYEXAMPLEKEY``) is kept a secret.
    rest = value
    for word in words:
        rest = re.sub(re.escape(word), "", rest, flags=re.IGNORECASE)
    return not (len(rest) >= RANDOM_MIN_LENGTH and entropy(rest) >= 3.5)


def _prose(value: str) -> bool:
    """A label or sentence (``Forgot password?``, ``The token to use``), not a passphrase."""
    words = value.split()
    if not all(re.fullmatch(r"[A-Za-z'’,.:;!?()-]+", w) for w in words):
        return False
    return value[:1].isupper() or value[-1:] in ".?!:" or len(words) > 6


def password_like(value: str) -> bool:
    """A value said after a space (prose, a DSL, a positional argument) is a password only if
    it mixes letters with digits or signs (markdown's emphasis around a word is not a sign)."""
    value = value.strip("*_~`")
    if "/" in value:  # a path (``pwd /srv/app1``); a generated value with ``/`` looks random
        return False
    return (len(value) >= 6 and bool(re.search(r"[A-Za-z]", value))
            and bool(re.search(r"[0-9!@#$%^&*+=?~]", value)))
