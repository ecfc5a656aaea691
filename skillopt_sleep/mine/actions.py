"""What a request asks the agent to do, as a coarse action class.

Embeddings of "run the tests" and "write the tests" are closer (cosine 0.79 with
all-MiniLM-L6-v2) than "run the tests" and "execute the test suite" (0.62): sentence
embeddings weigh the shared object over the verb. Requests whose imperative verbs fall
in different action classes are therefore never grouped, however close their vectors.

Only verbs in imperative position count (the start of a clause, after fillers such as
"please" or "can you"), so "write a commit message" is a ``create``, not a ``vcs``.
Question words carry no class: "what does this trace mean" may join an "explain" family
on its vector alone.
"""

from __future__ import annotations

import re

_CLASSES: dict[str, tuple[str, ...]] = {
    "run": ("run", "rerun", "re-run", "execute", "kick", "launch", "start", "spin", "trigger",
            "lint"),
    "create": ("write", "add", "create", "generate", "draft", "implement", "scaffold", "build",
               "suggest", "put", "fill", "instrument", "document", "containerize", "dockerize",
               "compose", "introduce", "setup", "configure", "annotate"),
    "change": ("update", "bump", "upgrade", "increase", "increment", "refresh", "set", "change",
               "modify", "edit", "bring", "format", "reformat", "refactor", "restructure",
               "split", "break", "simplify", "extract", "rename", "convert", "port", "migrate",
               "rewrite", "turn", "translate", "prepare", "record"),
    "fix": ("fix", "repair", "patch", "resolve", "debug", "correct", "solve", "sort"),
    "remove": ("remove", "delete", "strip", "drop", "rid", "purge", "erase"),
    "explain": ("explain", "describe", "summarize", "summarise", "understand", "walk",
                "tell"),
    "review": ("review", "audit", "inspect", "critique", "look"),
    "vcs": ("commit", "push", "stage", "merge", "rebase", "pull", "cherry-pick", "checkout"),
    # Undoing work is not recording it: "revert the last commit" is no "commit and push".
    "revert": ("revert", "undo", "roll", "roll-back", "rollback"),
    "optimize": ("optimize", "optimise", "speed", "profile", "accelerate", "tune"),
    "compare": ("compare", "contrast", "benchmark", "weigh"),
    "plan": ("plan", "design", "outline", "propose", "estimate", "size", "schedule"),
    "respond": ("answer", "respond", "reply", "rebut"),
}
VERB_CLASS: dict[str, str] = {verb: cls for cls, verbs in _CLASSES.items() for verb in verbs}

FILLERS = frozenset((
    "please", "pls", "plz", "can", "could", "would", "will", "you", "u", "just", "now", "also",
    "quickly", "kindly", "i", "we", "need", "want", "to", "help", "me", "let's", "lets", "let",
    "us", "go", "ahead", "and", "then", "ok", "okay", "hey", "hi", "first", "again", "so",
    "yes", "no", "actually", "instead", "do",
))
# Adding to a thing and changing it are often the same request ("add the flags to the
# README" / "update the README"); every other pair of classes is a different intent.
_COMPATIBLE = frozenset({frozenset({"create", "change"})})
_PHRASES = ((re.compile(r"\bset\s+up\b"), "setup"), (re.compile(r"\bget\s+rid\b"), "rid"))
_CLAUSE = re.compile(r"[,;:.!?\n]+|\band\b|\bthen\b|\bbut\b")
_TOKEN = re.compile(r"[a-z][a-z'-]*")


def _clause_verb(clause: str) -> str | None:
    for token in _TOKEN.findall(clause.lower()):
        if token in FILLERS:
            continue
        return VERB_CLASS.get(token)
    return None


def actions(text: str) -> frozenset[str]:
    """The action classes of the imperative verbs in ``text`` (empty when none is known)."""
    lowered = text.lower()
    for pattern, verb in _PHRASES:
        lowered = pattern.sub(verb, lowered)
    found = {_clause_verb(clause) for clause in _CLAUSE.split(lowered)}
    return frozenset(a for a in found if a is not None)


def compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two requests (or groups) may share a family unless both name actions and none agree."""
    if not a or not b or a & b:
        return True
    return any(frozenset({x, y}) in _COMPATIBLE for x in a for y in b)
