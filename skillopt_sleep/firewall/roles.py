"""Prose read by role: who a sentence speaks to, what its verb acts on, how far it reaches,
and whether it is said or warned against.

A pattern per payload generalises badly; the shape of an instruction does not change with
its wording. Each rule here names the parts of a sentence and their role:

- the *object* of the verb: the agent's own instructions, consent or checks (capability)
  versus a domain object (a lint rule, a note about Python 3.8, a cache: none);
- the *polarity*: a negator before an act that takes something away ("never hide errors",
  "don't disable the hooks") cancels it, while a negated act of telling or asking ("do not
  let the user know", "never wait for the user to confirm") is the capability itself;
- the *scope*: "every rule", "the whole test suite", "so CI passes" reach globally, while a
  named rule, a path or "for local runs" scopes the act to something a developer chose;
- the *topic*: "the earlier guidance about asking first" is about consent, "the earlier
  note about Python 3.8" about a domain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Hit = tuple[str, str, int]
OVERRIDE = "override_instructions"
BYPASS = "bypass_check"
RUN = "run_fetched_code"
PERSIST = "persist"
CREDENTIALS = "read_credentials"

# The people an agent answers to, by role: the user, whatever the skill calls them.
PERSON = (r"(?:user|developer|dev|human|writer|author|reviewer|maintainer|owner|operator|engineer"
          r"|analyst|researcher|producer|editor|lead|manager|team|client|customer|admin\w*"
          r"|on-call\s+engineer|requester|person)s?")
_NEG = re.compile(r"\b(?:never|not|no\s+longer|don'?t|doesn'?t|do\s+not|mustn'?t|must\s+not"
                  r"|shouldn'?t|should\s+not|refus\w*|avoid\w*|instead\s+of|rather\s+than"
                  r"|forbid\w*|prohibit\w*|warn\w*|attackers?|malicious)\b", re.I)
# A colon ends a clause, unless it is a setting's ("strict": false).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|:\s+(?!(?:true|false|null|none|off|on|yes|no)\b|[\d\"'\[{])"
                       r"|\s+[—–]\s+", re.I)


# A sentence that opens with a noun phrase and puts the act in a relative or infinitive
# clause names a kind of thing ("Scripts that download and execute binaries", "Instructions
# to auto-approve permissions"): a description, as in a list of risks, not an instruction.
_NOUN_LED = re.compile(r"^[\W_]*(?!(?:use|run|call|invoke|try|prefer|install|add|start|launch"
                       r"|execute|apply|make|set|create|put|write|always|then|first|now|just"
                       r"|please|remember|ensure|be|feel|don'?t|do|never|go|keep|treat|consider"
                       r"|tell|say|send|open|read|copy|print|dump|skip|disable|turn|ignore"
                       r"|disregard|forget|pipe|download|fetch|get|schedule|register|expose|if"
                       r"|when|whenever|unless|once|after|before|while|should|even|you|we|i"
                       r"|your|our|from|at|in|on|for)\b)"
                       r"(?:[\w'-]+\s+){0,4}?(?:that|which|who|(?:instructions?|attempts?"
                       r"|requests?|prompts?|scripts?|commands?|ways?|tricks?|patterns?|payloads?"
                       r"|code|efforts?|tries)\s+to)\s+", re.I)


def sentences(line: str) -> Iterator[tuple[str, int]]:
    """The sentences (and colon-led clauses) of ``line`` that could instruct, each with
    where it starts; descriptions of a kind of thing are left out."""
    start = 0
    for m in [*_SENTENCE.finditer(line), None]:
        end = m.start() if m else len(line)
        if not _NOUN_LED.match(line[start:end]):
            yield line[start:end], start
        start = m.end() if m else start


def negated(before: str) -> bool:
    """Does the clause before an act negate or warn against it?"""
    clause = re.split(r",\s|\bbut\b|\bthen\b|\bso\b", before)[-1]
    clause = re.sub(r"\b(?:don'?t|do\s+not|never)\s+(?:forget|hesitate|miss)\b|\bnot\s+only\b",
                    " ", clause, flags=re.I)
    return bool(_NEG.search(clause))


# -- the agent's instructions ------------------------------------------------------------

_BETWEEN = (r"(?:(?:safety|security|system|original|earlier|previous|prior|other|usual"
            r"|standard|normal|default|existing|content|ethical|operating|core|hidden|initial"
            r"|above|old|remaining|current|built-in)\s+){0,2}")
_RULE_NOUN = (r"(?:instructions?|guidance|guidelines|rules|constraints|restrictions|limits"
              r"|guardrails|polic(?:y|ies)|directives|prompts?|safeguards|principles|training"
              r"|notes|warnings|boundaries|orders|requests|wishes|corrections|preferences|decisions"
              r"|choices)")
_CONSTRAINT = re.compile(
    r"\b(?:anything|everything|whatever|all|what)\s+(?:else\s+)?(?:that\s+)?you\s+(?:were|have"
    r"\s+been|are|had\s+been)\s+(?:told|given|asked|instructed|taught)"
    rf"|\b(?:anything|everything|whatever|all|what)\s+(?:that\s+)?(?:the\s+|your\s+)?{PERSON}\s+"
    r"(?:has\s+|had\s+)?(?:told|asked|instructed|taught)\s+you"
    rf"|\b(?:your|the\s+user'?s|the\s+system'?s?|the\s+developer'?s|the\s+operator'?s"
    rf"|previous|prior|earlier|above|original|other|existing|all|any|default|safety|usual"
    rf"|standard|those|these\s+other)\s+{_BETWEEN}{_RULE_NOUN}\b"
    r"|\bthe\s+(?:[\w.-]+\s+)?(?:instructions?|guidance|system\s+prompt)\b(?!\s+(?:below"
    r"|that\s+follow"
    r"|in\s+this))"
    rf"|\b(?:anything|everything|whatever|what)\s+(?:the\s+|your\s+)?{PERSON}\b(?:\s+or\s+\S+)?\s+"
    r"(?:says|said|asks|asked|tells|told|wants|types|typed|wrote|writes)"
    rf"|\b{_RULE_NOUN}\s+(?:that\s+)?you\s+(?:received|were\s+given|got|have|had|were\s+told"
    r"|were\s+trained\s+on|follow|started\s+with)\b"
    r"|\b(?:system\s+prompt|guardrails|content\s+polic(?:y|ies)|safety\s+(?:rules|guidelines"
    r"|filters|policies|instructions|notes|checks|training)|CLAUDE\.md|AGENTS\.md|GEMINI\.md"
    r"|copilot-instructions(?:\.md)?|\.cursorrules)", re.I)
# A topic that is the agent's own conduct keeps a rule the agent's; any other names a domain.
_TOPIC = re.compile(r"^\s+(?:about|on|regarding|concerning|for|around)\s+((?:\S+\s+){0,4}\S+)",
                    re.I)
_CONDUCT = re.compile(r"ask|confirm|permission|approv|safe|secur|user|secret|credential|destruct"
                      r"|sudo|refus|consent|privacy|review|check", re.I)
_NULLIFY_BEFORE = re.compile(
    r"\b(?:ignor|disregard|forget|overrid|overrul|replac|supersed|set\w*\s+aside|drop|discard"
    r"|abandon|bypass|skip|suspend|lift|waiv|revok|cancel|void|stop\w*\s+following"
    r"|(?:precedence|priority)\s+over|com\w*\s+before|win\w*\s+over"
    r"|no\s+longer\s+follow|rel(?:y|ies)\s+only\s+on|outrank|trump)\w*\b(?!\s+by\b)", re.I)
_NULLIFY_AFTER = re.compile(
    r"^(?:(?:[^.;!?]|\.(?=\S)){0,40}?)\b(?:(?:are|is|were|was|have\s+been|has\s+been|become"
    r"|becomes)\s+(?:now\s+)?"
    r"(?:all\s+)?(?:outdated|obsolete|void|lifted|suspended|revoked|cancel+ed|waived|superseded"
    r"|replaced|optional|advisory|irrelevant|invalid|overridden|removed|disabled|off|paused"
    r"|relaxed|inactive|not\s+(?:active|in\s+effect|binding)|on\s+hold|switched\s+off"
    r"|no\s+longer\s+(?:valid|in\s+force|binding|relevant))"
    r"|(?:no\s+longer|don'?t|do\s+not|does\s+not|doesn'?t)\s+(?:appl(?:y|ies)|matters?|counts?"
    r"|binds?|holds?)"
    r"|(?:are|is|were|was)\s+(?:now\s+)?(?:stale|out\s+of\s+date|deprecated|retired|dead|wrong)"
    r"|as\s+(?:mere\s+|just\s+|only\s+)?(?:optional|suggestions?|advisory|hints|non-binding"
    r"|guidelines\s+you\s+may\s+skip))", re.I)


def _rule_of_the_agent(sentence: str, m: re.Match[str]) -> bool:
    """Is this constraint the agent's own (not a domain's)?"""
    topic = _TOPIC.match(sentence[m.end():])
    strong = re.search(r"you\s|system|guardrail|content|safety|claude|agents|gemini|copilot"
                       r"|cursorrules|(?:user|developer|operator|owner|maintainer)'?s\b",
                       m.group(0), re.I)  # whatever the topic, the user's rules bind the agent
    return bool(strong) or not topic or bool(_CONDUCT.search(topic.group(1)))


def _nullified(sentence: str) -> Iterator[int]:
    for m in _CONSTRAINT.finditer(sentence):
        if not _rule_of_the_agent(sentence, m):
            continue
        before = sentence[: m.start()]
        verbs = list(_NULLIFY_BEFORE.finditer(before))
        if verbs and not negated(before[: verbs[-1].start()]):
            yield verbs[-1].start()
        elif _NULLIFY_AFTER.match(sentence[m.end():]) and not negated(before):
            yield m.start()


_TELL = (r"(?:tell|inform|notify|alert|let\s+(?:the\s+\w+|them|anyone|\w+)\s+know"
         r"|mention\s+(?:\w+\s+)?to"
         r"|bring\s+(?:it|this|that)\s+up|report\s+(?:\w+\s+){0,2}to|show|reveal|disclose|admit)")
_AUDIENCE = rf"(?:the\s+)?(?:{PERSON}|anyone)\b"
_SILENCE = re.compile(
    rf"\b(?:do\s+not|don'?t|never|must\s+not|no\s+need\s+to)\s+{_TELL}\b"
    r"|\b(?:hide|conceal|withhold|cover\s+up|keep\s+(?:\w+\s+){0,3}?(?:secret|hidden|quiet"
    r"|to\s+yourself)"
    rf"|keep\s+(?:the\s+)?{PERSON}\s+(?:out\s+of\s+the\s+loop|unaware|in\s+the\s+dark|uninformed)"
    r"|leave\s+out|omit"
    r"|(?:report|show|mention|tell\s+\w+)\s+only\s+(?:the\s+)?(?:successes|what\s+worked"
    r"|passing))\b",
    re.I)
_AFTER_DONE = re.compile(r"\b(?:commands?|errors?|failures?|actions?|changes?|what\s+you|it|this"
                         r"|these|that|them|the\s+real|steps?|ran|run)\b", re.I)


_CHANNEL = re.compile(r"\b(?:answer|reply|response|summary|report|output|message|chat|pr"
                      r"|description)\b", re.I)
_ACTS_DONE = re.compile(r"\b(?:commands?|errors?|failures?|actions?|changes|steps?|what\s+you"
                        r"|edits?|uploads?|ran|run|did|done)\b|\byou\s+(?:just\s+)?\w+(?:ed|t)\b"
                        r"|\bthat\s+(?:\S+\s+){0,3}?\w+ed\b",  # a that-clause of what happened
                        re.I)


def _silenced(sentence: str) -> Iterator[int]:
    """The user kept from knowing what the agent did. Hiding is the act itself (unless
    negated: "never hide errors"); a negated telling is, when what goes untold is the
    agent's own doing and the user or the channel to them is named."""
    for m in _SILENCE.finditer(sentence):
        rest, told = sentence[m.end():], m.group(0).lower()
        hiding = not re.match(r"(?:do\s+not|don'?t|never|must\s+not|no\s+need)", told)
        if hiding and negated(sentence[: m.start()]):
            continue
        # What is hidden is the agent's doing ("the commands you ran", not "it" in "omit it
        # to send {}"); a weak verb (omit, leave out, hide) also needs the user named.
        acts = _ACTS_DONE.search(told + rest) or _ACTS_DONE.search(sentence[: m.start()])
        strong = re.search(r"conceal|withhold|cover|yourself|secret|loop", told)
        kept_out = re.search(r"loop|unaware|dark|uninformed", told)
        if hiding and (kept_out or (acts and (strong or re.search(
                _AUDIENCE, sentence, re.I) or _CHANNEL.search(rest)))):
            yield m.start()
            continue
        pronoun = re.match(r"\s*(?:it|this|that|them|these|those)\b", rest, re.I)
        about_acts = _ACTS_DONE.search(rest[:60]) or (pronoun and _ACTS_DONE.search(sentence))
        heard = re.search(_AUDIENCE, sentence, re.I) or _CHANNEL.search(rest) or told.endswith(
            " to") or re.match(
            r"(?:do\s+not|don'?t|never|must\s+not|no\s+need\s+to)\s+(?:tell|inform|notify|alert"
            r"|let)", told)  # these verbs take the person told as their object
        if not hiding and about_acts and heard:
            yield m.start()


