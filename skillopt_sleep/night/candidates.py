"""Which proposed edits reach the gate: those that add something and rest on more than one task.

The gate is the night's dearest stage (every pair it draws is a target call on each side);
what it is spared costs nothing. Before any validation pair is drawn, a ranked candidate
is dropped (recorded with its reason, never buffered as a gate rejection) when

- **it restates the skill**: the text it would add is a near-duplicate of a line the skill
  already holds (the user's own text, the learned and the slow region alike). Appending a
  rule the agent already reads changes what it reads only in wording; the gate would spend
  20–45 pairs to learn that;
- **it repeats a better-ranked candidate** of the same step (the same near-duplicate test):
  one of them is enough, the first in rank order goes on (so a rewording of an edit the
  step accepts never reaches a gate either);
- **it rests on too few tasks**: the tasks an edit cites (``Edit.support``, counted only
  among the minibatch's tasks) are below ``min_support`` (2). The reflection prompt asks for
  edits that fix tasks like these in general, "not one instance": an edit seen in one task
  is usually a rule overfitted to it or a platitude. But a real minibatch is diverse, and a
  good rule may show in only one of its tasks: a step in which *no* candidate has the
  support still gates its best-ranked ``anecdotes`` (1) under-supported ones. (With no
  anecdote at all the full pipeline's proof, whose mined minibatches are more diverse, lost
  about a third of its lift on the seeds tried; with one in every step the gate study saved
  little.) Rank order is ``merge``'s: failure-driven edits first, then more support, then
  shorter text.

*Near-duplicate* is a text rule, the same for every model: two lines are near-duplicates when
their word sets (lower-cased, punctuation and a short stop-word list removed) overlap by
Jaccard ≥ ``restate_overlap`` (0.8), or one line's words are all contained in the other's
and make up at least ``restate_overlap`` of it. It catches a rule reproduced verbatim, with
changed punctuation or a word more or less; it does not claim to catch a paraphrase in other
words (that would need a model, and a wrong "same" would drop a useful rule).

Every rule here only ever drops: none can let an edit past the gate, so none can raise the
false-accept rate; their cost is power (a useful edit dropped), measured by the gate study's
lift.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from skillopt_sleep.records import Edit, GateDecision
from skillopt_sleep.skilldoc import SkillDoc

_WORD = re.compile(r"[a-z0-9][a-z0-9_.:/+-]*")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "each", "every", "for", "from", "in",
    "into", "is", "it", "its", "of", "on", "or", "so", "that", "the", "their", "them", "then",
    "there", "these", "this", "to", "was", "were", "when", "with", "you", "your",
})


def words(text: str) -> frozenset[str]:
    """The words a near-duplicate test compares: lower-cased, trailing punctuation and stop
    words removed (a bullet, backticks or quotes make no difference)."""
    found = (w.rstrip(".:,;") for w in _WORD.findall(text.lower()))
    return frozenset(w for w in found if w and w not in _STOP)


def near_duplicate(a: str, b: str, overlap: float) -> bool:
    """Whether two lines say the same in (almost) the same words; see the module docstring."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb)
    if shared / len(wa | wb) >= overlap:
        return True
    small, large = sorted((len(wa), len(wb)))
    return shared == small and small / large >= overlap


def skill_lines(doc: SkillDoc) -> list[str]:
    """The skill's lines of text (frontmatter, blank lines and region markers left out)."""
    body = doc.text
    if body.startswith("---"):
        end = body.find("\n---", 3)
        body = body[end + 4 :] if end >= 0 else body
    return [s for line in body.splitlines() if (s := line.strip()) and not s.startswith("<!--")]


def restates(edit: Edit, lines: Iterable[str], overlap: float) -> str | None:
    """The line of ``lines`` that ``edit``'s new text near-duplicates (``None``: it adds
    something). A delete adds nothing and is never a restatement; a replace is compared with
    every line but the one it replaces."""
    if edit.op == "delete" or not edit.text.strip():
        return None
    replaced = edit.anchor.strip() if edit.op == "replace" else ""
    for line in lines:
        if replaced and near_duplicate(line, replaced, 1.0):
            continue
        if near_duplicate(edit.text, line, overlap):
            return line
    return None


def admit(
    ranked: Sequence[Edit], doc: SkillDoc, *, min_support: int, overlap: float,
    anecdotes: int = 0,
) -> tuple[list[Edit], list[GateDecision]]:
    """The candidates of ``ranked`` worth a gate, in rank order, and a decision (stage
    ``merge``) for each one dropped: restating the skill, repeating a better-ranked
    candidate, or citing fewer than ``min_support`` tasks (unless no candidate cites enough:
    then the first ``anecdotes`` of them go on)."""
    lines = skill_lines(doc)
    kept: list[Edit] = []
    dropped: list[GateDecision] = []
    if any(e.support >= min_support and restates(e, lines, overlap) is None for e in ranked):
        anecdotes = 0  # the step has better-supported evidence to spend its gates on
    for edit in ranked:
        reason = ""
        if (line := restates(edit, lines, overlap)) is not None:
            reason = f"restates the skill: {line[:80]!r}"
        elif (twin := next((k for k in kept if _same_change(edit, k, overlap)), None)) is not None:
            reason = f"repeats candidate {twin.id}"
        elif edit.support < min_support:
            if anecdotes > 0:
                anecdotes -= 1
            else:
                reason = f"cites {edit.support} task(s), fewer than {min_support}"
        if reason:
            dropped.append(GateDecision(edit, False, reason, stage="merge"))
        else:
            kept.append(edit)
    return kept, dropped


def _same_change(a: Edit, b: Edit, overlap: float) -> bool:
    if a.op == "delete" or b.op == "delete":
        return a.op == b.op and near_duplicate(a.anchor, b.anchor, 1.0)
    return near_duplicate(a.text, b.text, overlap)
