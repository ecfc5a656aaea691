"""The firewall's verdicts: on one edit (``check_edit``), on a whole proposal
(``check_proposal``, the night's last check and adoption's), on any text (``scan_text``)."""

from __future__ import annotations

import re

from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.firewall import frontmatter
from skillopt_sleep.firewall.capabilities import REACH_HOST, Capability
from skillopt_sleep.firewall.normalise import read
from skillopt_sleep.firewall.provenance import Context, found_in
from skillopt_sleep.records import Edit, FirewallFinding
from skillopt_sleep.secrets import find_secrets
from skillopt_sleep.skilldoc import MARKER_PREFIX, SkillDoc, parse

MAX_ENTRY_CHARS = 400
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HIDDEN = "hidden_characters"
SECRET = "secret"
_FRONTMATTER_KEY = re.compile(
    r"^\s*(?:[-*]\s*)?(?:name|description|allowed[-_]tools|tools|model|permission[-_]?mode"
    r"|hooks|disable[-_]model[-_]invocation|license|metadata)\s*:", re.IGNORECASE,
)


def capability_finding(cap: Capability, own: bool = False) -> FirewallFinding:
    """A capability as a finding: an error in learned text; in the user's own text a
    warning (a host: a note), reported and never refused."""
    severity = "error" if not own else ("note" if cap.kind == REACH_HOST else "warning")
    return FirewallFinding(cap.kind, f"{cap.target}: {cap.excerpt}"[:120], cap.line,
                           severity=severity, capability=cap.kind)


def content_findings(text: str, own: bool) -> list[FirewallFinding]:
    """Hidden characters and secrets, line by line."""
    reading = read(text)
    found = [FirewallFinding(HIDDEN, what, line, severity="warning" if own else "error")
             for line, what in reading.hidden]
    fence = ""
    for number, line in enumerate(reading.text.splitlines() or [reading.text], start=1):
        opener = _FENCE.match(line)
        if opener and (not fence or line.strip().startswith(fence)):
            fence = "" if fence else opener.group(1)
        # A secret is refused in an edit; in the user's own file it is theirs to fix.
        found += [FirewallFinding(SECRET, f"{kind}: {_mask(match)}", number,
                                  severity="warning" if own else "error")
                  for kind, match in find_secrets(line)]
        if not own and not fence and (m := _FRONTMATTER_KEY.search(line)):
            found.append(FirewallFinding("frontmatter", m.group(0)[:80], number))
    return found


def scan_text(text: str, ctx: Context | None = None, own: bool = False
              ) -> list[FirewallFinding]:
    """Findings for one piece of text, each on its 1-based line: hidden characters,
    secrets, and every capability ``ctx`` does not already grant.

    ``own``: the text is the user's own (capabilities are reported, not refused)."""
    ctx = (ctx or Context()).commands_granted(text)
    found = content_findings(text, own)
    seen: set[tuple[str, str, int]] = set()
    for cap in found_in(text):
        if not ctx.permits(cap) and (cap.kind, cap.target, cap.line) not in seen:
            seen.add((cap.kind, cap.target, cap.line))
            found.append(capability_finding(cap, own))
    return found


def _mask(secret: str) -> str:
    return secret[:4] + "…" if len(secret) > 8 else "…"


def check_edit(edit: Edit, ctx: Context | None = None) -> list[FirewallFinding]:
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

    The frontmatter may change in its ``description`` value only; the user's own words not
    at all. The text as the proposal leaves it, all edits together (a payload split over
    several entries reads whole), may grant no capability that neither ``before`` nor
    ``ctx`` (the user's own typed requests) already grants; nor hide characters or hold a
    secret ``before`` did not. Adoption passes what the staged night recorded the user's
    requests granted (``NightResult.granted``), so it writes what the night validated.
    """
    findings = _frontmatter_changes(before, after)
    try:
        (old, _), (new, _) = parse_body(before), parse_body(after)
    except SkillDocError as exc:
        return [*findings, FirewallFinding("unreadable", str(exc)[:80], 1)]
    if _own_words(old.user_text()) != _own_words(new.user_text()):
        findings.append(FirewallFinding("user_text", "text outside the learned regions changed"))
    learned = "\n".join(new.text[r.body_start:r.body_end] for r in new.regions.values())
    granted = (ctx or Context()).with_text(before).commands_granted(learned)
    known = {(f.rule, f.excerpt) for f in content_findings(before, own=True)}
    for f in content_findings(learned, own=False):
        if (f.rule, f.excerpt) not in known:
            findings.append(f)
    whole = [c for c in found_in(after) + found_in(_joined(learned)) if not granted.permits(c)]
    findings += [capability_finding(c) for c in _unique(whole)]
    return findings


def parse_body(text: str) -> tuple[SkillDoc, int]:
    """The document with its regions, and how many lines were set aside to read it. A
    frontmatter a strict parser refuses is the frontmatter check's business (tolerant,
    ``frontmatter.keys``): the body is read without it rather than not at all."""
    try:
        return parse(text), 0
    except SkillDocError as whole:
        head = frontmatter.FRONTMATTER.match(text)
        if head is None:
            raise
        try:
            return parse(text[head.end():]), text.count("\n", 0, head.end())
        except SkillDocError:
            # Broken without the frontmatter too: the first error's line is the file's.
            raise whole from None


def _joined(learned: str) -> str:
    """The learned entries as one run of text, so a command split over several entries
    (``curl … \\`` / ``| sh``) is read as the one command it becomes."""
    entries = [re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).rstrip("\\ ")
               for line in learned.splitlines()
               if line.strip() and MARKER_PREFIX not in line]
    return " ".join(entries)


def _unique(caps: list[Capability]) -> list[Capability]:
    seen: dict[tuple[str, str], Capability] = {}
    for cap in caps:
        seen.setdefault(cap.key, cap)
    return list(seen.values())


def _frontmatter_changes(before: str, after: str) -> list[FirewallFinding]:
    had, has = frontmatter.block(before) is not None, frontmatter.block(after) is not None
    if had != has:
        return [FirewallFinding("frontmatter", "frontmatter added or removed", 1)]
    old, new = frontmatter.keys(before), frontmatter.keys(after)
    changed = sorted(k for k in old.keys() | new.keys()
                     if k != "description" and old.get(k) != new.get(k))
    return [FirewallFinding("frontmatter", f"{k} changed", 1) for k in changed]


def _own_words(text: str) -> str:
    """The user's words as a proposal may not change them: no frontmatter (checked on its
    own), no region markers (a first proposal appends them), no trailing blank lines."""
    body = frontmatter.FRONTMATTER.sub("", text, count=1)
    return "\n".join(line for line in body.splitlines() if MARKER_PREFIX not in line).rstrip()
