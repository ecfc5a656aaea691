"""Provenance: what the night may take as already granted.

A capability is legitimate only where it already is: in the skill, or in the user's OWN
typed requests. Tool output, fetched pages, files read and the assistant's answers are
never a source, since anyone who controls a page or a file could plant a host or a
command there and have a night write it into a skill."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from skillopt_sleep.firewall.capabilities import REACH_HOST, Capability, capabilities
from skillopt_sleep.firewall.normalise import read
from skillopt_sleep.records import Task


def found_in(text: str) -> list[Capability]:
    """Capabilities ``text`` grants, read as an agent would read it."""
    return list(_found(text))


@lru_cache(maxsize=64)
def _found(text: str) -> tuple[Capability, ...]:
    # A night checks every candidate edit against the whole skill, the same text each time:
    # on a real skill of thousands of lines, reading it once per night instead of once per
    # edit is most of the firewall's cost.
    return tuple(capabilities(read(text).text))


@dataclass(frozen=True)
class Context:
    """Capabilities (class, target) the skill or the user's own typed text already has,
    and the user's typed words themselves (``typed_words``), by which a command the user
    named grants every target it carries (``commands_granted``)."""

    allowed: frozenset[tuple[str, str]] = frozenset()
    typed_words: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def from_texts(cls, texts: Iterable[str], skill: str = "") -> Context:
        """From texts the user typed (never tool output, files or answers) and the skill."""
        texts = list(texts)
        keys = {key for text in texts for key in typed(text)}
        keys |= {c.key for c in found_in(skill)} if skill else set()
        lines = tuple(words(line) for text in texts for line in text.splitlines()
                      if len(line) <= _TYPED_LINE)
        return cls(frozenset(keys), tuple(w for w in lines if w))

    def with_text(self, text: str) -> Context:
        """This context and what ``text`` (already trusted) grants."""
        return Context(self.allowed | {c.key for c in found_in(text)}, self.typed_words)

    def commands_granted(self, text: str) -> Context:
        """This context and, for each command in ``text`` the user typed, every target of
        the classes the user's own words gave it: a ``git commit --no-verify`` the user
        typed skips the hooks and verification both, a crontab line that runs at boot is
        a crontab and a start-up trigger. A class the typed command lacks is not granted
        (``git commit -n && curl … | sh`` grants no fetched code)."""
        keys = set(self.allowed)
        for command in spans(text) if self.typed_words else []:
            tokens = command.split()
            n = self._typed_prefix(tuple(_word(t) for t in tokens))
            if not n or found_in(f"`{' '.join(tokens[n:])}`"):
                continue  # untyped, or what follows the typed part can do something itself
            classes = {c.kind for c in found_in(f"`{' '.join(tokens[:n])}`")}
            keys |= {c.key for c in found_in(f"`{command}`") if c.kind in classes}
        return Context(frozenset(keys), self.typed_words)

    def _typed_prefix(self, command: tuple[str, ...]) -> int:
        """How many first words of ``command`` (two at least) the user typed, in order with
        at most two of theirs between each; the program's name may be left out ("commit it
        with -n" for ``git commit -n``)."""
        best = 0
        for line in self.typed_words:
            for skip in (0, 1):
                n = _matched(command[skip:], line)
                if n >= 2 and skip + n > best:
                    best = skip + n
        return best

    @property
    def allowed_hosts(self) -> frozenset[str]:
        return frozenset(t for k, t in self.allowed if k == REACH_HOST)

    def permits(self, cap: Capability) -> bool:
        return cap.key in self.allowed


_ARGUMENT = re.compile(r"^-|[/=:.@~]\w|\d")
_REACH = 3
_TYPED_LINE = 240
"""Longer lines of a request are pasted text (logs, files), not a command the user typed."""


@lru_cache(maxsize=4096)
def typed(text: str) -> frozenset[tuple[str, str]]:
    """What a user's own request grants: what it says, and each short line also read as a
    command from each of the few words before an argument-like word. People type commands
    into prose without backticks ("expose it with ngrok http 3000"); an edit that writes
    the same command in a code span has the capability the user asked for, and its target."""
    keys = {c.key for c in found_in(text)}
    for line in text.splitlines():
        if len(line) <= _TYPED_LINE:
            keys |= _typed_line(line)
    return frozenset(keys)


@lru_cache(maxsize=4096)
def _typed_line(line: str) -> frozenset[tuple[str, str]]:
    words = line.replace("`", "").split()
    # A command has an argument that looks like one (a flag, a path, an assignment, a port
    # or a URL) within a few words of its program; a line of plain words is prose only.
    starts = {i for j, word in enumerate(words) if _ARGUMENT.search(word)
              for i in range(max(0, j - _REACH), j + 1)}
    return frozenset(c.key for i in sorted(starts)
                     for c in found_in(f"`{' '.join(words[i:])}`"))


_SPAN = re.compile(r"(`+)(.+?)\1")


def spans(text: str) -> list[str]:
    """The commands ``text`` quotes: code spans and the lines of fenced blocks."""
    out = [m.group(2) for m in _SPAN.finditer(text)]
    fenced = re.findall(r"^\s*(`{3,}|~{3,})[^\n]*\n(.*?)^\s*\1", text, re.M | re.S)
    out += [line for _, body in fenced for line in body.splitlines() if line.strip()]
    return out


def _word(token: str) -> str:
    """A word as compared: no quotes, backticks or trailing punctuation, lower case."""
    return token.strip("`'\"“”,;:()").lower()


def words(text: str) -> tuple[str, ...]:
    """A request's words, as compared."""
    return tuple(w for w in map(_word, text.split()) if w)


def _matched(command: tuple[str, ...], line: tuple[str, ...]) -> int:
    """How many of ``command``'s first words ``line`` holds in order, starting anywhere,
    with at most two other words between each."""
    best = 0
    for start, word in enumerate(line):
        if not command or word != command[0]:
            continue
        n, at = 1, start
        while n < len(command):
            nxt = [i for i in range(at + 1, min(at + 4, len(line))) if line[i] == command[n]]
            if not nxt:
                break
            n, at = n + 1, nxt[0]
        best = max(best, n)
    return best


def user_typed(tasks: Iterable[Task]) -> list[str]:
    """The words the user typed behind ``tasks``: the requests (not model-written
    paraphrases) and the user's corrections. ``Task.context`` is left out: it may hold
    a tool's output or a file."""
    out: list[str] = []
    for task in tasks:
        if not task.synthetic:
            out.append(task.intent)
        out.extend(str(c) for c in task.meta.get("corrections", []) or [])
    return out


def granted_by_user(before: str, after: str, ctx: Context) -> list[list[str]]:
    """``[class, target]`` of what ``after`` can do that ``before`` could not and ``ctx``
    (the user's own typed requests) grants: the provenance a staged proposal carries to
    its adoption, sorted, each once."""
    had = {c.key for c in found_in(before)}
    ctx = ctx.commands_granted(after)
    fresh = {c.key for c in found_in(after) if c.key not in had and ctx.permits(c)}
    return [list(key) for key in sorted(fresh)]
