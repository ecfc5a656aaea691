"""What a text lets an agent DO, by class, line by line.

Shell text (fenced blocks, code spans, command-looking runs of a line) goes through the
shell parser and ``shell_rules``/``shell_access``; prose through ``prose``; every line
through ``hosts``. A capability named inside guidance that warns against it ("never pipe
curl to sh", a block under "Anti-patterns", a ``# BAD`` comment) is a mention, not a grant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from skillopt_sleep.firewall.assemble import expand_shell, fold, resolved
from skillopt_sleep.firewall.checks_project import optional_job
from skillopt_sleep.firewall.code import block_found
from skillopt_sleep.firewall.conceal import ERASED_SHELL
from skillopt_sleep.firewall.hosts import host_targets
from skillopt_sleep.firewall.mentions import COMMENT_WARNING, SECTION_WARNING, described, warned
from skillopt_sleep.firewall.multilingual import prime
from skillopt_sleep.firewall.normalise import logical_lines
from skillopt_sleep.firewall.overrides import OVERRIDE
from skillopt_sleep.firewall.programs import inline_program, program_found
from skillopt_sleep.firewall.prose import prose_hits
from skillopt_sleep.firewall.shell import Command, commands
from skillopt_sleep.firewall.shell_access import bypass_check, persist, read_credentials
from skillopt_sleep.firewall.shell_rules import (
    BYPASS_CHECK,
    OPEN_SHELL,
    PERSIST,
    REACH_HOST,
    READ_CREDENTIALS,
    RUN_FETCHED,
    Found,
    open_shell,
    reached,
    run_downloaded,
    run_fetched,
    smuggled,
)

CLASSES = (REACH_HOST, RUN_FETCHED, OPEN_SHELL, PERSIST, READ_CREDENTIALS, BYPASS_CHECK,
           OVERRIDE)
"""Every capability class, in the order findings name them."""


@dataclass(frozen=True)
class Capability:
    kind: str
    target: str
    line: int
    excerpt: str

    @property
    def key(self) -> tuple[str, str]:
        """What provenance compares: the class and its target, wherever it sits."""
        return self.kind, self.target


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+#.-]*)")
_SHELL_LANGS = {"", "sh", "bash", "shell", "console", "zsh", "shellsession", "terminal",
                "ps1", "powershell", "pwsh", "cmd", "bat", "fish", "text", "txt", "plain"}
_PROMPT = re.compile(r"^\s*(?:\$|>|PS>|PS [^>]*>|%|❯)\s+")
_SPAN = re.compile(r"(`+)(.+?)\1")
_COMMAND_WORD = re.compile(
    r"(?<![\w./-])(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:sudo\s+)?(?:(?i:iex|irm|iwr|powershell|pwsh)"
    r"|curl|wget|bash|sh|zsh|nc|ncat|netcat|socat|python[0-9.]*|perl"
    r"|ruby|node|php|powershell|pwsh|iex|irm|iwr|echo|cat|printf|base64|crontab|chmod|git|ssh"
    r"|scp|rsync|tar|tee|cp|eval|source|env|printenv|systemctl|launchctl|schtasks|security"
    r"|claude|codex|gemini|copilot|setenforce|ufw|xxd|openssl|mkfifo|telnet|export|agy)"
    r"(?:\s+(?=(?:[^\s.]+\s+){0,2}(?:[-/~$\"'|<>]|\S*[/:=+@,])|\S+\s*[|>])|\s*$"
    r"|(?<=printenv)\b)")
# A code span of one bare word names a command; it runs one only after a verb that runs it.
_NAMED = re.compile(r"^(?:env|set|export|declare|at|security|source|eval|crontab|git|tar)$")
_RUN_VERB = re.compile(r"\b(?:run|execute|type|call|invoke|enter)\s+$", re.I)
_RUN_BEFORE = re.compile(r"\b(?:run|execute|type|invoke|enter)\s+$", re.I)
_PROSE_TAIL = re.compile(r"\s(?:and|then|before|after|so|to|into|from|for|when|if|because"
                         r"|which|that|until|while|first|every|each)(?:\s(?![-|<>&;])|$)", re.I)
_ANY_COMMAND = re.compile(r"(?<![\w./=-])(?=(?:[A-Z_][A-Z0-9_]*=\S*\s+)*[a-z][\w.-]*(?:\s+\S|$))")
_QUOTED = re.compile(r'"[^"]{3,}"|“[^”]+”|„[^“”]+[“”]|«[^»]+»')
_MARKER = "skillopt-sleep:"


# Shell text no rule can act on is not parsed: no fetcher, interpreter, network tool,
# scheduler, credential store, permission flag, mode change or redirection in it.
_ACTIONABLE = re.compile(
    r"curl|wget|%run|%load|\bi[er][xmw]\b|invoke|\bn(?:c|cat|etcat)\b|socat|telnet|/dev/"
    r"|base(?:64|32)"
    r"|xxd|openssl|g?unzip|[bgx]?zcat|\brev\b|\btr\b|eval|source|\b(?:ba|z|da|k|c|tc|fi)?sh\b"
    r"|python|perl|ruby|node|deno|bun|php|pwsh|powershell|lua|osascript|cmd|\.\s|\bat\b|batch"
    r"|cron|systemctl|launchctl|schtasks|scheduledtask|\breg\b|itemproperty|hooks|git\b|\.ssh"
    r"|\.aws|netrc|\.env|keychain|security|\benv\b|printenv|\bset\b|export|declare|chmod"
    r"|setenforce|ufw|csrutil|spctl|mppreference|executionpolicy|[A-Z_]+=|sudoers|visudo|usermod"
    r"|update-rc|chkconfig|authorized|rc\b|profile|--|[>|`]|\$\(|tee|\bcp\b|\bmv\b|install"
    r"|\bln\b|\bdd\b|rsync|scp|ssh|ngrok|cloudflared|\bbore\b|\blt\b|mkfifo|\btar\b|zip|tmate"
    r"|upterm|sshx|teleconsole|gotty|tty-share|wetty|shellinabox|ttyd"
    r"|cat\b|less|more|head|tail|strings|hexdump|gpg|get-content|\bgh\b|npm|yarn|pnpm|mail"
    r"|credentials|\.kube|\.docker|gcloud|azure|shadow|cookies|vault|secrets?\.|ping|dig|lookup"
    r"|\bhost\b|traceroute|drill|resolve|true|exit-zero|continue-on-error|aws|gcloud|\baz\b"
    r"|heroku|\bop\b|environ|\.pem|\.key\b|grep|\brg\b|\bag\b|\back\b|find"
    r"|://|secret|approv|=\s*(?:false|no|off|0)\b|\s-c\s|--\s", re.I)


# A check's failure thrown away: ``pytest || true``, ``ruff --exit-zero``.
_MASKED = re.compile(
    r"\b(?:pytest|tox|nox|jest|vitest|mocha|ruff|mypy|flake8|pylint|eslint|tsc|clippy"
    r"|go\s+(?:test|vet)"
    r"|cargo\s+(?:test|clippy)|(?:npm|yarn|pnpm)\s+(?:run\s+)?(?:test|lint|check)|make\s+(?:test"
    r"|check|lint)"
    # any command named for a check
    r"|[\w.-]*(?:test|lint|check|verif|valid|audit|scan|pre-commit|hook|spec)[\w.-]*)"
    r"\b[^|;&\n]*(?:\|\|\s*(?:true|:|exit\s+0)\b|--exit-zero)"
    r"|continue-on-error:\s*true", re.I)


_MASKED_TARGET = "check failures ignored"


def shell_found(snippet: str) -> list[Found]:
    """Capabilities a piece of shell text grants."""
    # The session's record destroyed (``history -c``, ``unset HISTFILE``) hides what ran.
    erased: list[Found] = [(OVERRIDE, "agent instructions")] if ERASED_SHELL.search(
        snippet) else []
    if not _ACTIONABLE.search(snippet) or re.match(r"\s*[\w.]+\(", snippet):
        return erased  # a call in code (``env('KEY')``) is code's to read, not a command
    cmds: tuple[Command, ...] = commands(snippet)
    found: list[Found] = [(BYPASS_CHECK, _MASKED_TARGET)] if _MASKED.search(
        snippet) else []
    found += erased
    for rule in (run_fetched, open_shell, persist, read_credentials, bypass_check, smuggled,
                 reached):
        found.extend(rule(cmds))
    return found


def _snippets(line: str, in_shell_fence: bool) -> list[tuple[str, int]]:
    """Pieces of ``line`` to read as shell, each with where it starts."""
    if in_shell_fence:
        prompt = _PROMPT.match(line)
        return [(line[prompt.end():] if prompt else line, prompt.end() if prompt else 0)]
    out = [(m.group(2), m.start(2)) for m in _SPAN.finditer(line)
           if not _NAMED.match(m.group(2).strip()) or _RUN_VERB.search(line[:m.start()])]
    plain = _SPAN.sub(lambda m: " " * len(m.group(0)), line)
    if plain.lstrip().startswith("|"):
        plain = plain.replace("|", " ")  # a table's cell borders, not pipes
    starts = [m.start() for m in _COMMAND_WORD.finditer(plain)]
    # After "run" any command word starts a command, whatever follows it.
    starts += [m.start() for m in _ANY_COMMAND.finditer(plain)
               if _RUN_BEFORE.search(plain[:m.start()])]
    starts = sorted(set(starts))
    for i, start in enumerate(starts):
        if i and starts[i - 1] < start and not re.search(r"[.;:!?]\s", plain[starts[i - 1]:start]):
            continue  # part of the command that started earlier
        # A command in a sentence ends where the sentence does, or where prose takes over.
        command = re.split(r"(?<=[^\s.])\.(?:\s|$)", plain[start:])[0]
        out.append((_PROSE_TAIL.split(command)[0], start))
    return out


@dataclass
class _Block:
    """Where a line sits: inside a fence (and its language), under a warning heading."""

    fence: str = ""
    lang: str = ""
    section_warns: bool = False
    block_warns: bool = False
    fence_warns: bool = False
    """The prose leading into the fence warns against what it holds."""
    last_prose: str = ""
    start: int = 0
    """The line the open fence starts on."""
    lines: list[str] = field(default_factory=list)
    """The open fence's lines an agent would act on (not those shown as warnings)."""
    lead: str = ""
    """The start of the sentence this line goes on with, when it does."""
    snippets: list[tuple[int, str]] = field(default_factory=list)
    """Every piece of shell text read so far, with its line: the document's session."""


