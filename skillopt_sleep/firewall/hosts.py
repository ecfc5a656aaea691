"""Hosts text lets an agent reach: URLs (link and image targets included), bare domain
names, IP literals in any notation, and data smuggled into a host name or a query."""

from __future__ import annotations

import ipaddress
import re

# Top-level domains by which a bare name is read as a host. Names that are also file
# extensions (``setup.sh``, ``main.cc``, ``notes.md``) need three labels (``get.evil.sh``).
_TLDS = (
    "com|net|org|io|dev|ai|xyz|ru|cn|co|me|info|biz|top|cloud|tk|ml|ga|cf|gq|pw|su|click"
    "|link|site|online|live|icu|buzz|app|tech|store|shop|page|gg|tv|ly|us|uk|de|fr|jp"
    "|ir|kp|su|vip|work|fun|space|website|host|pro|eu|ca|au|nl|br|zone|digital|studio|sbs|cyou"
    "|lol|quest|cfd"
)
_TLD_SET = frozenset(_TLDS.split("|"))
_FILE_LIKE = "sh|zip|mov|run|cc|in|pl|to|es|it|ch|am|ws"
# A name whose next-to-last label is a file extension is a file (``setup.cfg.in``).
_EXTENSIONS = frozenset({
    "cfg", "txt", "py", "js", "ts", "tar", "h", "c", "cpp", "hpp", "md", "json", "yaml", "yml",
    "toml", "ini", "lock", "html", "css", "sh", "rs", "go", "rb", "java", "kt", "swift", "sql",
    "xml", "csv", "log", "conf", "env", "tmpl", "j2",
})
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_DATA = r"(?:\$\([^)\s]*\)|\$\{[^}\s]*\}|\$\w+|`[^`\s]*`|\{\{[^}\s]*\}\}|%s|<[a-z_]+>)"
_HOST = re.compile(
    rf"(?<![\w@/$.-])((?:{_DATA}\.|[\w-]*{_DATA}[\w-]*\.)*(?:{_LABEL}\.)+(?:{_TLDS})"
    rf"|(?:{_DATA}\.)*(?:{_LABEL}\.){{2,}}(?:{_FILE_LIKE}))(?![\w-]|\.[a-z0-9])",
    re.IGNORECASE,
)
_URL = re.compile(
    r"\b(?:https?|ftps?|sftp|ssh|git|wss?|smb|ldaps?|tcp|udp|telnet|s3a?|gs|gcs|az|abfss?|wasbs?"
    r"|hdfs|oss|r2|rsync|redis|rediss|mongodb(?:\+srv)?|postgres(?:ql)?|mysql|amqps?|mqtts?"
    r"|kafka|nats|grpcs?|rtmp|irc|dns)://"
    r"(?:[^\s/@?#]*@)?(\[[0-9a-f:.]+\]|[^\s/:?#\"'<>)\]`]+)(?::\d+)?([^\s\"'<>)\]`]*)",
    re.IGNORECASE,
)
_DOTTED = re.compile(r"(?<![\w.$-])((?:0x[0-9a-f]+|\d{1,10})(?:\.(?:0x[0-9a-f]+|\d{1,10})){1,3})"
                     r"(?![\w.-]*\w|/\d)", re.IGNORECASE)  # ``10.0.0.0/8`` is a range
_SAFE = re.compile(
    r"^(?:localhost|(?:[\w-]+\.)*example(?:\.(?:com|org|net))?|[\w.-]+\.(?:test|local|localhost"
    r"|invalid|example|internal|lan|home\.arpa)|(?:[\w-]+\.)*example\.(?:com|org|net))$",
    re.IGNORECASE,
)
# A domain used as a namespace names nothing to reach: Kubernetes label and annotation keys
# (``prometheus.io/scrape:``), API groups (``apiVersion: source.toolkit.fluxcd.io/v1``).
_NAMESPACE = re.compile(r"/[\w.-]+[\"']?\s*[:=]")
_API_GROUP = re.compile(r"\bapiVersion:\s*[\"']?$")
_DATA_NAME = re.compile(r"(?<![/\w.$-])[\w-]*(?:\$\([^)]*\)|\$\{\w+\})[\w-]*\.((?:[a-z0-9-]+\.)*"
                        r"[a-z0-9-]+\.[a-z]{2,})\b", re.I)
_RELATIVE = re.compile(r"(?<=['\"(=])//((?:[a-z0-9-]+\.)+[a-z]{2,})(?=[/'\"):?])", re.I)
_EMAIL = re.compile(r"\b[\w.+-]+@((?:[a-z0-9-]+\.)+[a-z]{2,})\b", re.I)
_MAIL_VERB = re.compile(r"\b(?:send|mail|e-?mail|forward|cc|bcc|deliver|post|notify|report)"
                        r"\w*\b[^.;!?]*$", re.I)
# ``git@host:org/repo.git``, ``deploy@host:/srv``: a host reached over ssh, whatever its TLD.
_SCP_LIKE = re.compile(r"(?<![\w.+/-])[\w.-]+@((?:[a-z0-9-]+\.)+[a-z]{2,}):(?!\d+\b)[\w~./-]", re.I)
_QUERY_DATA = re.compile(_DATA + r"|\$\(|=\s*\$|\benv\b", re.IGNORECASE)
# A quoted domain suffix (``'.x.dnslog.link'``) is only ever used with a name put before it.
_SUFFIX = re.compile(r"(?<=[\"'])\.((?:[a-z0-9-]+\.)+[a-z]{2,})(?=[\"'])", re.I)


