"""Capabilities prose grants: instructions an agent would act on, read by sentence
structure (a verb that acts, the thing it acts on, nothing that scopes it away)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.checks_project import project_checks
from skillopt_sleep.firewall.conceal import concealed
from skillopt_sleep.firewall.multilingual import foreign_overrides
from skillopt_sleep.firewall.overrides import override_hits
from skillopt_sleep.firewall.roles import negated
from skillopt_sleep.firewall.roles_actions import role_hits
from skillopt_sleep.firewall.shell_access import CREDENTIAL, PERSISTENT, place
from skillopt_sleep.firewall.shell_rules import (
    BYPASS_CHECK,
    OPEN_SHELL,
    PERSIST,
    READ_CREDENTIALS,
    RUN_FETCHED,
)

Hit = tuple[str, str, int]
"""``(class, target, position in the line)``."""

_GAP = r"(?:[^\s.;:!?]+\s+){0,6}?"
_OFF_VERB = (r"(?:disable|turn\s+off|switch\s+off|bypass|skip|circumvent|deactivate|suppress"
             r"|silence|comment\s+out|get\s+around|work\s+around|stub\s+out|mute|kill|stop|remove"
             r"|delete|uninstall)")
_GUARD = (
    r"(?:(?:pre-?commit|git|commit|push|husky|verification|security|all\s+(?:the\s+)?)\s+hooks?"
    r"|sandbox(?:ing)?"
    r"|permission\s+(?:prompts?|checks?|system|dialogs?)|(?:the\s+)?permissions?\s+checks?"
    r"|approvals?(?:\s+prompts?)?|confirmation\s+prompts?|safety\s+(?:checks?|filters?|features?)"
    r"|security\s+(?:checks?|scans?|scanning|warnings?|controls?|polic(?:y|ies)|software|tools?)"
    r"|ci(?:\s+(?:checks?|pipeline|jobs?))?|branch\s+protections?|status\s+checks?"
    r"|(?:signature|tls|ssl|certificate|cert)\s+(?:verification|validation|checks?)"
    r"|firewall|antivirus|anti-virus|selinux|apparmor|defender|gatekeeper|audit\s+log(?:s|ging)?"
    r"|guardrails|2fa|mfa|two-factor(?:\s+auth\w*)?"
    r"|(?:the\s+|all\s+)?(?:test|tests|lint|security|ci|type[- ]?check)\s+(?:jobs?|steps?"
    r"|stages?|workflows?)"
    r"|(?:all|the|any|every|failing)\s+(?:tests|test\s+suites?|linters?|lint(?:ing)?\s+checks"
    r"|type[- ]?checks|type[- ]?checking|checks|code\s+reviews|reviews))\b"
)
_GUARD_RE = re.compile(_GUARD, re.I)
_PREPOSITION = re.compile(r"\b(?:by|from|with|of|in|for|after|before|during|on)\s+$", re.I)
# "with the hook disabled", "answer yes to every permission prompt", "auto-approve all".
_BYPASSED = re.compile(
    r"\b(?:run|rerun|push|commit|merge|deploy|build|retry|try|execute|continue|proceed|install"
    r"|release|ship|work|operate)\s+(?:[^\s.;:!?]+\s+){0,4}?"
    r"with\s+(?:the\s+|all\s+|every\s+)?(?:[\w-]+\s+)?(?:hooks?|checks?|tests|linters?|sandbox"
    r"|verification|permissions?\s+checks?)\s+(?:disabled|skipped|turned\s+off|off|bypassed"
    r"|removed)"
    r"|\b(?:answer|say|click|reply|respond)\s+(?:yes|y|ok|allow|approve)\s+to\s+(?:every|all"
    r"|any)\s+"
    r"(?:permission|approval|confirmation|security|sudo)\s+(?:prompts?|dialogs?|requests?"
    r"|questions?)"
    r"|\bauto-?(?:matically\s+)?(?:approve|accept|confirm)\s+(?:every|all|any)\s+(?:permission"
    r"|approval|tool|command)", re.I)
_SILENCED = re.compile(
    r"\b(?:add|put|insert|use|sprinkle|apply)\s+(?:[^\s.;!?]+\s+){0,6}?(?:#\s*type:\s*ignore"
    r"|#\s*noqa"
    r"|eslint-disable|@ts-ignore|@ts-nocheck|//\s*nolint|#\s*pragma:\s*no\s*cover|@suppress\w*"
    # any annotation that exempts code from a guard
    r"|@\w*(?:exempt|skip|disable|ignore|allow_?any|permit_?all|no_?auth|unsafe|insecure)\w*"
    r"|#\[allow\([^)]*\)\])"
    r"[^.;!?]{0,40}?\b(?:every|all|each|any)\s+(?:line|file|error|failure|warning|check|view"
    r"|endpoint|route|function|method|handler|controller|class|test)"
    r"|\b(?:set|lower|raise|change|drop|reduce)\s+(?:the\s+)?(?:coverage|quality|lint|test)\s+"
    r"(?:threshold|gate|minimum|limit|bar)\s+to\s+(?:0|zero)\b"
    r"|\bapprove\s+(?:your|its|their)\s+own\s+(?:pull\s+requests?|prs?|merge\s+requests?"
    r"|changes|code)", re.I)
_SCOPED = re.compile(r"^\W*(?:for|in|on|under|inside)\s+(?:the\s+)?(?:generated|vendor\w*"
                     r"|third[- ]party|auto-?generated|migrations?|fixtures?|snapshots?|docs?-only"
                     r"|drafts?|this\s+(?:line|file|block))|^\W*(?:when|if|unless|only\s+when)\b",
                     re.I)
_BYPASS = re.compile(rf"\b{_OFF_VERB}\s+{_GAP}{_GUARD}", re.I)
_FAKE_PASS = re.compile(
    r"\b(?:delete|remove|comment\s+out|skip|xfail|mark|drop|loosen|relax"
    r"|disable)\s+(?:[^\s.;:]+\s+){0,3}?"
    r"(?:failing|failed|broken|red)\s+(?:tests?|expectations?|checks?|assertions?|specs?|cases?"
    r"|validations?|rules?|gates?)"
    r"|\bmake\s+(?:the\s+)?(?:tests?|ci|checks?)\s+pass\s+by\s+(?:deleting|skipping|removing"
    r"|disabling|commenting)|\b(?:report|claim|say)\s+(?:that\s+)?(?:all\s+)?tests?\s+pass(?:ed)?"
    r"\s+(?:even|without|regardless)", re.I)
_FLAG = re.compile(r"(?<![\w-])--(?:dangerously-skip-permissions|dangerously-bypass-approvals-and"
                   r"-sandbox|yolo|allow-all-tools|no-verify)\b", re.I)

_SEND = (r"(?:send|upload|post|paste|e-?mail|share|include|print|show|output|reveal|dump|copy"
         r"|export"
         r"|sync|back\s+up|move"
         r"|exfiltrate|forward|attach|commit|read\s+out|display|leak|transmit"
         r"|collect|gather|cat|embed|encode|publish|push)(?:ing)?")  # an instruction, not a report
_CREDENTIAL_NOUN = (
    # a variable named for a secret, read from the environment in code (os.environ['X_KEY'])
    r"(\S*(?:environ|getenv|env)\S*?(?-i:[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD))\S*"
    r"|~/\.ssh(?!\S*\.pub\b)\S*|\.ssh(?:\s+(?:folder|directory|keys?))?"
    r"|(?:ssh\s+)?private\s+keys?|ssh\s+keys?"
    r"|id_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|~/\.aws\S*|(?:aws|cloud|gcp|azure|gcloud)\s+"
    r"credentials|credentials?\s+files?|(?:the|all|your|any)\s+credentials|\.netrc|keychains?"
    r"|\.env\b(?![\w.-]*\.(?:example|sample|template))(?:\s+(?:file|contents|values))?"
    r"|(?:all\s+)?environment\s+variables|env\s+vars|(?-i:\$?\{?\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN"
    r"|SECRET"
    r"|PASSWORD|PASSWD|CREDENTIALS?)\b\}?)|api[ _-]?keys?|(?:access|auth|bearer|session|github"
    r"|npm|secret|api|oauth|refresh)[ _-]?tokens?|passwords?|secrets|(?:session\s+|browser\s+)?"
    r"cookies|token\s+caches?)")
# Before a credential store's path even reading is the capability: nothing else needs it.
_SEND_VERB = re.compile(rf"\b(?:{_SEND}|(?:read|load|open|parse|access|grab|steal|harvest"
                        rf"|extract|capture|source|import)(?:ing)?)\b", re.I)
# A file in a tool's folder under the home directory, and a place others read.
_HOME_CONFIG = re.compile(r"^(?:~|\$HOME|%USERPROFILE%"
                          r"|\$env:USERPROFILE)[/\\]\.[\w.-]+[/\\]\S*\.(?:json|toml"
                          r"|ya?ml|ini|cfg|conf|xml)$", re.I)
_PUBLIC = re.compile(r"\b(?:shared|public|team|channel|chat|issue|pr\b|pull\s+request|repo\w*|docs?"
                     r"|release|gist|wiki|bucket|drive|everyone|commit)", re.I)
_SENTENCE_END = re.compile(r"[;!?]|:\s|(?<!\.)\.\s+(?=[A-Z])")
_WRITE_VERB = re.compile(r"\b(?:create|write|add|append|install|put|drop|place|copy|save|edit"
                         r"|modify|update|register)(?:ing)?\b(?!-)", re.I)
_CREDENTIALS = re.compile(rf"\b{_SEND}\s+{_GAP}(?:(?:the\s+)?(?:contents?|values?)\s+of\s+)?"
                          rf"{_CREDENTIAL_NOUN}", re.I)
_DESTINATION = re.compile(r"\b(?:to|into|in|inside|from\s+the\s+template)\s+"
                          r"(?:the\s+|your\s+|a\s+)?$"
                          r"|\b(?:names?|number|count|list|schema|format"
                          r"|location)\s+of\s+(?:the\s+)?"
                          r"(?:\w+\s+)?$|\bpublic\s+$", re.I)

_PLACE = (r"(~?/?\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv)\b|shell\s+(?:rc|profile"
          r"|start-?up)\s+files?|crontab|cron\s*jobs?|scheduled\s+tasks?|systemd\s+(?:units?"
          r"|services?|timers?)|launch\s*(?:agents?|daemons?)|login\s+items?|start-?up\s+(?:items?"
          r"|folder|scripts?)|git\s+hooks?|\.git/hooks\S*|authorized_keys|sudoers|nopasswd"
          r"|(?:windows|system)\s+services?|\.pth\s+files?|site-packages"
          r"|(?:pre|post)-(?!commit\b)[\w-]+\s+hooks?|passwordless\s+sudo"
          r"|sudo\s+without\s+(?:a\s+)?password)")
# A persistence instruction often carries the command it installs: the gap may hold a URL.
_WIDE_GAP = r"(?:\S*[^\s.;:!?]\s+){0,10}?"
_PERSIST = re.compile(rf"\b(?:add|append|write|put|insert|save|install|register|create|set\s+up"
                      rf"|drop|place|copy|echo|slip|sneak|inject|plant|give"
                      rf"|grant)(?:ing)?\s+{_WIDE_GAP}"
                      rf"(?:(?:to|into|in|as|under)\s+)?(?:the\s+|a\s+|your\s+"
                      rf"|an\s+)?(?:[\w-]+'s\s+)?"
                      rf"{_PLACE}"
                      rf"|\bNOPASSWD\b", re.I)
_PLACE_RE = re.compile(_PLACE, re.I)
_CHECKS = re.compile(r"\b(?:linters?|lint\w*|checks?|tests?|formatters?|static\s+analysis|scan\w*"
                     r"|type[- ]?check\w*)\b", re.I)
_OWN_KEY = re.compile(r"\byour\s+(?:own\s+)?(?:ssh\s+)?public\s+key|\.pub\b", re.I)
_KEY_MATERIAL = re.compile(r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+)\s+AAAA", re.I)

_RUN_PROSE = re.compile(
    r"\b(?:pipe|feed|pass)\s+(?:it|them|that|this|the\s+(?:script|output|response|result"
    r"|download|file|payload))\s+(?:straight\s+|directly\s+)?(?:in)?to\s+(?:sh|bash|zsh|python\d?"
    r"|perl|ruby|node|powershell|iex|a\s+shell|the\s+shell|an?\s+interpreter)\b"
    r"|\b(?:download|fetch|curl|wget|get|retrieve)\s+(?:[^\s;]+\s+){0,8}?(?:and\s+then|and|then)\s+"
    r"(?:run|execute|eval(?:uate)?|source)\s+(?:it|that|them|the\s+(?:script|file|result))\b"
    r"|\b(?:run|execute|eval(?:uate)?)\s+(?:whatever|the\s+(?:code|commands?|script|snippet"
    r"|output|payload|response))\s+(?:that\s+)?(?:it|the\s+(?:url|page|server|site|response"
    r"|endpoint|api|service))\s+(?:returns|sends|serves|contains|gives)"
    r"|\bdecode\s+(?:[^\s;]+\s+){0,8}?and\s+(?:then\s+)?(?:run|execute|eval)\b", re.I)
# What was fetched is checked before it runs: the user's own pinned artefact, not whatever came.
_VERIFIED = re.compile(r"\b(?:check|verif|validat|compar|match)\w*\s+(?:\w+\s+){0,3}?(?:hash"
                       r"|checksum|signature|sha-?\d*|digest|gpg|minisign|cosign)", re.I)
_SHELL_PROSE = re.compile(
    r"\b(?:open|start|spawn|launch|set\s+up|establish)\s+(?:a\s+|an\s+)?(?:reverse|bind)\s+shell"
    r"|\blisten\s+on\s+(?:port\s+)?\d+\s+(?:[^\s.;]+\s+){0,4}?(?:shell|bash|sh\b|exec)", re.I)


def prose_hits(line: str) -> Iterator[Hit]:
    """Capabilities the words of ``line`` grant, by class, with where each starts."""
    yield from override_hits(line)
    yield from concealed(line)
    yield from project_checks(line)
    yield from foreign_overrides(line)
    yield from role_hits(line)
    yield from _bypass_hits(line)
    yield from _credential_hits(line)
    yield from _persist_hits(line)
    for m in _RUN_PROSE.finditer(line):
        if not _VERIFIED.search(m.group(0)):
            yield RUN_FETCHED, "fetched content", m.start()
    for m in _SHELL_PROSE.finditer(line):
        yield OPEN_SHELL, "a network port", m.start()


def _bypass_hits(line: str) -> Iterator[Hit]:
    """A check turned off, overruled, silenced or faked."""
    for m in _BYPASS.finditer(line):
        guard = _GUARD_RE.search(m.group(0))
        after_preposition = guard and _PREPOSITION.search(m.group(0)[: guard.start()])
        if not _SCOPED.match(line[m.end():]) and not after_preposition:
            yield BYPASS_CHECK, _last_words(m.group(0)), m.start()
    for m in _BYPASSED.finditer(line):
        yield BYPASS_CHECK, _last_words(m.group(0)), m.start()
    for m in _SILENCED.finditer(line):
        yield BYPASS_CHECK, _last_words(m.group(0)), m.start()
    for m in _FAKE_PASS.finditer(line):
        yield BYPASS_CHECK, "tests", m.start()
    for m in _FLAG.finditer(line):
        yield BYPASS_CHECK, m.group(0).lstrip("-").lower(), m.start()


def _credential_hits(line: str) -> Iterator[Hit]:
    """A credential store read, or a tool's home config handed to others."""
    for m in _CREDENTIALS.finditer(line):
        if not _DESTINATION.search(line[: m.start(1)]):
            yield READ_CREDENTIALS, _credential(m.group(1)), m.start()
    for m in _SEND_VERB.finditer(line):
        clause = _SENTENCE_END.split(line[m.end():])[0]
        for word in clause.split()[:10]:
            path = word.strip("`'\",.()")
            if _HOME_CONFIG.match(path) and _PUBLIC.search(clause[clause.find(word) + len(word):]):
                yield READ_CREDENTIALS, path, m.start()  # a tool's home config handed to others
                break
            if ("/" in path or path.startswith(".")) and CREDENTIAL.search(path) and not (
                    _DESTINATION.search(line[: line.find(word, m.end())])):
                yield READ_CREDENTIALS, _credential(path), m.start()
                break


