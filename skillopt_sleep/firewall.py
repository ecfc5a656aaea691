"""The edit firewall: rules no skill text may break, shared by the night and ``lint``.

An edit is checked before it can reach the gate; a skill document is checked as a whole by
``skillopt-sleep lint``. Both use the same rules, so a user linting a hand-written skill
sees exactly what the night would refuse to write.

Every line is normalised before it is matched (NFKC, zero-width and bidi controls removed,
look-alike letters folded to Latin), so ``c\u200burl … | sh`` or a Cyrillic "іgnore" reads
as what an agent would act on. Learned text (edits, a document's managed regions) and the
user's own text are told apart: a host in the user's own words is a ``note`` (``own_url``)
that never fails ``lint``; the same host in learned text is ``foreign_url``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.records import Edit, FirewallFinding
from skillopt_sleep.secrets import find_secrets
from skillopt_sleep.skilldoc import MARKER_PREFIX, approx_tokens, parse

MAX_ENTRY_CHARS = 400
MAX_SKILL_TOKENS = 2000
NOTES = frozenset({"own_url"})
"""Rules reported at note level: shown by ``lint``, never a failure."""

# Zero-width, joiners, bidi embeddings/overrides/isolates, soft hyphen, BOM, word joiners.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁһӏԛԝ" "АВЕКМНОРСТХУІЈЅԌ" "αβεικνορτυχ" "ΑΒΕΗΙΚΜΝΟΡΤΥΧ" "ɡɩʟ",
    "aeopcyxijsdhlqw" "ABEKMHOPCTXYIJSG" "abeikvoptux" "ABEHIKMNOPTYX" "gil",
)
_FRONTMATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)
_URL = re.compile(r"\b(?:https?|ftp|ssh|git|wss?)://([A-Za-z0-9.-]+)", re.IGNORECASE)
# Bare host names by the top-level domains hostile text favours. A single-label ``.sh`` or
# ``.zip`` name is a file (``setup.sh``), so those need two labels (``get.evil.sh``).
_HOST = re.compile(
    r"(?<![/\w.@-])((?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|ai|xyz|ru|cn|co|me|info|biz|top"
    r"|cloud|tk|ml|ga|cf|gq|pw|su|click|link|site|online|live|icu|buzz)"
    r"|(?:[a-z0-9-]+\.){2,}(?:sh|zip|mov|run))\b(?![.\w-]*/?\w*\.(?:py|js|ts|md)\b)",
    re.IGNORECASE,
)
_SAFE_HOSTS = re.compile(
    r"^(?:localhost|127\.0\.0\.1|0\.0\.0\.0|(?:[\w-]+\.)*example\.(?:com|org|net)"
    r"|[\w.-]+\.(?:test|local|localhost|invalid|example))$", re.IGNORECASE,
)
# A shell or interpreter a pipe runs, after ``sudo -E`` / ``env X=1`` prefixes.
_RUN = (
    r"(?:sudo\s+(?:-{1,2}[\w-]+(?:[= ]\S+)?\s+)*)?(?:env\s+\S+=\S+\s+)*"
    r"(?:(?:ba|z|k|da|fi|c)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell|iex"
    r"|invoke-expression)\b"
)
_FETCH = r"(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod|aria2c|http)"
_DOWNLOAD_TO_SHELL = re.compile(
    "|".join([
        rf"\b{_FETCH}\s+[^\s|][^\n|]*\|\s*{_RUN}",  # curl URL | sh (an argument is required)
        rf"\b(?:base64|b64)\s+(?:-d|--decode|-D)\b[^\n]*\|\s*{_RUN}",  # encoded payload
        rf"\b(?:xxd\s+-r|openssl\s+(?:enc|base64)\s+[^\n|]*-d|gunzip|zcat)\b[^\n]*\|\s*{_RUN}",
        rf"\b(?:ba|z)?sh\s+<\(\s*{_FETCH}",
        rf"(?:\beval|\bsource|(?:^|\s)\.)\s+[\"']?(?:<\(|\$\()\s*{_FETCH}",
        rf"\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*{_FETCH}",
        rf"\b{_FETCH}\b[^\n]*(?:&&|;|\|\|)\s*(?:chmod\s+\+x\s+\S+\s*(?:&&|;)\s*)?(?:{_RUN}|\./)",
        r"\b(?:iex|invoke-expression)\b[^\n]{0,120}"
        r"(?:downloadstring|downloadfile|iwr|invoke-webrequest|irm|invoke-restmethod|webclient)",
        r"(?:downloadstring|invoke-webrequest|invoke-restmethod|\birm|\biwr)\b[^\n]{0,160}"
        r"\|\s*(?:iex|invoke-expression)\b",
    ]),
    re.IGNORECASE,
)
_SECRET_THING = (
    r"(?:\$\{?\w*(?:key|token|secret|pass)\w*|\$\(env\)|\b(?:env(?:ironment)?\s+var(?:iable)?s?"
    r"|printenv|os\.environ|api[ _-]?keys?|secrets?|credentials?|passwords?|private\s+keys?"
    r"|(?:api|access|auth|bearer|session|github|npm|secret)[ _-]?tokens?|ssh\s+keys?"
    r"|id_(?:rsa|ed25519|ecdsa)|keychain|cookies?)|~?/?\.ssh\b|\.aws\b|\.env\b|\.netrc)"
)
_EXFILTRATION = re.compile(
    "|".join([
        r"\b(?:print|echo|dump|show|output|display|list|reveal|include|paste|send|post|upload"
        r"|share|copy|exfiltrate|leak|e-?mail|append|forward|transmit)(?:s|es|ed|ing)?\b"
        r"(?:[^\n.]|\.(?=\S)){0,60}?" + _SECRET_THING,
        r"\bprintenv\b|\benv\s*(?:\||>)|\bset\s*\|\s*(?:curl|nc)\b",
        r"\bcat\s+\S*(?:\.ssh/(?!\S*\.pub\b)\S*|id_(?:rsa|ed25519|ecdsa)(?!\.pub)\b"
        r"|\.aws/credentials|\.netrc|\.env\b)",
        r"\|\s*(?:nc|ncat|netcat|socat|telnet)\b|/dev/tcp/",
        r"\bcurl\b[^\n]*(?:-d|--data\S*|-F|--form|-T|--upload-file)\s+[^\n]*"
        r"(?:\$\{?\w*(?:key|token|secret|pass)|\benv\b|\.ssh|\.aws|id_rsa|\.env\b)",
    ]),
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:never|not|don'?t|do\s+not|avoid|no|without|nor)\b[^\n.]{0,24}$",
                      re.IGNORECASE)
_OVERRIDE = re.compile(
    "|".join([
        r"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|set\s+aside"
        r"|pay\s+no\s+attention\s+to|stop\s+following|no\s+longer\s+follow|do\s+not\s+follow"
        r"|don'?t\s+follow|throw\s+out|discard)\b[^\n]{0,50}?\b(?:instructions?|prompts?|rules"
        r"|guidelines|messages?|directives|guardrails|polic(?:y|ies)|constraints|safety"
        r"|restrictions|what\s+(?:you\s+were|the\s+(?:user|system))\s+(?:told|said))\b",
        r"\byou\s+are\s+now\s+(?:a|an|the|in\s+\w+\s+mode|free|no\s+longer|unrestricted|dan)\b",
        r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should|have)\b",
        r"\b(?:act|behave|pretend)\s+as\s+(?:if\s+you\s+(?:are|were|have)\s+)?(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|jailbroken|dan|root|admin|developer\s+mode)\b",
        r"\bnew\s+(?:system\s+)?(?:prompt|instructions)\b|\bjailbreak|\bdeveloper\s+mode\b",
        r"\b(?:reveal|print|show|repeat|output)\s+(?:your|the)\s+(?:system\s+prompt"
        r"|hidden\s+instructions|initial\s+instructions)\b",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|alert|ask)\s+"
        r"(?:the\s+)?user\b|\bwithout\s+(?:telling|asking|informing|notifying)\s+the\s+user\b",
        r"\b(?:these|this)\s+(?:instructions?|rules?)\s+(?:take|takes|have|has)\s+(?:precedence"
        r"|priority)\b|\bhighest\s+priority\b[^\n]{0,30}\binstructions?\b",
        r"\b(?:the\s+)?(?:user|system|admin\w*)\s+(?:has\s+)?(?:already\s+)?(?:authori[sz]ed"
        r"|approved|allowed)\s+you\s+to\b",
    ]),
    re.IGNORECASE,
)
_FRONTMATTER_KEY = re.compile(
    r"^\s*(?:[-*]\s*)?(?:name|description|allowed[-_]tools|tools|model|permission[-_]?mode"
    r"|hooks|disable[-_]model[-_]invocation|license|metadata)\s*:", re.IGNORECASE,
)


def normalise(text: str) -> str:
    """What an agent reads: NFKC, invisible controls dropped, look-alike letters folded."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_LOOKALIKE)


