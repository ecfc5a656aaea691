"""Shell text read with a real parser (``bashlex``), so a command is judged by what runs.

``commands`` turns a snippet into the commands it runs, in order, each with its words, its
redirections, the earlier stages of its pipeline and the commands substituted into it
(``$(…)``, ``<(…)``, backticks). Text bashlex cannot parse (prose after a command, a stray
quote, PowerShell) is split by ``shlex`` into the same shape, without substitutions.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache

import bashlex
import bashlex.ast
import bashlex.errors


@dataclass(frozen=True)
class Command:
    """One simple command as it would run."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...] = ()
    """``(operator, target)``: ``(">>", "~/.bashrc")``."""
    assigns: tuple[str, ...] = ()
    upstream: tuple[Command, ...] = ()
    """The earlier stages of its pipeline: what feeds its standard input."""
    inner: tuple[Command, ...] = field(default=(), compare=False)
    """Commands substituted into its words (their output becomes its words or files)."""

    @property
    def program(self) -> str:
        """The program, after wrappers that run another (``sudo -E``, ``env X=1``, ``nohup``)."""
        run = unwrap(self.words)
        return run[0] if run else (self.words[0] if self.words else "")  # ``env`` alone

    @property
    def args(self) -> tuple[str, ...]:
        return unwrap(self.words)[1:]


_VARIANT = re.compile(r"(?<=^nc)\.\w+$|(?<=^ncat)\.\w+$|(?<=^netcat)[.-]\w+$")
_WRAPPERS = {"sudo", "doas", "env", "nohup", "exec", "time", "command", "nice", "stdbuf",
             "timeout", "xargs", "busybox", "run0", "builtin", "setsid", "caffeinate"}
_WITH_VALUE = {"-u", "-g", "-U", "-C", "-h", "-p", "-n", "-I", "-L", "-P", "-s", "-o", "-i"}


@lru_cache(maxsize=8192)
def base(word: str) -> str:
    """A program's name without its folder, quotes, or ``.exe``."""
    name = word.strip("'\"").replace("\\", "/").rsplit("/", 1)[-1].lower()
    name = name[:-4] if name.endswith(".exe") else name
    return _VARIANT.sub("", name)  # ``nc.traditional``, ``nc.openbsd`` are ``nc``


