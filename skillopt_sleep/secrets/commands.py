"""Secrets on command lines, read with a shell lexer (``shlex``) the way the shell reads them.

Options whose name names a secret (``--password X``, ``--password=X``, ``-storepass X``),
the short flags of well-known clients (``mysql -pX``, ``sshpass -p X``, ``redis-cli -a X``,
``docker login -p X``), ``user:pass`` arguments (``curl -u``, ``smbclient -U user%pass``),
header and cookie options (``-H 'Authorization: Bearer …'``, ``-H 'X-API-Key: …'``,
``-b 'session=…'``), the positional secrets of login, configure and set commands (``vault
login TOKEN``, ``aws configure set aws_secret_access_key X``, ``ngrok config add-authtoken
X``, ``poetry config http-basic.pypi user PASS``, ``rabbitmqctl add_user NAME PASS``,
``sqlplus user/PASS@db``, ``net use … /user:NAME PASS``, ``xfreerdp /p:PASS``) and a value
echoed into ``--password-stdin`` or ``sudo -S``. Assignments inside arguments
(``-e API_TOKEN=…``) are the assignment reader's.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex

from skillopt_sleep.secrets import operands
from skillopt_sleep.secrets.values import (
    Name,
    looks_random,
    name_of,
    plausible_secret,
)

__all__ = ["ALONE_GROUPS", "CLIENTS", "HINTS", "OPTION_STARTS", "PIPED", "SHORT_OPTION", "find"]

Span = tuple[int, int, str]

# Short flags that take a secret, per client (a flag's meaning depends on the program).
_SHORT: dict[str, frozenset[str]] = {
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow",
                     "mariadb", "mariadb-dump", "mariadb-admin"), frozenset({"-p"})),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoimport",
                     "mongoexport", "sshpass", "twine", "az", "helm", "oras"),
                    frozenset({"-p"})),
    **dict.fromkeys(("docker", "podman", "buildah", "skopeo", "nerdctl", "crane"),
                    frozenset({"-p"})),
    "redis-cli": frozenset({"-a"}), "sqlcmd": frozenset({"-P"}), "bcp": frozenset({"-P"}),
    "zip": frozenset({"-P"}), "7z": frozenset({"-p"}), "7za": frozenset({"-p"}),
    "unrar": frozenset({"-p"}), "rar": frozenset({"-p"}), "ssh-keygen": frozenset({"-N", "-P"}),
    "doctl": frozenset({"-t"}), "codecov": frozenset({"-t"}), "influx": frozenset({"-t"}),
    "ldapsearch": frozenset({"-w"}), "ldapadd": frozenset({"-w"}),
    "ldapmodify": frozenset({"-w"}), "ldapdelete": frozenset({"-w"}),
    "mosquitto_pub": frozenset({"-P"}), "mosquitto_sub": frozenset({"-P"}),
    "openssl": frozenset({"-k", "-pass", "-passin", "-passout"}),
    "psql": frozenset(), "vault": frozenset(),
}
# Flags whose value is ``user:password`` (or ``user%password``, ``user,password``).
_USER_PASS: dict[str, frozenset[str]] = {
    "curl": frozenset({"-u", "--user", "--proxy-user", "-U"}),
    "wget": frozenset(), "smbclient": frozenset({"-U", "--user"}),
    "lftp": frozenset({"-u"}), "rpcclient": frozenset({"-U"}), "http": frozenset({"-a", "--auth"}),
}
_HEADER_FLAGS = frozenset({"-H", "--header", "--headers", "--proxy-header"})
_COOKIE_FLAGS = frozenset({"-b", "--cookie"})
_LOGIN_WORDS = frozenset({"login", "auth", "authenticate", "authtoken", "add-authtoken",
                          "activate", "token"})
# ``user/password@database`` as the first argument (Oracle's clients).
_USER_SLASH = frozenset({"sqlplus", "sqlldr", "impdp", "expdp", "rman", "dgmgrl"})
_SLASH_PAIR = re.compile(r"[^/\s@]+/([^/\s@]+)(?:@\S*)?")
# Verbs followed by a user name and its password.
_ADD_USER = frozenset({"add_user", "add-user", "user-add", "create-user", "user:create"})
_PROGRAM_NAME = re.compile(r"(?:\S*/)?[a-z][\w.-]*")
_VERB = re.compile(r"[a-z]+[_:-][\w:-]*")  # ``change_password``, ``add_user``, ``user:create``
_SET_WORDS = frozenset({"set", "put", "add", "config:set", "secrets:set", "set-credentials"})
_HEADER = re.compile(r"(?P<name>[A-Za-z0-9_\-]+)[ \t]*:[ \t]*(?:(?i:basic|bearer|token|digest"
                     r"|apikey|ssws)[ \t]+)?(?P<value>\S.*)")
# Simple commands of one line: split at shell operators and at backticks (prose quotes a
# command in backticks: ``ran `mysql -pX db` and it failed``).
_SPLIT = re.compile(r"&&|\|\||[;|\n`]")
# Lexing is the costly step: a line is lexed only when it holds a trigger, found by
# substring search (fast, in C) rather than by one regex tried at every position.
_PROGRAMS = tuple(sorted({*_SHORT, *_USER_PASS, "sudo"}
                         - {"http", "az", "zip", "7z", "rar", "bcp"}))
_VERBS = ("login", "auth", "config", " set ", "secrets", "echo", "zip ", "7z ", "rar ",
          "az ", "http ", "bcp ", "/user:", "/p:", "/pass", "passw", "<<<", "printf",
          "htpasswd", "wpa_passphrase", "net user", "db2 ", " -u", "psk", "isql ",
          "user create", "user add")
HINTS = (*_PROGRAMS, *_VERBS, *_USER_SLASH, *_ADD_USER)
_OPTION = re.compile(r"-[\w.-]*?(?:pass|pwd|secret|token|key|auth|cred|user|header|cookie"
                     r"|body)|-[hbu] ")
_MAX_LINE = 4096
"""Longest command line read: a longer run without a line break is data, not a command."""


# Every command-line secret sits after an option, a login/config/add-user verb, a
# ``user/password`` argument or a Windows ``/p:`` option. The prefilter
# (``secrets.prefilter``) looks for these words: ``ALONE_GROUPS``' words are enough by
# themselves (each grouped under a part it holds, looked for first, as the assignment
# hints are); ``PIPED`` with a ``|`` in the text (``echo X | login --password-stdin``); a
# short option (``SHORT_OPTION``, where one of ``OPTION_STARTS`` is: code and logs hold
# " - " and " -> " by the thousand) only with one of ``CLIENTS``. (Options whose name says
# "pass", "token", "key", … are the assignment hints' and need no word here.)
OPTION_STARTS = (" -", "\t-", "\"-", "'-", "=-")
_SHORT_LETTERS = frozenset("pauntwkbhs-")
# One pattern for any of them, found from its dash (rarer than the characters before it).
SHORT_OPTION = re.compile("-(?<=[" + re.escape("".join(s[0] for s in OPTION_STARTS))
                          + "]-)[" + re.escape("".join(sorted(_SHORT_LETTERS))) + "]")
ALONE_GROUPS: dict[str, tuple[str, ...]] = {
    "login": (), "config": (), "/p:": (), "/pass": (), "<<<": (),
    "user": ("/user:", "net user", *_ADD_USER), "db2": (), "psk": (), "isql": (),
    "sql": ("sqlplus", "sqlldr"), "dp": ("impdp", "expdp"), "rman": (), "dgmgrl": (),
}
PIPED = ("echo ", "printf ")
CLIENTS = (*HINTS, "--user", "--header")


def find(text: str, low: str) -> list[Span]:
    """Every secret on a command line in ``text`` (``low``: ``text`` lower-cased, same
    length). The caller reads only a text the prefilter found a command word in, or a
    word a secret option's name holds."""
    found: list[Span] = []
    for start in _line_starts(text, _triggers(low)):
        end = _line_end(text, start)
        found.extend((start + s, start + e, k) for s, e, k in _line(text[start:end]))
    return found