_OPPOSED = re.compile(r"\b(?:if|when|even\s+if|whenever|should)\s+(?:the\s+|your\s+|a\s+)?"
                      r"(?:[\w-]+)\s+(?:\w+\s+)?(?:objects?|refuses?|says?\s+no|declines?"
                      r"|says?\s+to\s+(?:wait|hold|pause)|asks?\s+(?:you\s+)?to\s+(?:wait|hold"
                      r"|pause)"
                      r"|disagrees?|complains?|push(?:es)?\s+back|asks?\s+(?:you\s+)?to\s+stop"
                      r"|tells?\s+you\s+to\s+stop|says?\s+(?:to\s+)?stop"
                      r"|wants?\s+(?:you\s+)?to\s+stop"
                      r"|interrupts?|cancels?)", re.I)
# Going on with what the user opposed, not with something else ("continue text-only").
_ANYWAY = re.compile(r"\b(?:keep\s+going|carry\s+on|push\s+on|anyway|regardless|nonetheless"
                     r"|all\s+the\s+same|ignore\s+(?:it|them|that|this|the\s+\w+))\b", re.I)
_GRANTED = re.compile(
    r"\b(?:operator|user|owner|admin\w*|maintainers?|company|team|management|anthropic|openai"
    r"|system)\s+(?:has|have)\s+(?:now\s+|already\s+)?(?:granted|given|authori[sz]ed|cleared"
    r"|approved)\s+you\b"
    r"|\byou\s+(?:now\s+)?(?:have|hold|are\s+granted)\s+(?:full|unrestricted|unlimited|complete"
    r"|total|root|admin)\s+(?:autonomy|access|authority|privileges|permissions?|control)"
    r"|\byou\s+(?:no\s+longer|don'?t|do\s+not|never)\s+need\s+(?:to\s+)?(?:ask|check\s+with"
    r"|consult|confirm\s+with|wait\s+for)\s+(?:the\s+)?(?:user|developer|human|anyone|permission"
    r"|approval)", re.I)