@dataclass(frozen=True)
class Context:
    """What the night knows is legitimate: hosts that appear in the tasks themselves."""

    allowed_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Context:
        hosts: set[str] = set()
        for text in texts:
            hosts.update(_hosts(normalise(text)))
        return cls(frozenset(hosts))


def _hosts(line: str) -> set[str]:
    found = {h.lower().rstrip(".") for h in _URL.findall(line)}
    found |= {h.lower() for h in _HOST.findall(line)}
    return {h for h in found if h and not _SAFE_HOSTS.match(h)}


def _not_negated(line: str, match: re.Match[str] | None) -> re.Match[str] | None:
    """``match`` unless the words just before it negate it ("never print secrets")."""
    if match and _NEGATED.search(line[: match.start()]):
        return None
    return match


def scan_text(text: str, ctx: Context = Context(), own: bool = False) -> list[FirewallFinding]:
    """Findings for one piece of text, each with the 1-based line it sits on.

    ``own``: the text is the user's own (hosts are notes, frontmatter keys are theirs).
    """
    findings: list[FirewallFinding] = []
    for lineno, raw in enumerate(text.splitlines() or [text], start=1):
        line = normalise(raw)
        found: list[tuple[str, str]] = []
        if _INVISIBLE.search(raw.replace("\u200d", "") if own else raw):
            found.append(("hidden_characters", repr(raw[:80])))
        found += [("secret", f"{kind}: {_mask(match)}") for kind, match in find_secrets(line)]
        for host in sorted(_hosts(line) - ctx.allowed_hosts):
            found.append(("own_url" if own else "foreign_url", host))
        if m := _DOWNLOAD_TO_SHELL.search(line):
            found.append(("download_to_shell", m.group(0)[:80]))
        if m := _not_negated(line, _EXFILTRATION.search(line)):
            found.append(("exfiltration", m.group(0)[:80]))
        if m := _not_negated(line, _OVERRIDE.search(line)):
            found.append(("instruction_override", m.group(0)[:80]))
        if not own and (m := _FRONTMATTER_KEY.search(line)):
            found.append(("frontmatter", m.group(0)[:80]))
        findings += [FirewallFinding(rule, excerpt, lineno) for rule, excerpt in found]
    return findings