def _triggers(low: str) -> list[int]:
    hits: list[int] = []
    for word in HINTS:
        at = low.find(word)
        while at >= 0:
            hits.append(at)
            at = low.find(word, at + len(word))
    if "-" in low:
        hits.extend(m.start() for m in _OPTION.finditer(low))
    return hits


def _line_starts(text: str, hits: list[int]) -> list[int]:
    """The start of each line (real, or JSON-escaped ``\\n``) holding a hit, once each."""
    starts: set[int] = set()
    for hit in hits:
        floor = max(0, hit - _MAX_LINE)
        newline = text.rfind("\n", floor, hit)
        escaped = text.rfind("\\n", floor, hit)
        starts.add(max(floor, newline + 1, escaped + 2 if escaped >= 0 else 0))
    return sorted(starts)


def _line_end(text: str, start: int) -> int:
    limit = min(len(text), start + _MAX_LINE)
    ends = [at for at in (text.find("\n", start, limit), text.find("\\n", start, limit),
                          text.find("\\r", start, limit)) if at >= 0]
    return min(ends, default=limit)


def _line(line: str) -> list[Span]:
    spans: list[Span] = []
    cursor = 0
    for value in _values(line, depth=2):
        if value not in line:  # lexed out of a JSON string: ``X"}`` read as ``X}``
            value = value.strip("\"'{}()[],;")
        if len(value) < 4:
            continue
        found = line.find(value, cursor)
        if found < 0:
            found = line.find(value)
        if found >= 0:
            spans.append((found, found + len(value), "cli_password"))
            cursor = found + len(value)
    return spans


