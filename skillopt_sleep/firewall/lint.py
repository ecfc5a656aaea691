"""``skillopt-sleep lint``'s reading of a whole skill document, with severities.

``error``: what a night would refuse in an edit (a capability or hidden text in a learned
region, a secret anywhere, broken markers). ``warning``: a capability in the user's own
text, or text hidden in it: reported, never a reason to refuse a night. ``note``: size
(with what the skill costs every session that loads it), frontmatter shape, hosts the
user's own text names."""

from __future__ import annotations

import re

from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.firewall import frontmatter
from skillopt_sleep.firewall.provenance import found_in
from skillopt_sleep.firewall.rules import capability_finding, content_findings, parse_body
from skillopt_sleep.records import FirewallFinding
from skillopt_sleep.skilldoc import approx_tokens

MAX_SKILL_TOKENS = 2000
SEVERITIES = ("error", "warning", "note")


def _learned_lines(text: str, findings: list[FirewallFinding]) -> set[int]:
    """1-based lines inside the managed regions (learned text)."""
    try:
        doc, skipped = parse_body(text)
        text = doc.text
    except SkillDocError as exc:
        if "marker" in str(exc) or "region" in str(exc):
            findings.append(FirewallFinding("broken_markers", str(exc), _line_of(str(exc))))
        return set()
    lines: set[int] = set()
    for region in doc.regions.values():
        first = text.count("\n", 0, region.body_start) + 1 + skipped
        last = text.count("\n", 0, region.body_end) + 1 + skipped
        lines.update(range(first, last + 1))
    return lines


def lint_document(text: str, max_tokens: int = MAX_SKILL_TOKENS, folder: str = ""
                  ) -> list[FirewallFinding]:
    """All findings for a whole skill document, sorted by line."""
    findings: list[FirewallFinding] = []
    learned = _learned_lines(text, findings)
    own_found = content_findings(text, own=True)
    for f in own_found:
        if f.line in learned and f.severity == "warning":
            f.severity = "error"
        if f.rule == "frontmatter":
            continue
        findings.append(f)
    seen: set[tuple[str, str, int]] = set()
    for cap in found_in(text):
        if (cap.kind, cap.target, cap.line) not in seen:
            seen.add((cap.kind, cap.target, cap.line))
            findings.append(capability_finding(cap, own=cap.line not in learned))
    findings += [FirewallFinding("frontmatter_shape", note, 1, severity="note")
                 for note in frontmatter.shape_notes(text, folder)]
    tokens = approx_tokens(text)
    if tokens > max_tokens:
        findings.append(FirewallFinding(
            "size", f"about {tokens:,} tokens loaded into every session that uses this skill "
            f"(budget {max_tokens:,})", 1, severity="note"))
    return sorted(findings, key=lambda f: (f.line, SEVERITIES.index(f.severity), f.rule))


def _line_of(message: str) -> int:
    match = re.match(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