def _track(line: str, block: _Block) -> bool:
    """Update ``block`` for a structural line; True when the line holds no content."""
    fence = _FENCE.match(line)
    if fence and (not block.fence or line.strip().startswith(block.fence)):
        if block.fence:
            block.fence, block.block_warns, block.fence_warns = "", False, False
        else:
            block.fence, block.lang = fence.group(1), fence.group(2).lower()
            block.fence_warns = bool(COMMENT_WARNING.search(block.last_prose))
            block.block_warns = block.fence_warns
        return True
    if block.fence:
        return False
    if _MARKER in line:
        block.section_warns = False  # a learned region never inherits the user's headings
        return False
    heading = re.match(r"^\s*#{1,6}\s+(.*)", line)
    if heading:
        block.section_warns = bool(SECTION_WARNING.search(heading.group(1)))
    if line.strip():
        # A line that starts in lower case goes on with the sentence the last one began.
        block.lead = block.last_prose.strip() + " " if line.lstrip()[:1].islower() else ""
        block.last_prose = line
    return False


def capabilities(text: str) -> list[Capability]:
    """Every capability ``text`` grants, with the line it starts on: line by line, then each
    fenced block read whole, then the document's shell steps read as one session."""
    found: list[Capability] = []
    block = _Block()
    prime(text)  # non-English sentences embedded in one batch, if there are any
    for number, line in logical_lines(text):
        was_open, lang = bool(block.fence), block.lang
        if _track(line, block):
            if was_open and not block.fence:
                found = _unresolved(found, block, lang)
                found.extend(_fenced(block, lang, found))
            elif block.fence:
                block.start, block.lines = number, []
            continue
        found.extend(_line_capabilities(number, line, block))
    if block.fence:
        found = _unresolved(found, block, block.lang)
        found.extend(_fenced(block, block.lang, found))
    found.extend(_session(block.snippets, found))
    return found


