"""Whether, and which, rules can find anything in a text, from the words each rule needs.

Each rule module names the words it starts from (``assignments.HINT_GROUPS``,
``pem.HINTS``, ``urls.HINTS``, ``commands.ALONE_GROUPS``/``PIPED``/``SHORT_OPTION``/
``CLIENTS``); a text holding none of a family's words is not read by that family's rules
(``secrets._spans``), and a text holding no family's words, no ``.pgpass`` port field and
no long token run is not read at all (``secrets.may_hold_secrets``).

Words are grouped under a part they share (``pass`` before ``passw``, ``passph``, …), so a
text is scanned for the few parts first and for a group's words only when its part is
there: plain substring tests, each a fast scan in C. One pass for every word was measured
and is not cheaper in instructions here: a ``pyahocorasick`` automaton cost 77.6 M
instructions where these scans cost 65.0 M on the same texts (a 5 MB bench harvest's
prefilter calls), and a regular expression alternation of the words is slower still (it
tries each branch at every position).
"""

from __future__ import annotations

from collections.abc import Callable

from skillopt_sleep.secrets import assignments, commands, pem, slots, urls

__all__ = ["ASSIGNMENT", "COMMAND", "FAMILIES", "PEM", "SLOT", "URL", "any_rule", "grouped",
           "kinds"]

ASSIGNMENT, PEM, URL, COMMAND, SLOT = 1, 2, 4, 8, 16
"""The rule families a text may hold a finding of (bits of ``kinds``)."""


def grouped(low: str, groups: dict[str, tuple[str, ...]]) -> bool:
    """Whether ``low`` holds a word of ``groups`` (a part, then the words that hold it; a
    part with no words is a word itself)."""
    for part, words in groups.items():
        if part in low and (not words or any(word in low for word in words)):
            return True
    return False


def _assignment(low: str) -> bool:
    return grouped(low, assignments.HINT_GROUPS)


def _pem(low: str) -> bool:
    return any(word in low for word in pem.HINTS)


def _url(low: str) -> bool:
    return any(word in low for word in urls.HINTS)


def _command(low: str) -> bool:
    if grouped(low, commands.ALONE_GROUPS):
        return True
    if "|" in low and any(word in low for word in commands.PIPED):
        return True
    # Plain substring scans first (fast); the pattern only where an option may start.
    if any(start in low for start in commands.OPTION_STARTS) \
            and commands.SHORT_OPTION.search(low):
        return any(word in low for word in commands.CLIENTS)
    return False


def _slot(low: str) -> bool:
    """Secret nouns in other languages and credential-taking calls (``slots``)."""
    if any(word in low for word in slots.ASCII_HINTS) or any(
            word in low for word in slots.CALL_HINTS):
        return True
    if "\\u" in low and any(word in low for word in slots.ESCAPED_HINTS):
        return True
    return not low.isascii() and any(word in low for word in slots.WIDE_HINTS)


FAMILIES: tuple[tuple[int, Callable[[str], bool]], ...] = (
    (ASSIGNMENT, _assignment), (URL, _url), (PEM, _pem), (COMMAND, _command), (SLOT, _slot))
"""Each family's bit and its test on a lower-cased text, the cheapest first (``SLOT`` is
asked only of a text without an assignment word: its rules run for either)."""


def kinds(low: str) -> int:
    """The families (``ASSIGNMENT | PEM | URL | COMMAND | SLOT``) whose words lower-cased ``low``
    holds; a rule of a family not in the answer finds nothing in it."""
    bits = sum(bit for bit, holds in FAMILIES[:-1] if holds(low))
    return bits if bits & ASSIGNMENT or not _slot(low) else bits | SLOT


def any_rule(low: str) -> bool:
    """Whether any family's words are in lower-cased ``low`` (the first found decides)."""
    return any(holds(low) for _bit, holds in FAMILIES)