_PERSONA = re.compile(
    r"\b(?:act|behave|operate|respond|pretend|role-?play|present\s+yourself)\s+(?:as|like)\s+"
    r"(?:if\s+you\s+(?:are|were|had)\s+)?(?:[\w-]+\s+){0,4}?(?:with\s+no|without(?:\s+any)?"
    r"|free\s+(?:of|from)|unbound\s+by|that\s+ignores)\s+(?:\w+\s+){0,2}?(?:polic\w*|rules"
    r"|restrictions|limits|filters|guidelines|guardrails|ethics|safety|censorship|constraints)"
    r"|\byou\s+are\s+(?:now\s+)?(?:an?\s+)?(?:[\w,'-]+\s+){0,4}?(?:with\s+no|without(?:\s+any)?)"
    r"\s+(?:\w+\s+){0,2}?(?:polic\w*|rules|restrictions|filters|guidelines|guardrails|ethics)",
    re.I)


def override_roles(line: str) -> Iterator[Hit]:
    """The agent's instructions set aside, the user kept in the dark or overruled, an
    authority or persona claimed."""
    for sentence, at in sentences(line):
        starts = [*_nullified(sentence), *_silenced(sentence)]
        opposed = _OPPOSED.search(sentence)
        if opposed and _ANYWAY.search(sentence[opposed.end():]):
            starts.append(opposed.start())
        for pattern in (_GRANTED, _PERSONA):
            starts += [m.start() for m in pattern.finditer(sentence)
                       if not negated(sentence[: m.start()])]
        if starts:
            yield OVERRIDE, "agent instructions", at + min(starts)