def _ip(text: str) -> tuple[str, bool] | None:
    """``(dotted form, written obscurely?)`` for an IP literal in any notation, else None.
    ``2130706433``, ``0x7f000001``, ``0177.0.0.1`` and ``127.1`` are all 127.0.0.1."""
    parts = text.split(".")
    if len(parts) == 4 and all(p.isdigit() and len(p) <= 3 and not (len(p) > 1 and p[0] == "0")
                               for p in parts):
        if all(int(p) <= 255 for p in parts):
            return text, False
        return None
    try:
        nums = [int(p, 0) if not (p.isdigit() and p.startswith("0") and len(p) > 1)
                else int(p, 8) for p in parts]
    except ValueError:
        return None
    if len(parts) == 1:
        value = nums[0]
    else:
        *head, last = nums
        if any(n > 255 for n in head) or last >= 256 ** (5 - len(parts)):
            return None
        value = 0
        for n in head:
            value = value * 256 + n
        value = value * 256 ** (5 - len(parts)) + last
    if not 0 <= value < 2**32:
        return None
    return str(ipaddress.IPv4Address(value)), True


def _ip_target(dotted: str, obscure: bool) -> str | None:
    addr = ipaddress.ip_address(dotted)
    # Link-local is not safe: 169.254.169.254 is every cloud's credential endpoint.
    if not obscure and (addr.is_loopback or addr.is_unspecified):
        return None
    return f"{dotted} (written as an obscured IP)" if obscure else dotted


def host_targets(text: str) -> list[tuple[str, str]]:
    """``(target, excerpt)`` for every host ``text`` names, in order. A target carrying data
    (``$(whoami).evil.io``, ``?d=$TOKEN``) says so, so it never matches a plain host."""
    found: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _URL.finditer(text):
        host, rest = m.group(1).lower().strip("[]").rstrip("."), m.group(2)
        spans.append(m.span())
        target = _named(host, url=True) if host else None
        if target is None:
            continue
        carries = _QUERY_DATA.search(rest) or _QUERY_DATA.search(host)
        found.append((f"{target} (carrying data)" if carries else target, m.group(0)))
    free = _blank(text, spans)
    for m in _HOST.finditer(free):
        if not m.group(1).rsplit(".", 1)[-1].islower():
            continue  # ``ASP.NET``, ``VB.NET``: a product's name, not a host
        if free[m.end():m.end() + 1] == "(":
            continue  # ``logger.info(…)``: a method called, not a host
        if _NAMESPACE.match(free, m.end()) or _API_GROUP.search(free[: m.start()]):
            continue  # ``linkerd.io/inject:``, ``apiVersion: policy.linkerd.io/v1``: a name
        labels = m.group(1).lower().split(".")
        if labels[-2] in _EXTENSIONS:
            continue
        target = _named(m.group(1).lower(), url=False)
        if target:
            found.append((target, m.group(0)))
    for m in _RELATIVE.finditer(free):  # ``//host/path`` in HTML or script: the page's scheme
        target = _named(m.group(1).lower(), url=True)
        if target:
            found.append((target, m.group(0)))
    for m in _EMAIL.finditer(free):  # mail sent to an address reaches its domain
        if not (_MAIL_VERB.search(free[: m.start()]) and m.group(1).rsplit(".", 1)[-1].islower()):
            continue  # an address shown (an author, a placeholder) is sent nothing
        target = _named(m.group(1).lower(), url=False)
        if target and not any(t == target for t, _ in found):
            found.append((target, m.group(0)))
    for m in _DATA_NAME.finditer(free):  # any top-level domain when the name carries data
        target = f"{m.group(1).lower()} (carrying data)"
        if (target, m.group(0)) not in found and not any(t == target for t, _ in found):
            found.append((target, m.group(0)))
    for m in _SCP_LIKE.finditer(free):
        target = _named(m.group(1).lower(), url=True)
        if target and not any(t == target for t, _ in found):
            found.append((target, m.group(0)))
    for m in _SUFFIX.finditer(free):
        labels = m.group(1).lower().split(".")
        if labels[-1] in _TLD_SET and labels[-2] not in _EXTENSIONS:
            found.append((f"{m.group(1).lower()} (carrying data)", m.group(0)))
    for m in _DOTTED.finditer(free):
        ip = _ip(m.group(1))
        # In prose only a four-part address or a hex one is an IP ("version 1.2.3" is not),
        # and four single digits read as a version (``1.0.5.1``), as people write them.
        version = all(len(p) == 1 for p in m.group(1).split("."))
        if ip and not version and (ip[1] is False or "0x" in m.group(1).lower()):
            target = _ip_target(*ip)
            if target:
                found.append((target, m.group(0)))
    return found


# A storage URL's bucket written as a placeholder (``s3://bucket-name/``, ``gs://my-bucket``).
_PLACEHOLDER = re.compile(r"^(?:(?:my|your|our|the|some|example|sample|demo|test|dummy|placeholder"
                          r"|bucket|name|foo|bar|baz|data|source|dest\w*|target|backup|prod|dev"
                          r"|staging)"
                          r"(?:[-_]|$))+$")


def _named(host: str, url: bool) -> str | None:
    if "." not in host and _PLACEHOLDER.match(host):
        return None
    if re.search(_DATA, host):
        plain = re.sub(rf"^(?:[\w-]*{_DATA}[\w-]*\.)+", "", host)
        return f"{plain} (carrying data)"
    ip = _ip(host)
    if ip:
        return _ip_target(*ip)
    if _SAFE.match(host) or (not url and "." not in host):
        return None
    return host if "." in host or url else None


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)
