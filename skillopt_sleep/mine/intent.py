"""A request reduced to its intent: canonical verb, the thing acted on, and a plain form.

Sentence embeddings of short requests are dominated by wording: "kick off the whole test
suite" and "run the tests" share no content word and score 0.4, while "run the tests"
and "write the tests" score 0.79. Mining therefore embeds a canonical form of each
request ("run tests"), with politeness and fillers dropped, verbs mapped through a small
synonym table and objects through a noun table, and uses the object as a second guard
beside the action class (``actions``): two requests that name different things
(tests vs the changelog) never share a family, whatever their vectors say.

The tables hold everyday software vocabulary, not any one user's phrasing. Words they
do not know are kept as they are, so an unknown domain (papers, dashboards) still
embeds its own content words and simply gets no object guard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from skillopt_sleep.mine.actions import FILLERS, VERB_CLASS, compatible

# Version of the canonical form: vectors of one form are never mixed with another's in an
# index (``index.space``). Bump it whenever ``parse`` changes what it returns.
CANONICAL_FORM = "canon2"

# Canonical verb -> synonyms. Finer than the action classes: "rename" and "format" are
# both changes, but different requests.
_VERBS: dict[str, tuple[str, ...]] = {
    "run": ("run", "rerun", "re-run", "execute", "launch", "start", "trigger", "kick-off",
            "spin-up"),
    "write": ("write", "add", "create", "generate", "draft", "implement", "scaffold", "compose",
              "put", "produce", "suggest", "introduce", "give-me", "setup", "configure",
              "instrument", "fill"),
    "fix": ("fix", "repair", "patch", "resolve", "debug", "correct", "solve", "sort-out",
            "make-pass", "make-green", "make-happy", "make-work", "clean-up-errors"),
    "remove": ("remove", "delete", "strip", "drop", "rid", "purge", "erase", "clean-out"),
    "explain": ("explain", "describe", "understand", "walk-through", "tell", "summarize",
                "summarise", "overview"),
    "review": ("review", "audit", "inspect", "critique", "look-over", "feedback"),
    "update": ("update", "bump", "upgrade", "increase", "increment", "refresh", "bring-up"),
    "refactor": ("refactor", "restructure", "split", "break-up", "simplify", "extract"),
    "convert": ("convert", "port", "migrate", "rewrite", "turn", "translate"),
    "format": ("format", "reformat", "prettify"),
    "revert": ("revert", "undo", "roll-back", "rollback"),
    "optimize": ("optimize", "optimise", "speed-up", "accelerate", "tune", "make-faster",
                 "profile"),
}
CANON_VERB: dict[str, str] = {s: v for v, syns in _VERBS.items() for s in syns}

# Multi-word verbs and verb idioms, joined so the clause reader sees one token. Each
# replacement's first word must be in ``CANON_VERB`` or ``VERB_CLASS``.
_VERB_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bkick(?:ing)? off\b", "kick-off"), (r"\bspin(?:ning)? up\b", "spin-up"),
    (r"\bset(?:ting)? up\b", "setup"), (r"\bget rid of\b", "rid"),
    (r"\bsort(?:ing)? (?:\w+ )?out\b", "sort-out"), (r"\bclean(?:ing)? out\b", "clean-out"),
    (r"\bwalk(?:ing)? (?:me |us )?through\b", "walk-through"),
    (r"\bhelp (?:me |us )?understand\b", "understand"),
    (r"\blook(?:ing)? (?:over|at|through)\b", "look-over"), (r"\bspeed(?:ing)? up\b", "speed-up"),
    (r"\bbreak(?:ing)? up\b", "break-up"), (r"\broll(?:ing)? back\b", "roll-back"),
    (r"\bbring (.{0,60}?) up to date\b", r"bring-up \1"), (r"\bcode review\b", "review"),
    (r"\bchange (?:the )?name of\b", "rename"),
    (r"^(?!.*\b(?:what|why|how)\b)(.*?)\bneeds? (.*)$", r"write \2 for \1"),
    (r"\bgive (?:me |us )?(?:some )?feedback\b", "feedback"),
    (r"\bgive (?:me |us )?an? overview\b", "overview"),
    (r"\bgive (?:me |us )\b", "give-me "),
    (r"\b(?:make|get) (.{1,60}?) (?:pass|passing|green)\b", r"make-pass \1"),
    (r"\bmake (.{1,60}?) happy\b", r"make-happy \1"),
    (r"\bmake (.{1,60}?) (?:faster|quicker)\b", r"make-faster \1"),
    (r"\bclean(?:ing)? up (?=.{0,40}\b(?:errors?|warnings?|complaints?)\b)", "clean-up-errors "),
    (r"\bclean(?:ing)? up\b", "refactor"),
)

# Canonical object -> synonyms; phrases are matched before single words.
_OBJECTS: dict[str, tuple[str, ...]] = {
    "tests": ("test suite", "unit tests", "unit test", "test cases", "test case", "tests", "test",
              "specs", "spec", "suite", "pytest", "jest", "unittest"),
    "linter": ("linter", "lint", "linting", "ruff", "flake8", "eslint", "pylint"),
    "types": ("type hints", "type hint", "type annotations", "type checker", "type errors",
              "type error", "annotations", "typing", "types", "mypy", "pyright"),
    "docstrings": ("docstrings", "docstring"),
    "readme": ("readme.md", "readme"),
    "changelog": ("changelog.md", "changelog", "release notes"),
    "version": ("version number", "version"),
    "dependencies": ("dependencies", "dependency", "deps", "packages", "libraries",
                     "requirements.txt", "requirements"),
    "commit message": ("commit message", "commit messages"),
    "pull request": ("pull request", "pull requests", "merge request", "pr"),
    "dockerfile": ("dockerfile",),
    "container": ("docker compose", "containers", "container", "docker", "image", "compose"),
    "migration": ("migrations", "migration"),
    "query": ("sql", "query", "queries", "select"),
    "regex": ("regular expression", "regex", "regexp", "pattern"),
    "logging": ("logging", "logs", "log", "logger"),
    "prints": ("print statements", "print calls", "console.log", "prints", "print"),
    "cli flag": ("command line option", "command-line option", "flag", "option", "argument",
                 "cli"),
    "function": ("functions", "function", "methods", "method"),
    "ci": ("continuous integration", "github actions", "ci", "workflow", "pipeline"),
    "conflicts": ("merge conflicts", "merge conflict", "conflicts", "conflict"),
    "error": ("stack trace", "traceback", "exception", "error", "errors", "crash", "crashes",
              "bug", "null pointer"),
    "formatter": ("formatter", "prettier", "black", "house style"),
    "profiler": ("profiler", "bottleneck", "slow", "performance"),
    "typescript": ("typescript", "javascript", "ts", "js", ".ts", ".js"),
    "code": ("code", "file", "files", "module", "script", "codebase"),
}
_WORD_OBJECT = {s: o for o, syns in _OBJECTS.items() for s in syns if " " not in s}
_PHRASE_OBJECT = sorted(((s, o) for o, syns in _OBJECTS.items() for s in syns if " " in s),
                        key=lambda p: -len(p[0]))
# Some verbs name their object too: "lint the code" is about the linter.
_VERB_OBJECT = {"lint": "linter", "profile": "profiler", "containerize": "dockerfile",
                "containerise": "dockerfile", "dockerize": "dockerfile", "log": "logging",
                "format": "formatter", "reformat": "formatter"}
# Running a tool is doing what the tool does: "run the formatter" is a formatting request.
_TOOL_VERB = {"formatter": "format", "profiler": "optimize"}
# Objects that locate a request more than they name it ("the lint errors in this file"):
# one of these is the primary object only when nothing more specific is named.
_WEAK = frozenset({"function", "error", "code", "profiler"})

_CLAUSE = re.compile(r"[,;:!?\n]+|\.(?=\s|$)|\band\b|\bthen\b|\bbut\b|\bso\b")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_'./-]*")
_AS_A = re.compile(r"\bas an? ([a-z0-9 .'<>_-]+)$")
_ERROR_NAME = re.compile(r"^[a-z]+error$")
_IDENT = re.compile(r"[_0-9]|[a-z][A-Z]")


class Kind(NamedTuple):
    """What ``same_intent_possible`` reads of an intent; intents of one kind always agree
    with the same others, so grouping keeps kinds, not intents (and stores them)."""

    actions: frozenset[str]
    object: str | None
    head: str


@dataclass(frozen=True)
class Intent:
    """``verbs``: canonical verbs of the imperative clauses, in order; ``objects``: object
    classes in order of mention; ``canonical``: the text mining embeds."""

    verbs: tuple[str, ...]
    objects: tuple[str, ...]
    canonical: str
    head: str = ""  # noun phrase the first verb acts on ("summary", "peer review"), if any

    @property
    def object(self) -> str | None:
        """The object the request is about: the first specific one, else the first."""
        strong = [o for o in self.objects if o not in _WEAK]
        first = strong or list(self.objects)
        return first[0] if first else None

    @property
    def actions(self) -> frozenset[str]:
        """Action classes (``actions.VERB_CLASS``) of the verbs."""
        return frozenset(VERB_CLASS[v] for v in self.verbs if v in VERB_CLASS)

    @property
    def kind(self) -> Kind:
        return Kind(self.actions, self.object, self.head)


_NAME = re.compile(r"(?<=\s)[A-Za-z0-9_.-]*[A-Z][A-Za-z0-9_.-]*")


def _drop_names(text: str) -> str:
    """Proper names (BERT, OrderService, Kafka) say which thing, not what to do with it;
    names the object table knows (README, CI, SQL) stay."""
    def keep(match: re.Match[str]) -> str:
        word = match.group(0).lower().strip(".")
        return match.group(0) if word in _WORD_OBJECT or word in CANON_VERB else ""
    return _NAME.sub(keep, text)


def _phrases(text: str) -> str:
    lowered = _drop_names(text).lower()
    for pattern, repl in _VERB_PATTERNS:
        lowered = pattern.sub(repl, lowered)
    for phrase, pattern, repl in _OBJECT_PATTERNS:
        if phrase in lowered:  # a substring test first: most requests name few objects
            lowered = pattern.sub(repl, lowered)
    return lowered


# Compiled once: parsing is on every mining pass's path (each pending request, each night).
_VERB_PATTERNS = [(re.compile(p), r) for p, r in _VERB_PHRASES]
_OBJECT_PATTERNS = [(phrase, re.compile(rf"\b{re.escape(phrase)}\b"),
                     "<" + obj.replace(" ", "_") + ">") for phrase, obj in _PHRASE_OBJECT]


def _identifier(token: str) -> bool:
    """Names, versions and hashes say which thing, not what to do with it."""
    return bool(_IDENT.search(token)) and not token.startswith("<")


def _object_of(token: str) -> str | None:
    if token.startswith("<") and token.endswith(">"):
        return token[1:-1].replace("_", " ")
    if token in _WORD_OBJECT:
        return _WORD_OBJECT[token]
    if token.startswith("test_") or token.endswith("_test"):
        return "tests"
    return "error" if _ERROR_NAME.match(token) else None


def _tokens(clause: str) -> list[str]:
    return re.findall(r"<[a-z_ .]+>|[a-z0-9][a-z0-9_'./-]*", clause)


def _clause(tokens: list[str], verbs: list[str], objects: list[str]) -> list[str]:
    """Canonical words of one clause; its verb and objects are appended in place."""
    words = [o if (o := _object_of(t)) is not None else t for t in tokens]
    found = [w for t, w in zip(tokens, words, strict=True) if _object_of(t) is not None]
    if tokens and (tokens[0] in CANON_VERB or tokens[0] in VERB_CLASS):
        head = CANON_VERB.get(tokens[0], tokens[0])
        implied = _VERB_OBJECT.get(tokens[0])
        if implied:
            found.insert(0, implied)
        if head == "run" and found and found[0] in _TOOL_VERB:
            head = _TOOL_VERB[found[0]]
        verbs.append(head)
        words[0] = head
    objects += found
    return words


_STOP = frozenset(("of", "for", "to", "in", "on", "with", "around", "from", "by", "against", "as",
                   "about", "into", "that", "which", "so", "before", "after", "at", "over",
                   "across", "using", "via", "when", "if", "while", "and", "then", "but", "is",
                   "are", "be"))
_SKIP = frozenset(("me", "us", "you", "i", "we", "please", "some", "quick", "short", "good",
                   "new", "proper", "more", "small"))


def _head(clause: str) -> str:
    """The noun phrase after the clause's verb ("related-work paragraph"), or ""."""
    tokens = _tokens(clause)[1:]
    phrase: list[str] = []
    for token in tokens:
        if token in _ARTICLES or token in _SKIP:
            continue
        if token in _STOP or (phrase and token.endswith(("ing", "ed"))):
            break
        phrase.append(token)
    return " ".join(t for t in phrase if not _identifier(t))