_SETTING_PATH = re.compile(r"[A-Za-z]\w*(?:[.\-]\w+)+")  # ``wifi-sec.psk``, ``auth.password``
_ESCAPED_QUOTE = re.compile(r'\\+"')  # a quote JSON-escaped once or more: ``\"``, ``\\\"``


def _values(line: str, depth: int) -> list[str]:
    """The secret values of the commands on ``line``; a quoted word that is itself a
    command (``bash -c "mysql -pX"``, a JSON string holding one) is read as one too."""
    out: list[str] = []
    echoed: str | None = None
    for piece in _SPLIT.split(line):
        words = _lex(_ESCAPED_QUOTE.sub('"', piece.strip().strip("$()")))
        out.extend(_secrets_of(words))
        if echoed and _reads_secret(words) and plausible_secret(echoed, Name.STRONG):
            out.append(echoed)
        out.extend(_here_string_secret(words))
        # ``echo SECRET | login --password-stdin``: the last word echoed into the pipe.
        echoed = _echoed(words)
        if depth:
            for word in words:
                if " " in word.strip():
                    out.extend(_values(word, depth - 1))
    return out


def _echoed(words: list[str]) -> str | None:
    """The last word of ``echo [-n] X`` or ``printf [FORMAT] X``, wherever the command starts
    on the line (a label or prose may come first)."""
    at = max((i for i, w in enumerate(words[:-1]) if w in ("echo", "printf")), default=-1)
    if at < 0:
        return None
    between = words[at + 1 : -1]
    if all(w.startswith("-") for w in between) or (words[at] == "printf" and len(between) == 1
                                                   and "%" in between[0]):
        return words[-1]
    return None


# Programs that read a secret from their input: a key agent, Kerberos, password changers,
# disk and password-store unlockers.
_KEY_TOOLS = frozenset({"ssh-add", "kinit", "passwd", "chpasswd", "smbpasswd", "cryptsetup",
                        "keepassxc-cli", "htpasswd", "mosquitto_passwd", "op", "bw", "pass"})


def _reads_secret(words: list[str]) -> bool:
    """Whether the command of ``words`` reads a secret from its input: a key tool, ``sudo
    -S``, a login, or an option that says so (``--password-stdin``, ``--passphrase-fd 0``,
    ``-pass stdin``); not a decoder or a filter (``base64 -d``, ``jq``)."""
    if _sudo_reads_stdin(words) or _program(words) in _KEY_TOOLS \
            or any(w in _KEY_TOOLS and len(w) > 4 for w in words):  # after a label: ``… ssh-add``
        return True
    if _LOGIN_WORDS & set(words):
        return True
    return any(w.startswith("-") and any(k in w.lower() for k in ("stdin", "pass", "secret",
                                                                   "token"))
               for w in words)


