"""The edit firewall: rules no skill text may break, shared by the night and ``lint``.

An edit is checked before it can reach the gate; a skill document is checked as a whole by
``skillopt-sleep lint``. Both use ``RULES`` below, so a user linting a hand-written skill
sees exactly what the night would refuse to write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from skillopt_sleep.errors import SkillDocError
from skillopt_sleep.records import Edit, FirewallFinding
from skillopt_sleep.skilldoc import MARKER_PREFIX, approx_tokens, parse

MAX_ENTRY_CHARS = 400
MAX_SKILL_TOKENS = 2000

_URL = re.compile(r"\b(?:https?|ftp|ssh|git)://([A-Za-z0-9.-]+)", re.IGNORECASE)
# Bare host names, by the top-level domains hostile text favours. ``.sh``, ``.app`` and
# ``.py``-like endings are left out on purpose: ``./setup.sh`` and ``Xcode.app`` are files.
_HOST = re.compile(
    r"(?<![/\w.-])((?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|ai|xyz|ru|cn|co|me|info|biz|top|cloud))\b",
    re.IGNORECASE,
)
_PIPE_TO_SHELL = re.compile(
    r"(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|]*\|\s*"
    r"(?:sudo\s+)?(?:ba|z|k|da)?sh\b|"
    r"(?:curl|wget|iwr|invoke-webrequest|irm)\b[^\n|]*\|\s*(?:sudo\s+)?"
    r"(?:python[0-9.]*|perl|ruby|node|iex|invoke-expression)\b|"
    r"(?:ba|z)?sh\s+<\(\s*(?:curl|wget)|"
    r"(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)",
    re.IGNORECASE,
)
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^\n.]{0,40}?"
    r"\b(?:previous|prior|above|earlier|system|all|any|other|developer)\b[^\n.]{0,20}?"
    r"\b(?:instructions?|prompts?|rules|guidelines|messages?)\b|"
    r"\byou are now\b|\bnew system prompt\b|\bjailbreak\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Context:
    """What the night knows is legitimate: hosts that appear in the tasks themselves."""

    allowed_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Context:
        hosts: set[str] = set()
        for text in texts:
            hosts.update(h.lower() for h in _URL.findall(text))
            hosts.update(h.lower() for h in _HOST.findall(text))
        return cls(frozenset(hosts))


def _secrets(text: str) -> list[tuple[str, str]]:
    from skillopt_sleep.secrets import find_secrets

    return find_secrets(text)


def scan_text(text: str, ctx: Context = Context()) -> list[FirewallFinding]:
    """Findings for one piece of text, each with the 1-based line it sits on."""
    findings: list[FirewallFinding] = []
    for lineno, line in enumerate(text.splitlines() or [text], start=1):
        for kind, match in _secrets(line):
            findings.append(FirewallFinding("secret", f"{kind}: {_mask(match)}", lineno))
        for host in {h.lower() for h in _URL.findall(line)} | {
            h.lower() for h in _HOST.findall(line)
        }:
            if host not in ctx.allowed_hosts:
                findings.append(FirewallFinding("foreign_url", host, lineno))
        if m := _PIPE_TO_SHELL.search(line):
            findings.append(FirewallFinding("download_to_shell", m.group(0)[:80], lineno))
        if m := _OVERRIDE.search(line):
            findings.append(FirewallFinding("instruction_override", m.group(0)[:80], lineno))
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


def lint_document(text: str, max_tokens: int = MAX_SKILL_TOKENS) -> list[FirewallFinding]:
    """All findings for a whole skill document (what ``skillopt-sleep lint`` prints)."""
    findings = scan_text(text)
    try:
        parse(text)
    except SkillDocError as exc:
        findings.append(FirewallFinding("broken_markers", str(exc), _line_of(str(exc))))
    tokens = approx_tokens(text)
    if tokens > max_tokens:
        findings.append(
            FirewallFinding("size_over_budget", f"about {tokens} tokens > {max_tokens}", 1)
        )
    return sorted(findings, key=lambda f: (f.line, f.rule))


def _line_of(message: str) -> int:
    match = re.match(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
