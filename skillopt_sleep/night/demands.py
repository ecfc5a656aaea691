"""The own look: an edit the gate accepted is read beside what the skill's tasks are judged
on, and held back when it forbids one of those demands.

The skill's tasks are judged on what the user corrected ("No, use `--dry-run`, always." is
mined into a check for ``--dry-run``). An edit can cancel one of those demands while no
sample of tonight's validation tasks shows it: "skip the preview and apply directly" costs
nothing while the skill has not yet learned to show a dry run, only the dry runs the
target writes unprompted, and a chance win on the other pairs can carry it past the gate.
Once in, it also keeps the dry-run rule from ever gaining. The text says it already.

So after the gate accepts an edit (one optimizer call per accepted edit; the text-level look
of ``night.contradict``, here with the skill's own demands in place of a neighbour's
document), the optimizer reads it beside the distinct demands of the skill's train and
validation tasks (``demands``: each check as the judge describes it, each rubric line; the
test split is never shown, it stays for the figures). A flag counts only when it quotes a
demand word for word (``contradict.grounded``). A grounded flag holds the edit back at stage
``contradict`` and is reported as a contradiction of the skill with itself, with the quote
and the optimizer's reason, for the user to resolve.

Errors, as for the neighbours' look: a missed flag leaves the edit as the gate decided; a
wrong one holds a harmless edit back at the optimizer's own false-flag rate (lift, never
safety, and each flag is in the report with its quote); a failed call or an unreadable
reply is no flag, and a note.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from skillopt_sleep.judges.rules import describe
from skillopt_sleep.models.base import LLM, tag
from skillopt_sleep.night.contradict import (
    EDGE,
    MIN_QUOTE_WORDS,
    Flag,
    contradictions,
    flags_from,
    norm,
)
from skillopt_sleep.records import Contradiction, Edit, Message, Split, Task

__all__ = ["DEMANDS_SYSTEM", "MAX_DEMANDS", "OwnLook", "demands", "demands_messages", "quoted"]

MAX_DEMANDS = 60
"""The most demands one look shows (the most often judged first): a long history has many
families, and one reply must read them all."""

DEMANDS_SYSTEM = """You check one proposed edit to a skill document against what the user
has asked of the agent on this skill's tasks: the checks and rubric lines its answers are
judged on, each from a correction the user gave. Flag a demand only when following the edit
would stop the agent from meeting it: the edit forbids, reverses or removes it. For each
flag, quote the demand word for word. Most edits contradict nothing; then reply with an
empty list. Reply with JSON only:
{"contradictions": [{"skill": "NAME", "quote": "...", "why": "one sentence"}]}"""


def demands(tasks: Sequence[Task]) -> list[str]:
    """The distinct demands the train and validation ``tasks`` are judged on, the most often
    judged first (ties in first-seen order), at most ``MAX_DEMANDS``."""
    seen: Counter[str] = Counter()
    held_out = (Split.TRAIN.value, Split.VALIDATION.value)
    for t in tasks:
        if t.split not in held_out:
            continue
        lines = [describe(c) for c in t.judge.checks if c.get("op") != "no_refusal"]
        lines += [ln.strip(" -*\t") for ln in t.judge.rubric.splitlines()]
        seen.update(list(dict.fromkeys(ln for ln in lines if ln)))  # once per task
    return [d for d, _ in seen.most_common(MAX_DEMANDS)]


def demands_messages(skill: str, edit: Edit, shown: Sequence[str]) -> list[Message]:
    """The prompt: the edit (``op``, ``text``, the ``anchor`` it changes) and the demands."""
    body = "\n".join([
        "<mode>demands</mode>",
        "<edit>\n" + json.dumps({"skill": skill, "op": edit.op, "text": edit.text,
                                 "anchor": edit.anchor}, ensure_ascii=False) + "\n</edit>",
        "<demands>\n" + json.dumps(list(shown), ensure_ascii=False, indent=1) + "\n</demands>",
    ])
    return [{"role": "system", "content": tag(DEMANDS_SYSTEM)},
            {"role": "user", "content": tag(body)}]


def quoted(quote: str, shown: Sequence[str]) -> bool:
    """Does ``quote`` quote one of the ``shown`` demands: the whole line (a check such as
    ``contains(text='--dry-run')`` is one word), or at least ``MIN_QUOTE_WORDS`` words of
    it, word for word (case and spacing aside)?"""
    q = norm(quote).strip(EDGE)
    lines = [norm(d).strip(EDGE) for d in shown]
    return bool(q) and any(q == ln or (len(q.split()) >= MIN_QUOTE_WORDS and q in ln)
                           for ln in lines)


class OwnLook:
    """Reads accepted edits beside the skill's own demands (see the module)."""

    def __init__(self, skill: str, tasks: Sequence[Task], reader: LLM | None, seed: int = 0):
        self.skill = skill
        self.shown = demands(tasks)
        self.reader = reader
        self.seed = seed
        self.notes: list[str] = []

    def _grounded(self, flag: Flag) -> bool:
        return quoted(flag.quote, self.shown)

    def check(self, edit: Edit) -> list[Contradiction]:
        """The demands ``edit`` forbids, as contradictions of the skill with itself."""
        if self.reader is None or not self.shown or edit.op == "delete":
            return []
        messages = demands_messages(self.skill, edit, self.shown)
        found = flags_from(self.reader, messages, self._grounded, self.seed, self.notes,
                           "own look", as_skill=self.skill)
        return contradictions(self.skill, edit, found)