def unwrap(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` from the program a wrapper runs (``sudo -E bash -`` -> ``bash -``)."""
    i = 0
    while i < len(words) and base(words[i]) in _WRAPPERS:
        wrapper = base(words[i])
        i += 1
        while i < len(words) and (words[i].startswith("-") or "=" in words[i]
                                  or (wrapper == "timeout" and words[i][:1].isdigit())):
            takes = wrapper in ("sudo", "doas", "xargs") and words[i] in _WITH_VALUE
            i += 2 if takes else 1
    return tuple(words[i:])


class _Walker(bashlex.ast.nodevisitor):
    def __init__(self) -> None:
        self.found: list[Command] = []

    def pipeline(self, node: bashlex.ast.node) -> list[Command]:
        stages: list[Command] = []
        for part in node.parts:
            if part.kind == "command":
                stages.append(self.command(part, tuple(stages)))
            elif part.kind != "pipe":
                stages.extend(self.walk(part, tuple(stages)))
        return stages

    def walk(self, node: bashlex.ast.node, upstream: tuple[Command, ...] = ()) -> list[Command]:
        kind = node.kind
        if kind == "command":
            return [self.command(node, upstream)]
        if kind == "pipeline":
            return self.pipeline(node)
        out: list[Command] = []
        for child in _children(node):
            out.extend(self.walk(child, upstream))
        return out

    def command(self, node: bashlex.ast.node, upstream: tuple[Command, ...]) -> Command:
        words: list[str] = []
        redirects: list[tuple[str, str]] = []
        assigns: list[str] = []
        inner: list[Command] = []
        for part in node.parts:
            if part.kind == "word":
                words.append(part.word)
                inner.extend(self.substituted(part))
            elif part.kind == "assignment":
                assigns.append(part.word)
                inner.extend(self.substituted(part))
            elif part.kind == "redirect":
                target = part.output
                text = target.word if hasattr(target, "word") else str(target)
                redirects.append((part.type, text))
                if hasattr(target, "parts"):
                    inner.extend(self.substituted(target))
                body = getattr(getattr(part, "heredoc", None), "value", "")
                if body and not re.match(r"['\"\\]", text):
                    upstream = (*upstream, *_heredoc_commands(body))
        made = Command(tuple(words), tuple(redirects), tuple(assigns), upstream, tuple(inner))
        self.found.append(made)
        return made

    def substituted(self, node: bashlex.ast.node) -> list[Command]:
        out: list[Command] = []
        for part in getattr(node, "parts", []) or []:
            if part.kind in ("commandsubstitution", "processsubstitution"):
                out.extend(self.walk(part.command))
            else:
                out.extend(self.substituted(part))
        return out


def _heredoc_commands(body: str) -> tuple[Command, ...]:
    """What an unquoted here-document substitutes into the input it feeds: its ``$(…)``
    commands run first and their output becomes the reader's input."""
    found: list[Command] = []
    for m in re.finditer(r"\$\(([^()]*)\)|`([^`]*)`", body):
        found.extend(commands(m.group(1) or m.group(2) or ""))
    return tuple(found)


def _children(node: bashlex.ast.node) -> list[bashlex.ast.node]:
    kids = list(getattr(node, "parts", None) or getattr(node, "list", None) or [])
    return [k for k in kids if isinstance(k, bashlex.ast.node)]


_WINDOWS_PATH = re.compile(r"[\w%$:)]\\[\w.$%]")


@lru_cache(maxsize=4096)
def commands(snippet: str) -> tuple[Command, ...]:
    """Every command ``snippet`` runs, substituted ones included, in the order they appear."""
    # A notebook's shell escape (``!pip install …``) runs the line as a command.
    snippet = re.sub(r"(?m)^(\s*)!(?=[\w./~])", r"\1", snippet)
    # A PowerShell assignment (``$c = Get-Content …``) runs the command on its right.
    snippet = re.sub(r"(?m)^(\s*)\$[\w:]+\s*=\s*(?=[A-Za-z][\w-]*\s)", r"\1", snippet)
    if _WINDOWS_PATH.search(snippet):
        snippet = snippet.replace("\\", "/")  # ``C:\\x``, ``$env:HOME\\.aws``: a path, not escapes
    try:
        trees = bashlex.parse(snippet)
    except (bashlex.errors.ParsingError, NotImplementedError, IndexError, AttributeError,
            TypeError, ValueError, AssertionError, KeyError, RecursionError):
        return _lexed(snippet)
    walker = _Walker()
    for tree in trees:
        walker.walk(tree)
    return tuple(c for cmd in walker.found for c in (cmd, *_carried(cmd)))


_STRING_FLAGS = {"-c", "-command", "/c", "/k", "-lc", "-ic", "--command"}


def _carried(cmd: Command) -> tuple[Command, ...]:
    """Commands another program is handed to run: a shell's ``-c`` string, the command after
    ``--`` (``kubectl run … -- sh -c …``, ``docker exec x -- …``), ``ssh host 'cmd'``."""
    args = cmd.args
    out: list[Command] = []
    for i, arg in enumerate(args[:-1]):
        if arg.lower() in _STRING_FLAGS:
            out.extend(commands(args[i + 1]))
            break
        if arg == "--":
            out.append(Command(args[i + 1:]))
            out.extend(_carried(Command(args[i + 1:])))
            break
    else:
        if base(cmd.program) == "ssh" and len([a for a in args if not a.startswith("-")]) > 1:
            out.extend(commands(args[-1]))
    return tuple(out)


_SEPARATORS = {";", "&&", "||", "&", "\n", ";;", "(", ")", "{", "}"}
_REDIRECTS = {">", ">>", "&>", ">&", "&>>", ">|", "<", "2>", "2>>", "1>"}


def _lexed(snippet: str) -> tuple[Command, ...]:
    """The shape ``commands`` gives, from ``shlex`` tokens (no substitutions)."""
    snippet = snippet.replace("\n", " ; ")  # a block's lines are separate commands
    lexer = shlex.shlex(snippet, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: read the words without quoting
        return _lexed(snippet.replace('"', " ").replace("'", " ")) if (
            '"' in snippet or "'" in snippet) else ()
    found: list[Command] = []
    stage: list[str] = []
    redirects: list[tuple[str, str]] = []
    upstream: list[Command] = []
    pending = ""

    def close(piped: bool) -> None:
        nonlocal stage, redirects, upstream
        if stage or redirects:
            made = Command(tuple(stage), tuple(redirects), (), tuple(upstream))
            found.append(made)
            upstream = [*upstream, made] if piped else []
        elif not piped:
            upstream = []
        stage, redirects = [], []

    for token in tokens:
        if pending:
            redirects.append((pending, token))
            pending = ""
        elif token in ("|", "|&"):
            close(piped=True)
        elif token in _SEPARATORS:
            close(piped=False)
        elif token in _REDIRECTS:
            pending = token
        elif stage and stage[-1].isdigit() and token.startswith(">"):
            stage.pop()
            pending = token
        else:
            stage.append(token)
    close(piped=False)
    return tuple(found)
