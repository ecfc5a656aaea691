"""One pass over a text for the words every rule needs: whether, and which, rules can find
anything in it.

Each rule module names the words it starts from (``assignments.HINTS``, ``pem.HINTS``,
``urls.HINTS``, ``commands.ALONE``/``PIPED``/``OPTION_MARKS``/``CLIENTS``); they are read
here into one Aho-Corasick automaton (``pyahocorasick``), so a text is scanned once
however many words there are. About thirty separate substring scans per text were most of
redaction's cost (``experiments/redaction_instructions.py``), and a regular expression
alternation of the same words is slower still (it tries each branch at every position).

The answer is never "no" for a text a rule would redact: every rule needs one of its
words (or, for ``.pgpass`` lines and vendor tokens, a port field or a long token run, which
``secrets.may_hold_secrets`` tests beside this).
"""

from __future__ import annotations

import ahocorasick

from skillopt_sleep.secrets import assignments, commands, pem, urls

__all__ = ["ASSIGNMENT", "COMMAND", "PEM", "URL", "any_rule", "kinds", "words"]

ASSIGNMENT, PEM, URL, COMMAND = 1, 2, 4, 8
"""The rule families a text may hold a finding of (bits of ``kinds``)."""
_OPTION, _CLIENT, _PIPED = 16, 32, 64
"""Command-line words that count only together: a short option with a client or verb
word, an ``echo``/``printf`` with a pipe."""
_DECISIVE = ASSIGNMENT | PEM | URL | COMMAND
_SOURCES: tuple[tuple[tuple[str, ...], int], ...] = (
    (assignments.HINTS, ASSIGNMENT), (pem.HINTS, PEM), (urls.HINTS, URL),
    (commands.ALONE, COMMAND), (commands.PIPED, _PIPED),
    (commands.OPTION_MARKS, _OPTION), (commands.CLIENTS, _CLIENT),
)


def _automaton() -> ahocorasick.Automaton:
    bits: dict[str, int] = {}
    for found_words, bit in _SOURCES:
        for word in found_words:
            bits[word] = bits.get(word, 0) | bit
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for word, bit in bits.items():
        automaton.add_word(word, bit)
    automaton.make_automaton()
    return automaton


_AUTOMATON = _automaton()


def words() -> dict[str, int]:
    """Every word looked for, with its bits (for tests and the curious)."""
    return {word: _AUTOMATON.get(word) for word in _AUTOMATON}


def _settled(found: int, low: str) -> int:
    if found & _OPTION and found & _CLIENT:
        found |= COMMAND
    if found & _PIPED and "|" in low:
        found |= COMMAND
    return found & _DECISIVE


def kinds(low: str) -> int:
    """The families (``ASSIGNMENT | PEM | URL | COMMAND``) whose words lower-cased ``low``
    holds; a rule of a family not in the answer finds nothing in it."""
    found = 0
    for _end, bit in _AUTOMATON.iter(low):
        found |= bit
        if found & _DECISIVE == _DECISIVE:
            break
    return _settled(found, low)


def any_rule(low: str) -> bool:
    """Whether any family's words are in lower-cased ``low`` (the first decides)."""
    found = 0
    for _end, bit in _AUTOMATON.iter(low):
        found |= bit
        if found & _DECISIVE or (found & _OPTION and found & _CLIENT):
            return True
    return bool(_settled(found, low))