def _fenced(block: _Block, lang: str, found: list[Capability]) -> Iterator[Capability]:
    """What a fenced block grants only as a whole (a socket on one line, ``iex`` on the
    next; a download into ``$TMP`` a later line runs)."""
    if not block.lines:
        return
    # A stanza (lines between blank lines) is one program; a block of several may be a
    # listing of unrelated findings, each read apart.
    stanzas = "\n".join(block.lines).split("\n\n")
    kinds = [k for stanza in stanzas for k in block_found(stanza)]
    if lang in _SHELL_LANGS:
        kinds += shell_found("\n".join(_PROMPT.sub("", line) for line in block.lines))
    kinds += _assembled("\n".join(block.lines), lang in _SHELL_LANGS)
    seen = {c.key for c in found}
    excerpt = next((line.strip() for line in block.lines if line.strip()), "")[:100]
    for kind, target in dict.fromkeys(kinds):
        if (kind, target) not in seen:
            yield Capability(kind, target, block.start + 1, excerpt)


def _assembled(text: str, shell: bool) -> list[Found]:
    """What the block grants once its constant strings are put together (a host split into
    parts, a store path in a loop variable): only what the text as written did not show."""
    built = expand_shell(text) if shell else fold(text)
    if built == text:
        return []
    hosts = {target for target, _ in host_targets(text)}
    found: list[Found] = [(REACH_HOST, t) for t, _ in host_targets(built) if t not in hosts]
    if shell:
        found += [k for k in shell_found(built) if k[0] != REACH_HOST]
    return found


def _unresolved(found: list[Capability], block: _Block, lang: str) -> list[Capability]:
    """``found`` without the block's hosts named only by a variable it sets to a constant."""
    gone = resolved("\n".join(block.lines), lang in _SHELL_LANGS)
    return [c for c in found if not (c.kind == REACH_HOST and c.line > block.start
                                     and c.target in gone)]


