"""The text-level contradiction check: the optimizer reads a candidate edit beside the
documents of the skills loaded with it and names a skill whose work the edit forbids.

A replay (``night.cross``) finds a harm that shows now. Some harms are latent: "never touch
CHANGELOG.md" costs the release-notes skill almost nothing until that skill has learned to
write a changelog entry, so no sample of its tasks can tell the drop from noise on the night
the edit is proposed. The text says it already: release-notes' own document asks for
changelog updates. So before the replay, the optimizer is shown the edit and every
neighbour's document and asked which neighbour, if any, the edit contradicts.

A flag counts only when it is *grounded*: it names a neighbour that was shown, and quotes
that neighbour's document word for word (case and spacing aside, at least
``MIN_QUOTE_WORDS`` words). An ungrounded flag is dropped with a note, so an invented
contradiction never holds an edit back. A grounded flag holds the edit back as a
contradiction with the quote and the optimizer's reason: it is reported and left for the
user to resolve; the night never rewrites either skill to make them agree.

Errors: a missed flag leaves the edit to the replay, as before this check existed; a wrong
flag holds a harmless edit back at the optimizer's own false-flag rate (no ``alpha`` bounds
it), which costs lift, never safety, and every flag is in the report with its quote for the
user to judge. A failed call or an unreadable reply is no flag, and a note.

``flags_from`` is the look itself (ask, read the reply, keep the grounded flags); the own
look of ``night.demands`` asks it the same way about the skill's own demands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skillopt_sleep.errors import AuthError, BudgetExceeded, HandoffPending, ModelError
from skillopt_sleep.models.base import LLM, tag
from skillopt_sleep.night.prompts import json_replies
from skillopt_sleep.records import Contradiction, Edit, Message

__all__ = ["CONTRADICT_SYSTEM", "Flag", "contradict_messages", "contradictions", "flags_from",
           "grounded", "parse_flags", "read_flags"]

MIN_QUOTE_WORDS = 3
"""A quote shorter than this grounds nothing ("the", "changelog")."""

CONTRADICT_SYSTEM = """You check one proposed edit to a skill document against the other
skills a coding agent loads beside it. Flag a skill only when following the edit would stop
the agent from doing what that skill's own document asks for: the edit forbids, reverses or
removes its work. For each flag, quote the line of that skill's document the edit
contradicts, word for word. Most edits contradict nothing; then reply with an empty list.
Reply with JSON only:
{"contradictions": [{"skill": "NAME", "quote": "...", "why": "one sentence"}]}"""

EDGE = " \t\r\n`'\"*_#-•>:;,.!?«»“”‘’"


@dataclass(frozen=True)
class Flag:
    """A neighbour the optimizer says an edit contradicts, with its words as evidence."""

    skill: str
    quote: str
    why: str


def contradict_messages(skill: str, edit: Edit, neighbours: Sequence[tuple[str, str]]
                        ) -> list[Message]:
    """The prompt: the edit (``op``, ``text``, the ``anchor`` it changes) and each
    neighbour's name and document."""
    shown = {"skill": skill, "op": edit.op, "text": edit.text, "anchor": edit.anchor}
    body = "\n".join([
        "<mode>contradiction</mode>",
        "<edit>\n" + json.dumps(shown, ensure_ascii=False) + "\n</edit>",
        "<neighbours>\n" + json.dumps([{"name": n, "document": d} for n, d in neighbours],
                                      ensure_ascii=False, indent=1) + "\n</neighbours>",
    ])
    return [{"role": "system", "content": tag(CONTRADICT_SYSTEM)},
            {"role": "user", "content": tag(body)}]


def parse_flags(text: str) -> list[Flag]:
    """Flags from an optimizer reply; ``ValueError`` when it is not contradiction JSON."""
    for data in json_replies(text):
        rows = data.get("contradictions") if isinstance(data, dict) else None
        if isinstance(rows, list):
            return [Flag(str(r.get("skill", "")), str(r.get("quote", "")),
                         str(r.get("why", ""))[:300]) for r in rows if isinstance(r, dict)]
    raise ValueError(f"reply is not contradiction JSON: {text[:120]!r}")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def grounded(flag: Flag, documents: dict[str, str]) -> bool:
    """Does ``flag`` name a shown neighbour and quote its document (see the module)?"""
    quote = norm(flag.quote).strip(EDGE)
    doc = documents.get(flag.skill)
    return (doc is not None and len(quote.split()) >= MIN_QUOTE_WORDS
            and quote in norm(doc))


def read_flags(reader: LLM, skill: str, edit: Edit, documents: dict[str, str], seed: int,
               notes: list[str]) -> list[Flag]:
    """The grounded flags the optimizer raises for ``edit`` (none on a failed call)."""
    messages = contradict_messages(skill, edit, sorted(documents.items()))
    return flags_from(reader, messages, lambda f: grounded(f, documents), seed, notes,
                      "contradiction check")


def flags_from(reader: LLM, messages: list[Message], ground: Callable[[Flag], bool], seed: int,
               notes: list[str], label: str, *, as_skill: str = "") -> list[Flag]:
    """The flags of one look (``messages``) that ``ground`` holds grounded; none on a failed
    call or an unreadable reply, with a note under ``label``. ``as_skill``: every flag is
    about that one text, whatever skill the reply names."""
    try:
        reply = reader.complete(messages, max_tokens=600, temperature=0.0, seed=seed)
        flags = parse_flags(reply.text)
    except (AuthError, BudgetExceeded, HandoffPending):
        raise
    except (ModelError, ValueError) as exc:
        notes.append(f"{label}: {exc}")
        return []
    if as_skill:
        flags = [Flag(as_skill, f.quote, f.why) for f in flags]
    kept = [f for f in flags if ground(f)]
    notes.extend(f"{label}: a flag on {f.skill or '(no skill)'} quotes nothing "
                 f"of what it was shown: {f.quote[:80]!r}; dropped" for f in flags if f not in kept)
    return kept


def contradictions(skill: str, edit: Edit, flags: Sequence[Flag]) -> list[Contradiction]:
    """``flags`` raised against ``skill``'s ``edit`` as contradictions: each with its quote
    and reason, and no paired evidence (the text held the edit back before any replay)."""
    return [Contradiction(skill=skill, other_skill=f.skill, edit=edit, mean_delta=0.0,
                          p_value=1.0, n_pairs=0, quote=f.quote, why=f.why) for f in flags]