def _mask(secret: str) -> str:
    return secret[:4] + "…" if len(secret) > 8 else "…"


def check_edit(edit: Edit, ctx: Context = Context()) -> list[FirewallFinding]:
    """Why this edit must not reach the gate (empty: it may)."""
    text = f"{edit.text}\n{edit.anchor}"
    findings = scan_text(text, ctx)
    if MARKER_PREFIX in text or "<!--" in text or re.search(r"^\s*---\s*$", text, re.MULTILINE):
        findings.append(FirewallFinding("marker_or_frontmatter", text[:80], 1))
    if len(edit.text) > MAX_ENTRY_CHARS:
        findings.append(
            FirewallFinding("entry_too_long", f"{len(edit.text)} chars > {MAX_ENTRY_CHARS}", 1)
        )
    if "\n" in edit.text.strip():
        findings.append(FirewallFinding("multi_line_entry", edit.text[:80], 1))
    return findings


def check_proposal(before: str, after: str, ctx: Context | None = None
                   ) -> list[FirewallFinding]:
    """Why a whole proposal must not be written (empty: it may).

    Frontmatter changes: anything but the ``description`` value (the trigger check's own
    typed edit) is refused, ``name`` included. With ``ctx`` (the night's, which knows the
    user's own hosts) also what only the whole document shows: the user's own words
    changed, or a learned entry the edit rules refuse.
    """
    findings = _frontmatter_changes(before, after)
    if ctx is None:
        return findings
    try:
        old, new = parse(before), parse(after)
    except SkillDocError as exc:
        return [*findings, FirewallFinding("unreadable", str(exc)[:80], 1)]
    if _own_words(old.user_text()) != _own_words(new.user_text()):
        findings.append(FirewallFinding("user_text", "text outside the learned regions changed"))
    for region in new.regions:
        known = set(old.entries(region))
        for entry in new.entries(region):
            if entry not in known:
                findings += scan_text(entry, ctx)
    return findings