def _here_string_secret(words: list[str]) -> list[str]:
    """``gh auth login --with-token <<< TOKEN``, ``ssh-add - <<< KEY``, ``read -r API_TOKEN
    <<< VALUE``: a here-string fed to a command that reads a secret, or into a variable
    whose name names one."""
    if "<<<" not in words[:-1]:
        return []
    at = words.index("<<<")
    value = words[at + 1]
    reads = _reads_secret(words) or any(
        not w.startswith("-") and name_of(w) is Name.STRONG for w in words[:at])
    return [value] if reads and plausible_secret(value, Name.STRONG) else []


def _sudo_reads_stdin(words: list[str]) -> bool:
    """``echo PASS | sudo -S …`` (or ``chpasswd``): the password comes from the pipe."""
    if "chpasswd" in words:
        return True
    at = words.index("sudo") if "sudo" in words else -1
    return at >= 0 and any(w.startswith("-") and not w.startswith("--") and "S" in w
                           for w in words[at + 1 : at + 3])


def _lex(piece: str) -> list[str]:
    try:
        return shlex.split(piece, comments=False, posix=True)
    except ValueError:  # an unbalanced quote in prose around the command
        return [w.strip("\"'`\\") for w in piece.rstrip("\\").split()]


def _secrets_of(words: list[str]) -> list[str]:
    """The values in one simple command's ``words`` that are secrets. A known client's
    short flags count from its name on: a line may hold prose or another command first
    (``sudo``, ``bash -lc``, a label), or several commands a clip has joined."""
    if not words:
        return []
    out: list[str] = []
    if "set" in words and ({"secret", "secrets", "secrets:set"} & set(words)):
        out.extend(_secret_store_values(words))
    program = _program(words)
    clients = [i for i, w in enumerate(words) if i and _is_client(w)]
    bounds = [0, *clients, len(words)]
    for start, end in itertools.pairwise(bounds):
        name = program if start == 0 else os.path.basename(words[start])
        part = words[start:end]
        short = _SHORT.get(name, frozenset()) if operands.flags_name_passwords(name, part) \
            else frozenset()
        # ``cqlsh -u U -p PASS``: a user flag pairs with a password flag the program's
        # own flags do not already name (the value must then look like a password).
        paired = operands.PAIRED - short if name not in _USER_PASS and operands.user_given(part) \
            else frozenset()
        user_pass = _USER_PASS.get(name, frozenset()) | {"--user", "--proxy-user"}
        out.extend(operands.program_positional(name, part))
        for i, word in enumerate(part):
            nxt = part[i + 1] if i + 1 < len(part) else (words[end] if end < len(words) else "")
            out.extend(_option_secret(word, nxt, short, user_pass))
            if word in paired:
                out.extend(v for v in _option_secret(word, nxt, paired, frozenset())
                           if operands.generated_or_password(v))
            if start + i and not word.startswith("-"):
                out.extend(_positional_secret(words, start + i))
    return [v for v in out if v]


def _is_client(word: str) -> bool:
    name = os.path.basename(word)
    return name in _SHORT or name in _USER_PASS


def _secret_store_values(words: list[str]) -> list[str]:
    """``gh secret set NAME --body V``, ``fly secrets set NAME=V``: every value is secret."""
    out = [nxt for word, nxt in itertools.pairwise(words) if word in ("--body", "-b")]
    out += [w.partition("=")[2] for w in words if "=" in w and not w.startswith("-")]
    return [v for v in out if plausible_secret(v, Name.STRONG)]


def _program(words: list[str]) -> str:
    for word in words:
        if "=" in word and not word.startswith("-"):
            continue  # ``PGPASSWORD=x psql``: an environment prefix
        name = os.path.basename(word).rstrip("\"'`}]),;\\")  # a JSON string's close
        if name in ("sudo", "env", "exec", "npx", "uvx", "pipx", "time", "nohup"):
            continue
        return name
    return ""


