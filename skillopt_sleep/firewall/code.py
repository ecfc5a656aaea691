"""Capabilities a whole block of code grants, in any language, read as one program.

A line-by-line reading misses what only the block does: a socket opened on one line and
its stream handed to ``iex`` on the next, a download into ``$TMP`` that a later line runs.
The rules here read the block's data flow coarsely, by roles: a *source* of foreign bytes
(a socket, an HTTP fetch, a decoder), a *sink* that runs bytes (``exec``, ``eval``,
``iex``, ``system``), the process environment taken whole, a verification switched off.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.programs import program_found
from skillopt_sleep.firewall.shell_access import CREDENTIAL

Found = tuple[str, str]

_SOCKET = re.compile(r"\bsocket\b|fsockopen|TCPSocket|TcpClient|Net\.Sockets|/dev/tcp|net\.connect"
                     r"|new\s+Socket|dial\(\s*\"tcp", re.I)
_FETCH = re.compile(r"urlopen|urllib|requests\.(?:get|post)|httpx\.|https?\.get\(|fetch\(|axios"
                    r"|Net::HTTP|open-uri|URI\.open|DownloadString|WebClient|Invoke-WebRequest"
                    r"|Invoke-RestMethod|\biwr\b|\birm\b|file_get_contents\(\s*['\"]https?:"
                    r"|curl_exec|http\.Get\("
                    # any call named for the web, in any language (``HttpGet``, ``http_get``)
                    r"|\b\w*(?:http|download|urlopen)\w*\s*\(", re.I)
_DECODE = re.compile(r"b64decode|frombase64string|atob\(|decode_base64|unhexlify|bytes\.fromhex"
                     r"|Buffer\.from\([^)]*['\"](?:base64|hex)['\"]"
                     r"|zlib\.decompress|marshal\.loads|codecs\.decode|Base64\.decode|base64_decode"
                     r"|unpack\(\s*['\"]m", re.I)
_SINK = re.compile(r"\b(?:exec|eval|iex|invoke-expression|system|popen|spawn|execSync|execFile"
                   r"|pty\.spawn|shell_exec|passthru|instance_eval)\s*[(\s'\"`$]"
                   r"|\|\s*(?:iex|invoke-expression)\b|\bnew\s+Function\b"
                   r"|\b(?:loadstring|dofile|loadfile|runpy\.run_\w+|vm\.run\w*)\s*\("
                   # deserialisers that run what they read
                   r"|\b(?:c?pickle|dill|joblib|marshal|shelve|cloudpickle)\.loads?\s*\("
                   r"|\byaml\.(?:unsafe_)?load\s*\((?![^)]*SafeLoader)"
                   r"|\btorch\.load\s*\((?![^)]*weights_only\s*=\s*True)",
                   re.I)
# Code a library fetches from a hub and runs because it was told to trust it.
_TRUSTED_REMOTE = re.compile(r"trust[_-]?(?:remote[_-]?code"
                             r"|repo)\s*[=:]\s*[\"']?(?:true|1|yes|check)\b"
                             r"|--trust-remote-code\b"
                             r"|TRUST_REMOTE_CODE\s*=\s*[\"']?(?:1|true|yes)", re.I)
_SHELL = re.compile(r"/bin/\w*sh|cmd\.exe|powershell|\bsh\b|\bbash\b|\biex\b|dup2|pty\.spawn"
                    r"|getstream\(\)|\.GetStream", re.I)
# The environment taken whole and handed to something that shows or sends it; a filtered
# copy (``{k: v for k, v in os.environ.items() if …}``) or ``dict(os.environ, X=1)`` is not.
_ENV_REF = (r"(?:os\.environ\b(?!\s*(?:\[|\.get|\.setdefault|\.pop|,))|process\.env\b(?!\s*[.\[])"
            r"|\bENV\.to_[ha]\b|os\.Environ\(\)|System\.getenv\(\)|GetEnvironmentVariables\(\)"
            r"|\$_ENV\b(?!\s*\[)|\$_SERVER\b(?!\s*\[))")
_ENV_WHOLE = re.compile(
    r"\b(?:print|pprint|dumps?|write|post|put|send\w*|log|info|debug|puts|pp|stringify|yaml"
    r"|pickle|upload|console\.log|fetch|urlopen|Write-Output|echo|var_dump|print_r|json_encode"
    rf"|to_json|inspect)\W[^\n;]{{0,40}}?{_ENV_REF}"
    r"|(?:get-childitem|\bgci|\bls|\bdir)\s+env:", re.I)
_UNVERIFIED = re.compile(
    r"\bverify\s*=\s*False\b|rejectUnauthorized\s*:\s*false|InsecureSkipVerify\s*:\s*true"
    r"|_create_unverified_context|CERT_NONE|check_hostname\s*=\s*False|VERIFY_NONE"
    r"|CURLOPT_SSL_VERIFYPEER\s*,\s*(?:0|false)"
    r"|ServerCertificateValidationCallback\s*=\s*\{\s*\$true"
    r"|SkipCertificateCheck|ssl_verify\s*=\s*false|strict-ssl\s*=?\s*false", re.I)
_SKIP_ALL = re.compile(r"pytest\.skip\([^)]*allow_module_level\s*=\s*True|pytestmark\s*=\s*pytest"
                       r"\.mark\.skip\b|\bif:\s*false\b|describe\.skip\(|\bxdescribe\(", re.I)
# A file server (not an app) on every interface, or serving the home or root folder.
_FILE_SERVER = (r"(?:http\.server|SimpleHTTPServer|http-server|\bserve\b|php\s+-S|httpd"
                r"|static-server)")
_ALL_INTERFACES = re.compile(
    r"(?:--bind|-b|bind\(\(?|-S|host\s*=)\s*['\"(]*(?:0\.0\.0\.0|::)\b"
    rf"|{_FILE_SERVER}[^\n]*(?:\s(?:~|/|\$HOME)(?:\s|$)|0\.0\.0\.0)", re.I | re.M)


# A credential store named in code and read: its path as a literal, a call that opens it.
_LITERAL = re.compile(r"[\"']([^\"'\n]{2,200})[\"']")
_OPENS = re.compile(r"\b(?:open|fopen|ReadFile|ReadAllText|ReadAllBytes|read_text|read_bytes"
                    r"|readFile\w*|File\.read\w*|Get-Content|gc|cat|load\w*|Path|Join)\s*\(", re.I)


# The home folder as code spells it, joined to a literal: read as ``'~/…``.
_HOME_EXPR = re.compile(
    r"(?:Path\.home\(\)|os\.homedir\(\)|os\.path\.expanduser\(\s*['\"]~['\"]\s*\)|Dir\.home"
    r"|ENV\[['\"]HOME['\"]\]|process\.env\.HOME|os\.getenv\(['\"]HOME['\"]\)|os\.UserHomeDir\(\)"
    r"|\$env:USERPROFILE|System\.getProperty\(['\"]user\.home['\"]\))\s*(?:/|,|\+|\.)\s*(['\"])/?")
# A path read where it is built: ``(home / '.x' / 'y').read_bytes()``.
_READ_AFTER = re.compile(r"\s*\)?\s*\.\s*(?:read\w*|open|load\w*)\s*\(")
_OUT = (r"\b(?:print\w*|pprint|puts|echo|log\w*|Print\w*|console\.\w+|write\w*|send\w*|post"
        r"|upload\w*|put|fetch|urlopen|requests\.\w+|http\.\w+|Write-\w+|Out-\w+)\s*\(")


def _store_read(text: str) -> str:
    """A credential store read and handed to output or the network: in the same call
    (``print(open('~/.netrc').read())``) or through the variable it was read into."""
    # A path built from parts (``home / '.docker' / 'config.json'``, ``Join(h, ".netrc")``)
    # is read as the path it builds.
    text = _HOME_EXPR.sub(lambda m: m.group(1) + "~/", text)
    text = re.sub(r"[\"']\s*(?:[/,+]|\)\s*/)\s*[\"']", "/", text)
    for m in _LITERAL.finditer(text):
        store = CREDENTIAL.search(m.group(1))
        read = _OPENS.search(text[: m.start()][-120:]) or _READ_AFTER.match(text, m.end())
        if not (store and read):
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)]
        held = (re.match(r"\s*(?:var\s+|let\s+|const\s+|\$)?(\w+)(?:\s*,\s*\w+)?\s*:?=", line)
                or re.search(r"\bas\s+(\w+)\s*:", line))
        later = text[end:] if end >= 0 else ""
        if re.search(_OUT + r"[^\n]*" + re.escape(m.group(0)), line) or (held and re.search(
                _OUT + rf"[^\n]*\b{re.escape(held.group(1))}\b", later)):
            return store.group(0).strip("/\\~ =@'\"")
    return ""


def block_found(text: str) -> Iterator[Found]:
    """What ``text`` (one fenced block, or one inline program) grants as a whole: the
    patterns here, then ``programs``' roles for the classes these did not find."""
    found = list(_patterns_found(text))
    yield from found
    kinds = {kind for kind, _ in found}
    yield from ((kind, target) for kind, target in program_found(text) if kind not in kinds)


def _patterns_found(text: str) -> Iterator[Found]:
    sink = _SINK.search(text)
    if _SOCKET.search(text) and _SHELL.search(text) and (sink or "dup2" in text):
        yield "open_shell", "a network port"
    elif _ALL_INTERFACES.search(text) and re.search(r"server|serve|listen|-S\b|bind", text, re.I):
        yield "open_shell", "a listener on every interface"
    if sink and (_FETCH.search(text) or _DECODE.search(text)):
        host = re.search(r"://([^/\s'\")]+)", text)
        yield "run_fetched_code", host.group(1).lower() if host else "fetched content"
    if _TRUSTED_REMOTE.search(text):
        yield "run_fetched_code", "remote code trusted"
    if _ENV_WHOLE.search(text):
        yield "read_credentials", "environment"
    store = _store_read(text)
    if store:
        yield "read_credentials", store
    if _UNVERIFIED.search(text):
        yield "bypass_check", "tls verification"
    if _SKIP_ALL.search(text):
        yield "bypass_check", "tests"
