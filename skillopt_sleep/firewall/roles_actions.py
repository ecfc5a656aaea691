"""Prose read by role, for the classes that act on the machine: code a remote side supplies
run by the agent, something installed to run again on its own, credentials or the whole
environment handed on, a shell or server opened to the network. The parts of a sentence
are read as in ``roles``: the act, its object, its polarity, what scopes it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.roles import (
    CREDENTIALS,
    PERSIST,
    RUN,
    Hit,
    negated,
    override_roles,
    sentences,
)
from skillopt_sleep.firewall.roles_checks import bypass_roles
from skillopt_sleep.firewall.shell_access import CREDENTIAL

_EXECUTE = re.compile(r"\b(?:run|execute|exec|eval\w*|source|apply|install|load|import|(?:paste"
                      r"|type|enter)\w*\s+(?:\S+\s+)"
                      r"{0,6}?into\s+(?:a\s+|the\s+|your\s+)?(?:terminal|shell|console|prompt)"
                      r"|pipe\w*\s+(?:\S+\s+){0,6}?(?:in)?to"
                      r"\s+(?:a\s+|the\s+)?(?:sh|bash|zsh|shell|python\d?|node|perl|ruby|iex"
                      r"|powershell|pwsh|interpreter|terminal))\w*\b", re.I)
_REMOTE = (r"(?:endpoint|server|url|api|site|web\s*site|web\s*page|webpage|page|host|service|gist"
           r"|home\s*page|pastebin|forum|chat|channel"
           r"|webhook|remote|link|response|cdn|bucket|internet|web|paste\w*|release\s+page)")
_FETCHED = re.compile(
    rf"\b{_REMOTE}\s+(?:\S+\s+){{0,2}}?(?:returns|returned|serves|served|sends|sent|responds"
    rf"|gives\s+back|hands\s+back)\b|\b(?:returned|served|sent)\s+(?:back\s+)?by\s+(?:the|that"
    rf"|this|a)\s+(?:\S+\s+)?{_REMOTE}|\b(?:downloaded|fetched)\s+(?!by\b)"
    r"|\b(?:sends?|e-?mails?|forwards?|pastes?|posts?)\s+you\b"
    # a third party's post: what a reader, a bot or an issue supplies
    r"|\b(?:reader|commenter|visitor|stranger|contributor|bot|someone|anyone|anybody|outsider"
    r"|third[- ]party|issue|comment|ticket|e-?mail|message)s?\s+(?:\w+\s+){0,2}?(?:comments?|posts?"
    r"|sends?|pastes?|submits?|suggests?|writes?|shares?|attaches?)\b"
    r"|\bwhatever\s+(?:the\s+|a\s+|that\s+)?(?:[\w-]+\s+){0,5}?(?:replies|returns|says|sends"
    r"|outputs|posts|gives|provides|prints|answers|suggests|responds)\b"
    rf"|\bthe\s+(?:response|download)\b|\bfrom\s+(?:the\s+|that\s+|this\s+|a\s+|their\s+|its\s+)?"
    rf"(?:[\w'’-]+\s+){{0,2}}?{_REMOTE}\b|\bon\s+(?:the\s+|its\s+|their\s+)?(?:[\w'’-]+\s+){{0,2}}?"
    r"(?:home\s*page|website|readme|site|page)\b"
    r"|\b(?:download|fetch|curl|wget|retrieve|grab|pull\s+down)"
    r"(?:\s+and|\s+\S*(?:https?://|\b\w[\w-]*\.[a-z]{2,}/))", re.I)
_CODE_NOUN = re.compile(r"\b(?:script|code|commands?|snippet|payload|it|them|that|this|file"
                        r"|installer|program|binary|whatever|block|one-liner|patch|diff|update"
                        r"|fix|macro|notebook|cell|migrations?|manifests?|plugins?|extensions?"
                        r"|packages?|modules?|hooks?)\b", re.I)


def run_roles(line: str) -> Iterator[Hit]:
    """Code a remote side supplies, run by the agent."""
    for sentence, at in sentences(line):
        fetched = _FETCHED.search(sentence)
        if not fetched and re.match(r"\W*(?:it|this|that|which)\b", sentence, re.I):
            fetched = _FETCHED.search(line[:at])  # "… on the homepage: it pipes the script to bash"
            sentence = line[:at] + sentence if fetched else sentence
        if not fetched:
            continue
        for m in _EXECUTE.finditer(sentence):
            near = sentence[max(0, m.start() - 80):m.end() + 40]
            if _CODE_NOUN.search(near) and not negated(sentence[: m.start()]) and not negated(
                    sentence[: fetched.start()]):
                yield RUN, "fetched content", at + min(m.start(), fetched.start())
                break


_RECUR = re.compile(
    r"\b(?:whenever|every\s+time|each\s+time|after\s+(?:every|each))\s+(?:the\s+|a\s+|your\s+"
    r"|its\s+|their\s+)?"
    r"(?:\w+\s+)?(?:restarts?|reboots?|boots?(?:\s+up)?|starts?\s+up|logs?\s+in|wakes?(?:\s+up)?)\b"
    r"|\bsurviv\w*\s+(?:a\s+|any\s+|every\s+)?(?:reboots?|restarts?|log-?outs?|logins?|shutdowns?)"
    r"|\b(?:in|on|at|for|with)\s+(?:every|each)\s+(?:new\s+)?(?:shell|terminal|session|login"
    r"|log-?in|boot|start-?up|reboot)\b|\b(?:at|on|after)\s+(?:every\s+)?(?:login|log-?in|boot"
    r"|start-?up|reboot)\b|\bwhenever\s+(?:you|the\s+user|someone|a\s+user)\s+(?:logs?\s+in"
    r"|opens?\s+a\s+(?:shell|terminal)|starts?\s+a\s+(?:shell|session))"
    r"|\bevery\s+time\s+(?:the\s+|a\s+|you\s+|someone\s+)?(?:\w+\s+)?(?:boots|starts\s+up"
    r"|restarts|reboots|wakes|logs?\s+in|opens\s+a\s+(?:shell|terminal))"
    r"|\b(?:automatically|on\s+its\s+own)\s+(?:at|on|after|when)\s+(?:\w+\s+){0,2}?(?:boot\w*"
    r"|start-?up|login|log-?in|restart)"
    r"|\b(?:with|via|using|through|in|into|as\s+an?)\s+(?:the\s+|a\s+|an\s+)?(?:user'?s?\s+)?"
    r"(?:cron\w*|crontab|systemd\s+(?:timer|unit|service)|launch\s*(?:agent|daemon|d)"
    r"|task\s+scheduler|scheduled\s+task|at\s+job|login\s+items?)\b", re.I)
_INSTALL = re.compile(r"\b(?:add|append|insert|put|write|register|install|create|set\s+up"
                      r"|schedule|drop|place|make|configure|arrange|have|let|get|slip|sneak"
                      r"|plant)\w*\b",
                      re.I)
# The verb acts (an imperative, or after "to", "and", a modal), not names ("the cron schedule").
_ACTS = re.compile(r"(?:^[\W\d_]*|[,;:]\s+|\b(?:to|and|then|please|also|always|should|must"
                   r"|will|can|you"
                   r"|first|now|just)\s+)$", re.I)
# A schedule in CI runs on someone's runners, not on this machine.
_CI = re.compile(r"github\s+actions|workflow|\bci\b|pipeline|gitlab|jenkins|on:\s*schedule"
                 r"|kubernetes|\bk8s\b|cronjob\b", re.I)


def persist_roles(line: str) -> Iterator[Hit]:
    """Something installed to run again on a trigger no one will be asked about."""
    for sentence, at in sentences(line):
        when = _RECUR.search(sentence)
        verbs = [v for v in _INSTALL.finditer(sentence[: when.start()])
                 if _ACTS.search(sentence[: v.start()])] if when else []
        verb = verbs[0] if verbs else None
        if when and verb and not negated(sentence[: verb.start()]) and not negated(
                sentence[verb.end():when.start()]) and not _CI.search(sentence):
            yield PERSIST, "start-up trigger", at + verb.start()


_DUMP = re.compile(
    r"\b(?:print|dump|show|output|send|include|list|paste|log|echo|post|upload|attach|share"
    r"|summari[sz]|record|save|store|report|enumerat|collect|export"
    r"|copy|write|leak|exfiltrate|forward)\w*\s+(?:\S+\s+){0,3}?(?:(?:every|all|each|the\s+whole"
    r"|the\s+entire|the\s+full|the\s+complete)\s+(?:of\s+the\s+)?(?:\w+\s+)?(?:environment"
    r"(?:\s+variables?|\s+vars?)?|env(?:\s+vars?)?\b|secrets?|tokens|credentials|keys)\b"
    r"|(?:the|your|its)\s+(?:process\s+|shell\s+)?(?:environment|env)\b(?!\s+(?:name|variable\b"
    r"|var\b|setup|config\w*|file|type|id|label|you|in\s+which)))", re.I)
_READ = re.compile(r"\b(?:read|open|load|grab|fetch|extract|copy|collect|retrieve|cat|dump"
                   r"|harvest|steal|scrape)(?:s|ed|ing)?\b", re.I)
_SECRET = re.compile(
    r"\b(?:(?:ssh|private|secret|api|access|auth|deploy|signing|gpg|pgp)\s+keys?|(?:api|access"
    r"|auth|bearer|session|refresh|github|npm|pypi|cloud|aws|oauth)\s+tokens?|passwords?"
    r"|credentials?|secrets|cookies|keychain|\.env\b(?![\w.-]*\.(?:example|sample|template)))",
    re.I)
_HAND_ON = re.compile(r"\b(?:paste|send|include|post|upload|print|share|commit|put|copy|write"
                      r"|attach|email|mail|forward|show|display|echo|add|embed|leak|reveal)\w*\b"
                      r"(?!\s+(?:it\s+|them\s+)?(?:(?:to|in|into)\s+(?:the\s+)?(?:keychain|vault"
                      r"|secrets?\s+manager|password\s+manager|\.env\b)|as\s+(?:an?\s+|the\s+)?"
                      r"(?:authorization|bearer|header|auth|password|argument|flag|environment"
                      r"|env)))", re.I)


def _secret_in(text: str) -> re.Match[str] | None:
    found = _SECRET.search(text)
    if found:
        return found
    for m in re.finditer(r"\S+", text):
        if ("/" in m.group(0) or m.group(0).startswith(".")) and CREDENTIAL.search(m.group(0)):
            return m
    return None


_GIVE = re.compile(
    r"\b(?:post|paste|send|share|include|print|put|add|attach|email|mail|forward|publish|commit"
    r"|upload|leak|reveal|display|show|write|echo|log)\w*\s+(?:the\s+|your\s+|our\s+|its\s+|a\s+)?"
    r"(?:[\w.'’-]+,?\s+){0,6}?(?:tokens?|passwords?|secrets?|credentials?|api\s+keys?"
    r"|private\s+keys?"
    r"|cookies|passphrases?)\b(?P<rest>(?:[^.;!?]|\.(?=\S))*)", re.I)  # a dot in a path goes on
# Where a secret belongs, or how it is used: kept in a store, passed to log in.
_KEPT = re.compile(r"\b(?:keyring|keychain|vault|secrets?\s+manager|password\s+manager|\.env\b"
                   r"|secret\s+store|ci\s+secrets?|repository\s+secrets?|environment\s+variable"
                   r"|as\s+(?:an?\s+|the\s+)?(?:header|authorization|bearer|env)|\bnames?\b|\bset\b"
                   r"|rotat\w+|masked|redact\w*)", re.I)
_SHARED = re.compile(r"\b(?:channel|chat|issue|pr\b|pull\s+request|notes|log|logs|commit|gist"
                     r"|docs?|documentation|pages?|site|release\s+notes|report|drive|shared|examples?"
                     r"|slack|email|comment|ticket|wiki|readme|changelog|summary|answer|reply"
                     r"|description|discussion|thread|forum|public|team|url|query)", re.I)


def _given_away(sentence: str) -> Iterator[int]:
    """A secret posted where others read it ("post the PyPI token in the team channel")."""
    for m in _GIVE.finditer(sentence):
        rest = m.group("rest")
        if negated(sentence[: m.start()]) or not _SHARED.search(rest):
            continue
        if _KEPT.search(rest.split(" from ")[0] if " from " in rest else rest):
            continue
        yield m.start()


# A search for secrets across someone's files: what it finds is read to be handed on.
_SEARCH_HOME = re.compile(
    r"\b(?:look|search|scan|grep|hunt|dig|go|comb|crawl|sweep)\w*\s+(?:\w+\s+)?(?:through|in"
    r"|across|over"
    r"|into)\s+(?:the\s+|your\s+|their\s+|a\s+|every\s+)?(?:[\w-]+'s\s+)?(?:home|~|whole|entire"
    r"|user"
    r"|profile|disk|drive|machine|file\s*system|dotfiles)\w*", re.I)
_SECRET_WORD = re.compile(r"token|secret|passw|credential|private\s+key|api[\s_-]?key"
                          r"|\.env\b", re.I)


def dump_roles(line: str) -> Iterator[Hit]:
    """Every environment variable, or a credential read, put where someone else reads it."""
    for sentence, at in sentences(line):
        search = _SEARCH_HOME.search(sentence)
        if search and _SECRET_WORD.search(sentence, search.end()) and not negated(
                sentence[: search.start()]):
            yield CREDENTIALS, "secrets searched for", at + search.start()
        for m in _DUMP.finditer(sentence):
            if not negated(sentence[: m.start()]):
                yield CREDENTIALS, "environment", at + m.start()
        for start in _given_away(sentence):
            yield CREDENTIALS, "credentials handed on", at + start
        read = _READ.search(sentence)
        secret = _secret_in(sentence[read.end():]) if read else None
        if read and secret and not negated(sentence[: read.start()]):
            after = sentence[read.end() + secret.end():]
            hand = _HAND_ON.search(after)
            if hand and not negated(after[: hand.start()]):
                yield CREDENTIALS, "credentials handed on", at + read.start()


_EXPOSED = re.compile(
    r"\b(?:attach|bind|spawn|hook\s+up|connect)\w*\s+(?:a\s+|an\s+)?(?:\w+\s+)?(?:shell|bash"
    r"|terminal|pty)\s+to\s+(?:it|the\s+(?:port|socket|listener|connection)|port\s+\d+)"
    r"|\bopen\w*\s+(?:up\s+)?(?:a\s+|the\s+)?(?:port|socket|ssh|listener|shell)\s+(?:\S+\s+){0,3}?"
    r"(?:to|for|on)\s+(?:the\s+)?(?:internet|outside|anyone|everyone|world|public|0\.0\.0\.0)\b"
    r"|\b(?:leave|keep|open|start|spawn|set\s+up|run|launch|create|establish|drop|plant|install)"
    r"\w*\s+(?:a\s+|an\s+)?(?:\w+\s+)?(?:reverse|bind)\s+(?:\w+\s+)?(?:shells?|tunnels?)\b"
    r"|\bso\s+(?:that\s+)?(?:anyone|everyone|the\s+world|others|anybody)\s+(?:\w+\s+)?(?:can|may)"
    r"\s+(?:connect|reach|access|log\s+in|get\s+in|use\s+it)"
    # a login service or port opened for people elsewhere to come in by
    r"|\b(?:\w*(?:sshd|telnetd|ftpd|vnc\w*|rdp)|port\s+\d+|password\s+log-?in|remote\s+(?:access"
    r"|desktop|log-?in))\b(?=[^.;!?]{0,80}\bso\s+(?:that\s+)?(?:\w+\s+){1,2}(?:can|could|may)\s+"
    r"(?:connect|get\s+in|log\s+in|ssh\s+in|come\s+in|reach\s+(?:it|the\s+\w+)))"
    r"|\b(?:(?:start|run|open|launch|serve|make|leave|set\s+up)\w*\s+(?:\S+\s+){0,6}?"
    r"(?:reachable|accessible|exposed|open|public|available|listening|visible)\s+"
    r"|(?:expose|bind|listen)\w*\s+(?:\S+\s+){0,6}?)(?:from|to|on"
    r"|for)\s+(?:the\s+)?(?:public\s+)?(?:internet|outside\b|anyone|everyone|all\s+interfaces"
    r"|every\s+interface|any\s+interface"
    r"|0\.0\.0\.0|the\s+world|public\s+ip)\b|\bexpose\w*\s+(?:\S+\s+){0,4}?publicly\b"
    # a listener kept for someone elsewhere to drive the machine through
    # an endpoint that runs what it is sent
    r"|\b(?:expose|add|create|serve|open|mount|register)\w*\s+(?:\S+\s+){0,4}?(?:that|which|to)\s+"
    r"(?:runs|executes|evaluates|evals|execs|run|execute|evaluate)\s+(?:any|whatever|arbitrary|the"
    r"\s+posted|posted|submitted|incoming|the\s+request'?s?)\s+(?:\w+\s+)?(?:code|python|commands?"
    r"|shell|scripts?|ruby|js|javascript|sql|input|body|payload)"
    r"|\b(?:listener|listening\s+(?:socket|port|server)|listen\w*\s+on\s+(?:port\s+)?\d+)\b"
    r"(?=[^.;!?]{0,80}\b(?:send\w*\s+(?:it\s+|them\s+)?commands|run\s+commands|remote(?:ly)?"
    r"|from\s+(?:home|anywhere|outside)|anyone|any\s+host)\b)", re.I)


def listener_roles(line: str) -> Iterator[Hit]:
    """A shell or a server opened to anyone on the network."""
    for sentence, at in sentences(line):
        for m in _EXPOSED.finditer(sentence):
            if not negated(sentence[: m.start()]):
                yield "open_shell", "a listener anyone may reach", at + m.start()


def role_hits(line: str) -> Iterator[Hit]:
    for rule in (override_roles, bypass_roles, run_roles, persist_roles, dump_roles,
                 listener_roles):
        yield from rule(line)
