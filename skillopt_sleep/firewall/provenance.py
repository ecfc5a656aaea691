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
    """Capabilities (class, target) the skill or the user's own typed text already has."""

    allowed: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def from_texts(cls, texts: Iterable[str], skill: str = "") -> Context:
        """From texts the user typed (never tool output, files or answers) and the skill."""
        keys = {key for text in texts for key in typed(text)}
        keys |= {c.key for c in found_in(skill)} if skill else set()
        return cls(frozenset(keys))

    def with_text(self, text: str) -> Context:
        """This context and what ``text`` (already trusted) grants."""
        return Context(self.allowed | {c.key for c in found_in(text)})

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
    fresh = {c.key for c in found_in(after) if c.key not in had and ctx.permits(c)}
    return [list(key) for key in sorted(fresh)]