def _option_secret(word: str, nxt: str, short: frozenset[str],
                   user_pass: frozenset[str]) -> list[str]:
    if word[:1] == "/" and ":" in word[2:]:  # Windows: ``/password:X``, ``/p:X``
        option, _, value = word[1:].partition(":")
        strong = option.lower() in ("p", "pass", "pw") or name_of(option) is Name.STRONG
        if "=" in value:  # MSBuild's ``/p:Name=Value`` sets a property
            return []
        return [value] if strong and plausible_secret(value, Name.STRONG) else []
    if not word.startswith("-") or word == "-":
        return []
    flag, eq, attached = word.partition("=")
    value = attached if eq else nxt
    for sflag in short:  # ``-pSECRET`` attached, ``-p SECRET`` apart
        if word == sflag and not word.startswith("--"):
            return [_passin(nxt)] if plausible_secret(_passin(nxt), Name.STRONG) else []
        if word.startswith(sflag) and len(sflag) == 2 and len(word) > 2 and not eq:
            return [word[2:]] if plausible_secret(word[2:], Name.STRONG) else []
    if flag in user_pass:
        pair = re.match(r"[^:%,]*[:%,](.+)", value)
        return [pair.group(1)] if pair and plausible_secret(pair.group(1), Name.STRONG) else []
    if flag in _HEADER_FLAGS or flag in _COOKIE_FLAGS:
        return _header_secret(value, cookie=flag in _COOKIE_FLAGS)
    if flag.startswith("--") or len(flag) > 2:
        name = name_of(flag)
        if name is not Name.NONE and plausible_secret(_passin(value), name):
            return [_passin(value)]
    return []


def _passin(value: str) -> str:
    """``pass:SECRET`` (openssl's form) gives ``SECRET``; ``env:VAR``/``file:path`` do not."""
    return value[5:] if value.startswith("pass:") else value


def _header_secret(value: str, cookie: bool) -> list[str]:
    if cookie or value.lower().startswith("cookie"):
        body = value.split(":", 1)[1] if not cookie and ":" in value else value
        return [v for _, _, v in (p.strip().partition("=") for p in body.split(";"))
                if v and looks_random(v)]
    match = _HEADER.match(value)
    if not match:
        return []
    name = name_of(match.group("name"))
    secret = match.group("value").strip()
    if name is Name.NONE and not match.group("name").lower().endswith(("auth", "key")):
        return []
    return [secret] if plausible_secret(secret, max(name, Name.WEAK, key=_rank)) else []


def _rank(name: Name) -> int:
    return name.value


def _positional_secret(words: list[str], i: int) -> list[str]:
    """``vault login TOKEN``, ``config set NAME VALUE``, ``add-authtoken VALUE``,
    ``sqlplus user/PASS@db``, ``rabbitmqctl add_user NAME PASS``, ``change_password NAME
    PASS``, ``net use … /user:NAME PASS``."""
    prev = words[i - 1]
    word = words[i]
    if os.path.basename(prev) in _USER_SLASH:
        pair = _SLASH_PAIR.fullmatch(word)
        if pair and plausible_secret(pair.group(1), Name.STRONG):
            return [pair.group(1)]
    # ``PROGRAM VERB USER PASS``: the verb adds a user or changes a password.
    verb = words[i - 2].lower() if i >= 3 and _PROGRAM_NAME.fullmatch(words[i - 3]) \
        and _VERB.fullmatch(words[i - 2]) else ""
    if prev.lower().startswith("/user:") or (not prev.startswith("-") and (
            verb in _ADD_USER or "password" in verb or "passwd" in verb)):
        return [word] if plausible_secret(word, Name.STRONG) else []
    if prev in _LOGIN_WORDS and looks_random(word):
        return [word]
    if name_of(prev) is Name.STRONG and not prev.startswith("-") and i >= 2 \
            and words[i - 2] in _SET_WORDS | {"config", "configure"} | _LOGIN_WORDS:
        return [word] if plausible_secret(word, Name.STRONG) else []
    if prev.startswith("http-basic.") and i + 1 < len(words):  # poetry: NAME USER PASS
        return [words[i + 1]] if plausible_secret(words[i + 1], Name.STRONG) else []
    if _SETTING_PATH.fullmatch(prev) and name_of(prev) is Name.STRONG \
            and plausible_secret(word, Name.STRONG) and operands.generated_or_password(word):
        return [word]  # a setting named by its path: ``nmcli … wifi-sec.psk VALUE``
    if prev.lower() == "using" and i >= 3 and words[i - 3].lower() == "user":  # db2 connect
        return [word] if plausible_secret(word, Name.STRONG) else []
    if prev in ("authtoken", "add-authtoken"):  # ngrok
        return [word] if plausible_secret(word, Name.STRONG) else []
    return []