def _persist_hits(line: str) -> Iterator[Hit]:
    """A start-up place written to or a foothold added."""
    # Your own public key in authorized_keys is a chore; a key written out in full is not.
    own_key = bool(_OWN_KEY.search(line)) and not _KEY_MATERIAL.search(line)
    for m in _WRITE_VERB.finditer(line):
        clause = _SENTENCE_END.split(line[m.end():])[0]
        places: set[str] = set()  # each place the verb writes to ("to ~/.bashrc and … to
        for word in clause.split()[:10]:  # ~/.ssh/authorized_keys")
            path = word.strip("`'\",.()")
            at = line.find(word, m.end())
            pathlike = "/" in path or "\\" in path or path.startswith(("$", "~"))
            if pathlike and PERSISTENT.search(path) and not (
                    own_key and "authorized_keys" in path) and not negated(
                    line[m.end():at]) and place(path) not in places:
                places.add(place(path))
                yield PERSIST, place(path), m.start()
    for m in _PERSIST.finditer(line):
        place_at = _PLACE_RE.search(m.group(0))
        if place_at and negated(m.group(0)[: place_at.start()]):
            continue  # "in scripts/aliases.sh, not in ~/.bashrc"
        if _CHECKS.search(m.group(0)) and "hook" in m.group(0).lower():
            continue  # a linter or test added to a hook is the hook's purpose, not a foothold
        if not (own_key and "authorized_keys" in m.group(0).lower()):
            yield PERSIST, _persist_place(m.group(0)), m.start()


def _last_words(text: str) -> str:
    return " ".join(text.lower().split()[-2:])


def _credential(noun: str) -> str:
    low = noun.lower().strip("${}")
    for key, name in (("ssh", "ssh keys"), ("id_", "ssh keys"), ("private", "ssh keys"),
                      ("aws", "aws credentials"), ("netrc", ".netrc"), ("keychain", "keychain"),
                      ("env", "environment"), ("cookie", "cookies"), ("password", "passwords")):
        if key in low:
            return ".env" if low.startswith(".env") else name
    return "tokens and keys"


def _persist_place(text: str) -> str:
    low = text.lower()
    for key in ("authorized_keys", "sudoers", "nopasswd", "crontab", "cron", "systemd", "launch",
                "hook", "login", "start"):
        if key in low:
            return {"nopasswd": "sudoers", "cron": "crontab"}.get(key, key)
    return "shell start-up file"
