"""Whether, and which, rules can find anything in a text, from the words each rule needs.

Each rule module names the words it starts from (``assignments.HINT_GROUPS``,
``pem.HINTS``, ``urls.HINTS``, ``commands.ALONE_GROUPS``/``PIPED``/``SHORT_OPTION``/
``CLIENTS``, ``slots.ASCII_HINTS``/``CALL_HINTS``/``ESCAPED_HINTS``/``WIDE_HINTS``); a
text holding none of a family's words is not read by that family's rules
(``secrets._spans``), and a text holding no family's words, no ``.pgpass`` line and no
long token run is not read at all (``secrets.may_hold_secrets``).

A word is looked for only where its rarest character is in the text (``_GATES``): a
one-character test is a ``memchr`` over the text, many times cheaper than a substring
scan (about three instructions a character), and most text lacks most rare characters.
Words that refine a part their rule module groups them under (``pass`` before ``passw``,
``passph``, …) are looked for only where the part is. Measured and not cheaper here: a
``pyahocorasick`` automaton of the words, a regular expression alternation of them, and
one whose branches start at each word's rarest character (the engine's per-character set
test and its stops cost more than the scans it saves).
"""

from __future__ import annotations

from skillopt_sleep.secrets import assignments, commands, pem, slots, urls

__all__ = ["ASSIGNMENT", "COMMAND", "PEM", "SLOT", "URL", "any_rule", "kinds"]

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
_Gate = tuple[str, str, tuple[tuple[str, int], ...]]
"""A rare character, a part, and the words (with their families) that hold both."""


def _gates() -> tuple[_Gate, ...]:
    parts = {word: part for groups in (assignments.HINT_GROUPS, commands.ALONE_GROUPS)
             for part, words in groups.items() for word in words}
    gates: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for word, families in _ALONE.items():
        gates.setdefault((word[_rarest(word)], parts.get(word, word)), []).append(
            (word, families))
    return tuple((char, part, tuple(words)) for (char, part), words in gates.items())


_GATES = _gates()
_CLIENTS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (char, tuple(w for w in commands.CLIENTS if w[_rarest(w)] == char))
    for char in sorted({w[_rarest(w)] for w in commands.CLIENTS}))
"""The clients and verbs a short option counts with, by their rarest character."""


def _alone(low: str, first: bool = False) -> int:
    """The families whose self-sufficient words ``low`` holds (``first``: stop at one)."""
    bits = 0
    for char, part, words in _GATES:
        if char not in low or part not in low:
            continue
        for word, families in words:
            if families & ~bits and (word == part or word in low):
                bits |= families
                if first:
                    return bits
    return bits


def _command(low: str) -> bool:
    """A command word that counts only with its sign: a value piped into a tool that
    reads one (``echo X | login``), or a client's short option (``mysql -pX``)."""
    if "|" in low and any(word in low for word in commands.PIPED):
        return True
    return "-" in low and commands.SHORT_OPTION.search(low) is not None \
        and any(char in low and any(word in low for word in words)
                for char, words in _CLIENTS)


def _slot(low: str) -> bool:
    """A secret noun spelled with JSON escapes, or in a script outside ASCII."""
    if "\\" in low and "\\u" in low and any(word in low for word in slots.ESCAPED_HINTS):
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
    return _alone(low, first=True) != 0 or _signed(low) != 0