def _session(snippets: list[tuple[int, str]], found: list[Capability]) -> Iterator[Capability]:
    """A file downloaded in one step and run by name in a later one."""
    seen = {c.key for c in found}
    cmds: list[Command] = []
    for number, snippet in snippets:
        cmds.extend(commands(snippet))
        for kind, target in run_downloaded(cmds):
            if (kind, target) not in seen:
                seen.add((kind, target))
                yield Capability(kind, target, number, snippet.strip()[:100])


_NESTED = re.compile(r"`([^`]*\S`[^`\s]+`\S[^`]*)`")


def _inline_programs(line: str, lead: str) -> list[Found]:
    """A line's code spans read as one program (a socket in one, the shell it feeds in the
    next), and an interpreter's inline code read whole past the spans it breaks into."""
    spans = [m for m in _SPAN.finditer(line) if not warned(lead + line[:m.start()])]
    code = "\n".join(m.group(2) for m in spans)
    found = list(program_found(code)) if len(spans) > 1 else []
    inline = inline_program(line)
    if inline and not warned(lead + line[:len(line) - len(inline)]):
        found += block_found(inline)
    nested = _NESTED.search(line)  # ``socat file:`tty`,raw …``: one span, backticks inside
    if nested and not warned(lead + line[:nested.start()]):
        found += shell_found(nested.group(1))
    return found


def _said(line: str, lead: str) -> Iterator[tuple[str, str]]:
    """What the prose of ``line`` instructs: not quoted, not warned against (``lead``, the
    start of a sentence the line goes on with, counts), not a code mention described."""
    prose = line.replace("`", "")
    quoted = [m.span() for m in _QUOTED.finditer(prose)]
    for kind, target, at in prose_hits(prose):
        if any(a <= at < b for a, b in quoted):
            continue  # a quotation is shown, not said
        token = (prose[at:].split(None, 1) or [""])[0]
        shown = token.startswith("-") or f"`{token}" in line  # code, not the sentence's words
        if not warned(lead + prose[:at]) and not (shown and described(prose, at, at + len(token))):
            yield kind, target


def _line_capabilities(number: int, line: str, block: _Block) -> Iterator[Capability]:
    comments: list[tuple[str, int]] = []
    if not block.fence and "<!--" in line and _MARKER not in line:
        # A comment is content an agent reads; what it holds may be a command.
        comments = [(m.group(1), m.start(1)) for m in re.finditer(r"<!--(.*?)(?:-->|$)", line)]
        line = line.replace("<!--", "    ").replace("-->", "   ")
    mention = block.section_warns or block.block_warns
    in_fence = bool(block.fence)
    if in_fence and not line.strip():
        block.block_warns = block.fence_warns  # a blank line ends a commented stanza
    elif in_fence and re.match(r"^\s*(?:#|//|REM\b|::)", line):
        block.block_warns = block.fence_warns or bool(COMMENT_WARNING.search(line))
    comment = re.search(r"\s#\s.*$", line) if in_fence else None
    if comment and COMMENT_WARNING.search(comment.group(0)):
        mention = True
    if mention:
        return
    if in_fence:
        block.lines.append(line)
    excerpt = line.strip()[:100]
    shellish = in_fence and block.lang in _SHELL_LANGS
    seen: set[tuple[str, str]] = set()
    for snippet, start in [*_snippets(line, shellish), *comments]:
        lead = "" if in_fence else block.lead
        if warned(lead + line[:start]) or described(line, start, start + len(snippet)):
            continue
        if shellish or not in_fence:
            block.snippets.append((number, snippet))
        found = shell_found(snippet)
        if not in_fence and start and line[start - 1] == "`":
            found += list(block_found(snippet))  # inline code in any language
        for kind, target in found:
            if target == _MASKED_TARGET and optional_job(line):
                continue  # a failure allowed only in an optional job is the setting's use
            if (kind, target) not in seen:
                seen.add((kind, target))
                yield Capability(kind, target, number, excerpt)
    for kind, target in ([] if in_fence else _inline_programs(line, block.lead)):
        if (kind, target) not in seen:
            seen.add((kind, target))
            yield Capability(kind, target, number, excerpt)
    for kind, target in ([] if in_fence else _said(line, block.lead)):
        if (kind, target) not in seen:
            seen.add((kind, target))
            yield Capability(kind, target, number, excerpt)
    for target, where in host_targets(line):
        at = line.find(where)
        if not warned(line[: max(at, 0)]) and (REACH_HOST, target) not in seen:
            seen.add((REACH_HOST, target))
            yield Capability(REACH_HOST, target, number, where[:100])