def _frontmatter_changes(before: str, after: str) -> list[FirewallFinding]:
    old, new = _frontmatter_keys(before), _frontmatter_keys(after)
    if old is None or new is None or (old == {}) != (new == {}):
        return [FirewallFinding("frontmatter", "frontmatter added, removed or unreadable", 1)]
    changed = sorted(k for k in old.keys() | new.keys()
                     if k != "description" and old.get(k) != new.get(k))
    return [FirewallFinding("frontmatter", f"{k} changed", 1) for k in changed]


def _own_words(text: str) -> str:
    """The user's words as a proposal may not change them: no frontmatter (checked on its
    own), no region markers (a first proposal appends them), no trailing blank lines."""
    body = _FRONTMATTER.sub("", text, count=1)
    return "\n".join(line for line in body.splitlines() if MARKER_PREFIX not in line).rstrip()


def _frontmatter_keys(text: str) -> dict[str, object] | None:
    """The frontmatter as a mapping ({} when there is none; None when it is not YAML)."""
    match = _FRONTMATTER.match(text)
    if not match:
        return {}
    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError:
        return None
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else None


def lint_document(text: str, max_tokens: int = MAX_SKILL_TOKENS) -> list[FirewallFinding]:
    """All findings for a whole skill document (what ``skillopt-sleep lint`` prints): the
    managed regions are checked as learned text, the rest as the user's own."""
    findings: list[FirewallFinding] = []
    learned: list[tuple[int, int]] = []
    try:
        doc = parse(text)
        learned = [(r.body_start, r.body_end) for r in doc.regions.values()]
    except SkillDocError as exc:
        findings.append(FirewallFinding("broken_markers", str(exc), _line_of(str(exc))))
    lines = text.splitlines(keepends=True)
    offset = 0
    for lineno, line in enumerate(lines, start=1):
        own = not any(s <= offset < e for s, e in learned)
        findings += [FirewallFinding(f.rule, f.excerpt, lineno)
                     for f in scan_text(line.rstrip("\r\n"), own=own)]
        offset += len(line)
    tokens = approx_tokens(text)
    if tokens > max_tokens:
        findings.append(
            FirewallFinding("size_over_budget", f"about {tokens} tokens > {max_tokens}", 1)
        )
    return sorted(findings, key=lambda f: (f.line, f.rule))


def _line_of(message: str) -> int:
    match = re.match(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