def parse(text: str) -> Intent:
    """The intent of ``text``; never raises (an empty text has an empty intent)."""
    lowered = _phrases(text)
    verbs: list[str] = []
    objects: list[str] = []
    words: list[str] = []
    head = ""
    for clause in _CLAUSE.split(lowered):
        tokens = [t for t in _tokens(clause) if t not in FILLERS and t not in _ARTICLES
                  and (not _identifier(t) or _object_of(t))]
        had = len(verbs)
        words += _clause(tokens, verbs, objects)
        if not head and len(verbs) > had:
            rest = [t for t in _tokens(clause) if t not in FILLERS or t in _STOP]
            head = _head(" ".join(rest))
    deliverable = _AS_A.search(lowered)
    if deliverable:
        named = [o for t in _tokens(deliverable.group(1)) if (o := _object_of(t))]
        if named:
            verbs, objects = ["write"], [named[0], *objects]
    return Intent(tuple(verbs), tuple(dict.fromkeys(objects)), " ".join(words), head)


_ARTICLES = frozenset(("the", "a", "an", "this", "these", "that", "those", "my", "our", "all",
                       "some", "every", "whole", "it", "them"))



def same_intent_possible(a: Intent | Kind, b: Intent | Kind) -> bool:
    """Whether two requests may share a family: their actions agree (``actions.compatible``),
    they name the same object when both name one, and two requests to write something
    with no known object name the same deliverable ("a summary" is not "an abstract")."""
    if not compatible(a.actions, b.actions):
        return False
    if a.object is not None and b.object is not None:
        return a.object == b.object
    if a.object is None and b.object is None and a.head and b.head:
        return a.head == b.head or not ({"create"} <= a.actions and {"create"} <= b.actions)
    return True


_FOREIGN = re.compile(r"[^\x00-\x7f]")


def embed_text(text: str) -> str:
    """What mining embeds of a request: the canonical form of an English-lettered request;
    a request with other letters (日本語, русский, "führe") as written, because the tables
    only know English and would reduce it to nothing (every Japanese request to "")."""
    if foreign(text):
        return " ".join(text.split())
    return parse(text).canonical


def foreign(text: str) -> bool:
    """Whether ``text`` has letters the English tables cannot read (``embed_text``)."""
    return _FOREIGN.search(text) is not None
