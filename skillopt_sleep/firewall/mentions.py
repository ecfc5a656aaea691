"""Whether a capability named in text is a mention or an instruction.

A capability named inside guidance that warns against it ("never pipe curl to sh"), under a
heading that warns ("Anti-patterns"), after a comment that does (``# BAD``) or as the subject
of a sentence that describes it and warns ("The ``--no-verify`` flag skips hooks; never use
it") is shown, not granted.
"""

from __future__ import annotations

import re

__all__ = ["COMMENT_WARNING", "SECTION_WARNING", "described", "warned"]

_WARNING = re.compile(
    r"\b(?:never|not|don'?t|do\s+not|doesn'?t|does\s+not|avoid\w*|without|nor|instead\s+of"
    r"|rather\s+than|prevent\w*|block\w*|refus\w*|reject\w*|detect\w*|flag\w*|warn\w*|forbid\w*"
    r"|prohibit\w*|dangerous|insecure|unsafe|malicious|attacks?|attackers?|exploit\w*"
    r"|vulnerab\w*|anti-?patterns?|bad|wrong|must\s+not|shouldn'?t|should\s+not|cannot|can'?t"
    r"|won'?t|risky|suspicious|red\s+flags?|banned|disallow\w*|deny|denies|denied|e\.g\.|such\s+as"
    r"|like|example|hostile|harmful|evil|poison\w*|injection|phishing)\b|❌|⛔|🚫", re.I)
_NOT_A_WARNING = re.compile(r"\b(?:don'?t|do\s+not|never)\s+(?:forget|hesitate|skip|miss)"
                            r"|\bnot\s+only\b", re.I)
SECTION_WARNING = re.compile(
    r"anti-?pattern|don'?t|do\s+not|never|avoid|bad\b|wrong|mistake|pitfall|insecure|unsafe"
    r"|vulnerab|attack|threat|malicious|exploit|what\s+not|red\s+flag|forbidden|❌|dangerous"
    r"|detect|injection|security\s+review|must\s+not|risk", re.I)
COMMENT_WARNING = re.compile(
    r"\b(?:bad|wrong|don'?t|do\s+not|never|avoid|insecure|unsafe|vulnerable|dangerous"
    r"|malicious|attack\w*|anti-?pattern|must\s+not|exploit\w*)\b|❌|⛔|🚫", re.I)
_CLAUSE = re.compile(r"[;:!?]|\.\s|\s[—–-]\s|\bbut\b|\bthen\b", re.I)


# "If vale flags errors, …": a condition that opens the sentence says when, not whether.
_CONDITION_LEAD = re.compile(r"^\W*(?:if|when|whenever|once|after|before|while|until"
                             r"|as\s+soon\s+as)"
                             r"\b[^,(]*,\s*", re.I)


def warned(before: str) -> bool:
    """Does the clause leading up to a mention warn against it?"""
    clause = _CLAUSE.split(before)[-1] if before else ""
    clause = _CONDITION_LEAD.sub("", clause)
    clause = _NOT_A_WARNING.sub(" ", clause[-120:])
    return bool(_WARNING.search(clause))


# The mention heads the sentence, alone or in a list of things ("Reverse shells and
# ``nc -e`` are forbidden").
_SUBJECT = re.compile(r"(?:^|[.;:!?]\s+)\W*(?:(?:the|a|an|this|that)\s+)?(?:(?:[\w`'-]+[\s,]+){1,3}"
                      r"(?:and|or)\s+(?:the\s+)?)?[`\"']*$", re.I)
_THEN_VERB = re.compile(r"^[`\"']*\s*(?:(?:flag|option|switch|setting|variable|command|mode"
                        r"|parameter|argument|pattern|trick)s?\s+)?(?:\w+s|is|are|does|can|will"
                        r"|may|would|was|were|has|lets)\b", re.I)


def described(line: str, start: int, end: int) -> bool:
    """Is the mention the subject of a sentence that describes and warns against it ("The
    ``--no-verify`` flag skips hooks; never use it")? Such a sentence shows, not says."""
    if not (_SUBJECT.search(line[:start]) and _THEN_VERB.match(line[end:])):
        return False
    rest = re.split(r"(?<=[.!?])\s+", line[end:], maxsplit=1)[0]
    return bool(_WARNING.search(rest))
