"""Whether, and which, rules can find anything in a text, from the words each rule needs.

Each rule module names the words it starts from (``assignments.HINT_GROUPS``,
``pem.HINTS``, ``urls.HINTS``, ``commands.ALONE_GROUPS``/``PIPED``/``SHORT_OPTION``/
``CLIENTS``, ``slots.ASCII_HINTS``/``CALL_HINTS``/``ESCAPED_HINTS``/``WIDE_HINTS``); a
text holding none of a family's words is not read by that family's rules
(``secrets._spans``), and a text holding no family's words, no ``.pgpass`` line and no
long token run is not read at all (``secrets.may_hold_secrets``).

Every word that is enough by itself is looked for in one pass (``anchored``): a regular
expression whose branches each start at a word's rarest character, so the engine's
search (a set test per character, in C) stops only where such a character is, and checks
the letters before it by a lookbehind. Over a harvest of the history benchmark this costs
about a third of one substring scan per word (ninety of them; a scan costs about three
instructions a character, the pass about a hundred at each stop). A plain alternation of
the words, or a ``pyahocorasick`` automaton, stops or steps at every character and costs
more. The words that count only with another sign (a pipe, a short option, a JSON
escape, a character outside ASCII) are looked for after that sign.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skillopt_sleep.secrets import assignments, commands, pem, slots, urls

__all__ = ["ASSIGNMENT", "COMMAND", "PEM", "SLOT", "URL", "anchored", "any_rule", "kinds"]

ASSIGNMENT, PEM, URL, COMMAND, SLOT = 1, 2, 4, 8, 16
"""The rule families a text may hold a finding of (bits of ``kinds``)."""

_BY_FREQUENCY = (" etsronaildcp\"hfum,.()g_`:kwby-=v|[]x0\\'j1{}>+?/*2;q3z45#6<897%!@$^~&")
"""Lower-cased ASCII characters from the most to the least frequent in this package's
sources and docs (code and English prose); any other character is rarer than all."""


def _rarest(word: str) -> int:
    """Where in ``word`` its rarest character is (the first of equals)."""
    def rank(i: int) -> int:
        found = _BY_FREQUENCY.find(word[i])
        return len(_BY_FREQUENCY) if found < 0 else found
    return max(range(len(word)), key=rank)


def anchored(words: Iterable[str]) -> re.Pattern[str]:
    """One pattern that matches the rarest character of any of ``words`` (lower-case)
    where the word is: ``passw`` as ``w(?<=passw)``, ``token`` as ``k(?<=tok)(?=en)``.
    Its branches each start with a literal, so the search tests each character against
    the set of their first characters and tries the branches only where one is."""
    rests: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        at = _rarest(word)
        before = f"(?<={re.escape(word[: at + 1])})" if at else ""
        after = f"(?={re.escape(word[at + 1:])})" if word[at + 1:] else ""
        rests.setdefault(word[at], []).append(before + after)
    branches = [re.escape(char) + (f"(?:{'|'.join(rest)})" if "" not in rest else "")
                for char, rest in sorted(rests.items())]
    return re.compile("|".join(branches))


def _flat(groups: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(word for part, words in groups.items() for word in words or (part,))


def _alone_words() -> dict[str, int]:
    """Each word that is enough by itself, and the families it is a word of."""
    families: dict[str, int] = {}
    for bit, words in ((ASSIGNMENT, _flat(assignments.HINT_GROUPS)), (PEM, pem.HINTS),
                       (URL, urls.HINTS), (COMMAND, _flat(commands.ALONE_GROUPS)),
                       (SLOT, slots.ASCII_HINTS + slots.CALL_HINTS)):
        for word in words:
            families[word] = families.get(word, 0) | bit
    return families


_ALONE = _alone_words()
_ANY_ALONE = anchored(_ALONE)
_AT_ANCHOR: dict[str, list[tuple[str, int, int]]] = {}
"""The words by their rarest character: the word, where that character is in it, and the
families it is a word of."""
for _word, _families in _ALONE.items():
    _AT_ANCHOR.setdefault(_word[_rarest(_word)], []).append(
        (_word, _rarest(_word), _families))
_CLIENT = anchored(commands.CLIENTS)


def _alone(low: str) -> int:
    """The families whose self-sufficient words ``low`` holds: at each place the pattern
    stops (none in most text), the words whose rarest character that is."""
    bits = 0
    for match in _ANY_ALONE.finditer(low):
        at = match.start()
        for word, offset, families in _AT_ANCHOR[low[at]]:
            if families & ~bits and at >= offset and low.startswith(word, at - offset):
                bits |= families
    return bits


def _command(low: str) -> bool:
    """A command word that counts only with its sign: a value piped into a tool that
    reads one (``echo X | login``), or a client's short option (``mysql -pX``)."""
    if "|" in low and any(word in low for word in commands.PIPED):
        return True
    return "-" in low and commands.SHORT_OPTION.search(low) is not None \
        and _CLIENT.search(low) is not None


def _slot(low: str) -> bool:
    """A secret noun spelled with JSON escapes, or in a script outside ASCII."""
    if "\\u" in low and any(word in low for word in slots.ESCAPED_HINTS):
        return True
    return not low.isascii() and any(word in low for word in slots.WIDE_HINTS)


def _signed(low: str) -> int:
    return (COMMAND if _command(low) else 0) | (SLOT if _slot(low) else 0)


def kinds(low: str) -> int:
    """The families (``ASSIGNMENT | PEM | URL | COMMAND | SLOT``) whose words lower-cased ``low``
    holds; a rule of a family not in the answer finds nothing in it."""
    return _alone(low) | _signed(low)


def any_rule(low: str) -> bool:
    """Whether any family's words are in lower-cased ``low``."""
    return _ANY_ALONE.search(low) is not None or _signed(low) != 0
