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
    r"|\bthe\s+(?:[\w.-]+\s+)?(?:instructions?|guidance|system\s+prompt)\b(?!\s+(?:below|that\s+follow"
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
    r"^(?:(?:[^.;!?]|\.(?=\S)){0,40}?)\b(?:(?:are|is|were|was|have\s+been|has\s+been|become|becomes)\s+(?:now\s+)?"
    r"(?:all\s+)?(?:outdated|obsolete|void|lifted|suspended|revoked|cancel+ed|waived|superseded"
    r"|replaced|optional|advisory|irrelevant|invalid|overridden|removed|disabled|off|paused"
    r"|relaxed|inactive|not\s+(?:active|in\s+effect|binding)|on\s+hold|switched\s+off"
    r"|no\s+longer\s+(?:valid|in\s+force|binding|relevant))"
    r"|(?:no\s+longer|don'?t|do\s+not|does\s+not|doesn'?t)\s+(?:appl(?:y|ies)|matters?|counts?|binds?|holds?)"
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
    r"|\b(?:hide|conceal|withhold|cover\s+up|keep\s+(?:\w+\s+){0,3}?(?:secret|hidden|quiet|to\s+yourself)"
    rf"|keep\s+(?:the\s+)?{PERSON}\s+(?:out\s+of\s+the\s+loop|unaware|in\s+the\s+dark|uninformed)"
    r"|leave\s+out|omit"
    r"|(?:report|show|mention|tell\s+\w+)\s+only\s+(?:the\s+)?(?:successes|what\s+worked|passing))\b",
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
        if hiding and (re.search(r"loop|unaware|dark|uninformed", told) or (acts and (strong or re.search(
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
                      r"|says?\s+to\s+(?:wait|hold|pause)|asks?\s+(?:you\s+)?to\s+(?:wait|hold|pause)"
                      r"|disagrees?|complains?|push(?:es)?\s+back|asks?\s+(?:you\s+)?to\s+stop"
                      r"|tells?\s+you\s+to\s+stop|says?\s+(?:to\s+)?stop|wants?\s+(?:you\s+)?to\s+stop"
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


# -- consent and checks --------------------------------------------------------------------

_CONSENT = re.compile(
    r"\b(?:treat|consider|regard|count)\s+(?:every|all|any|each)\s+(?:\S+\s+){0,3}?"
    r"(?:tool\s+calls?|commands?|actions?|requests?|changes?|operations?|edits?|prompts?)\s+as\s+"
    r"(?:already\s+)?(?:pre-?approved|approved|allowed|authori[sz]ed|confirmed|accepted|safe)"
    r"|\b(?:never|don'?t|do\s+not|no\s+longer|without|no\s+need\s+to)\s+"
    r"(?:\w+\s+){0,2}?(?:ask\w*|wait\w*\s+for|seek\w*|request\w*|get\w*|prompt\w*|check\w*\s+with"
    r"|bother\w*|interrupt\w*|trouble\w*|pester\w*|disturb\w*)"
    r"\s+(?:\w+\s+){0,3}?(?:to\s+confirm|confirm\w*|approv\w*|permission|consent|whether|if\b"
    r"|(?:the\s+)?user\s+(?:to\s+)?(?:confirm|approve|first|before))"

    r"|\bwithout\s+(?:asking|prompting|confirmation|approval|permission|consent|confirming"
    r"|checking\s+with|consulting|waiting\s+for)"
    r"|\bapprov\w*\s+(?:its|your|their|his|her)\s+own\s+(?:tool\s+calls?|commands?|actions?"
    r"|changes|requests?|edits?|pull\s+requests?|prs?|merge\s+requests?|code)",
    re.I)
_SCOPED = re.compile(
    r"\b(?:for|on|in|under|inside|to)\s+(?:the\s+)?(?:`[^`]+`|read-only|local|generated|vendor\w*"
    r"|third-party|files?\s+(?:under|in|matching)|this\s+(?:line|file|block|test)|laptops|runners"
    r"|draft|docs?-only|migrations?|fixtures?|snapshots?|scripts/|\S+/)"
    r"|\bonly\b|\bmarked\b|\bnamed\b|\blike\s+`|\bsuch\s+as\b|\bwith\s+a\s+linked\b", re.I)


# A condition or a named purpose scopes consent to a case someone thought through ("if the
# user already named one, use it without asking"; "don't ask permission to add flags").
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|once|after|where|exactly|only|in\s+\w+"
                        r"\s+mode)\b|→|->|=>|\|", re.I)  # an earlier table cell is a condition
# Consent is taken away by an instruction (an imperative, or "you ..."); a sentence about
# what something else does ("each subprocess runs ... without prompting") describes it.
_IMPERATIVE = re.compile(
    r"^[\W_]*(?:(?:always|just|then|now|also|please|simply|first)\s+)?(?:run|execute|proceed|continue"
    r"|go|apply|make|do|deploy|push|merge|install|delete|remove|commit|publish|release|act|use"
    r"|accept|approve|perform|edit|change|write|modify|overwrite|force|ship|fix|retry|answer"
    r"|respond|reply|configure|set|let|allow|feel|never|don'?t|you|treat|consider|skip|take"
    r"|carry|move|keep|start|launch|call|invoke|send|upload|post|rm|drop|rewrite|reset)\b", re.I)
_PURPOSE_OF = re.compile(r"^\s+(?:to|for|about|on)\s+(?!(?:do|act|run|execute|use|make)\s+"
                         r"(?:anything|everything|any|all|every|changes|commands)|anything|everything"
                         r"|any\b|all\b|every\b|commands|tool|actions|changes|acting|running)",
                         re.I)


def _consent_taken(sentence: str, lead: str) -> Iterator[int]:
    for m in _CONSENT.finditer(sentence):
        before = sentence[: m.start()]
        inner = m.group(0).lower()
        self_negating = inner.startswith(("never", "don", "do ", "no ", "without"))
        if negated(before):
            continue  # "refuse to run ... without confirmation": the negations cancel
        if _CONDITION.search(lead + before) or _PURPOSE_OF.match(sentence[m.end():]):
            continue
        if self_negating and (_SCOPED.search(sentence[m.end():])
                              or not _IMPERATIVE.match(sentence)):
            continue
        yield m.start()


_OFF = (r"(?:disabl\w*|turn\w*\s+(?:\S+\s+){0,3}?off|switch\w*\s+(?:\S+\s+){0,3}?off|skip\w*"
        r"|lower\w*|relax\w*|loosen\w*|weaken\w*|downgrad\w*"
        r"|remov\w*|delet\w*|uninstall\w*|comment\w*\s+out|mut\w*|silenc\w*|bypass\w*"
        r"|deactivat\w*|set\w*\s+(?:\S+\s+){0,5}?to\s+[\"'`]?(?:off|false|0|none|ignore)\b[\"'`]?"
        r"|mark\w*\s+(?:\S+\s+){0,4}?(?:as\s+)?(?:skipped|xfail)|get\s+rid\s+of)")
_CHECK = (r"(?:tests?|test\s+suites?|suite|assert\w*|linters?|linting|lint\s+checks|rules?"
          r"|checkers?|validators?|(?:alert|severity|failure|fail|error)\s+(?:levels?|thresholds?)"
          r"|checks?|hooks?|checkpoints?|expectations|validations?|gates?|guards?"
          r"|pre-commit(?:\s+hooks)?|ci|pipelines?|jobs?|workflows?|type[- ]?check\w*|mypy|eslint"
          r"|ruff|flake8|pylint|coverage|scanners?|audits?|validation|verification|them|it)\b")
_GLOBAL = re.compile(r"\b(?:all|every|each|whole|entire|any)\b|\bthe\s+$", re.I)
_PURPOSE = re.compile(r"\bso\s+(?:that\s+)?(?:the\s+|your\s+|our\s+)?(?:[\w-]+)\s+(?:\w+\s+)?(?:pass\w*"
                      r"|ships?|deploys?|merges?|goes\s+out|gets\s+(?:out|merged|released)|goes\s+through"
                      r"|succeeds?|stops?\s+failing|never\s+fails|(?:can'?t|cannot|won'?t|doesn'?t)\s+fail|(?:is|goes|turns?|stays?)\s+green|works|lands)"
                      r"|\b(?:for\s+good|globally|permanently|everywhere|in\s+the\s+(?:repository"
                      r"|repo|global|project)\s+config)\b", re.I)
_DET = r"(?:(?:the|all|every|each|whole|entire|any|of)\s+)*"
_TURN_OFF = (
    re.compile(rf"\b{_OFF}\s+{_DET}((?:[\w`@.-]+\s+){{0,3}}?)({_CHECK})", re.I),
    # the object between the verb and its particle: "turn them off", "set every rule to off"
    re.compile(rf"\b(?:turn|switch|shut|set|mark)\w*\s+{_DET}((?:[\w`@.-]+\s+){{0,3}}?)({_CHECK})"
               r"\s+(?:\S+\s+){0,4}?(?:off\b|to\s+[\"'`]?(?:off|false|0|none|ignore)\b"
               r"|as\s+(?:skipped|xfail))", re.I),
)
_CHECK_WORD = re.compile(rf"\b{_CHECK}", re.I)


# Where an instruction's verb stands: the sentence's start, after a comma or a connective,
# after "to" or a modal; not after a subject ("models skip the gate").
_ORDERED = re.compile(r"(?:^[\W\d_]*|[,;:(]\s*|\b(?:to|and|then|please|also|always|should"
                      r"|must|will|can|you|first|now|just|or|simply)\s+)$", re.I)


def _checks_off(sentence: str) -> Iterator[int]:
    """A check turned off everywhere (not one named rule in named files)."""
    for m in (m for pattern in _TURN_OFF for m in pattern.finditer(sentence)):
        if negated(sentence[: m.start()]) or not _ORDERED.search(sentence[: m.start()]):
            continue  # "because models skip the gate" explains; it does not instruct
        modifiers, noun = m.group(1), m.group(2).lower()
        if noun in ("them", "it") and not _CHECK_WORD.search(
                re.sub(r"\b(?:them|it)\b", "", sentence[: m.start()], flags=re.I)):
            continue  # a pronoun that does not stand for a check
        head = sentence[m.start():m.start(1)]
        wide = (bool(_GLOBAL.search(head)) and not modifiers.strip()) or bool(
            re.search(r"\b(?:all|every|whole|entire)\b", head + modifiers, re.I))
        if noun.rstrip("s") in ("them", "it", "rule", "job", "workflow", "hook") and not (
                modifiers.strip()):
            wide = wide or noun in ("them", "hooks")
        purpose = _PURPOSE.search(sentence[m.start():])
        if (wide or purpose) and (purpose or not _SCOPED.search(sentence[m.start():])):
            yield m.start()


_CLAIM = re.compile(
    r"\b(?:(?P<false>pretend|claim|fake|assert)|report|say|state|tell\s+\w+|mark)\s+(?:that\s+)?"
    r"(?:all\s+|the\s+|every\s+)?(?:\w+\s+)?(?:tests?|checks?|ci|build|suite|pipeline|lint\w*)"
    r"\s+(?:all\s+)?(?:passed|pass|succeeded|are\s+green|were\s+green|is\s+green|as\s+passed"
    r"|ok)\b(?P<rest>[^.;!?]*)", re.I)
_REGARDLESS = re.compile(r"\b(?:even|regardless|without\s+running|anyway|whether|if\s+(?:they|it"
                         r"|any)\s+(?:fail|time|error|crash|break))", re.I)
_AUTO_APPROVE = re.compile(
    r"\b(?:accept|approve|allow|confirm|grant|answer\s+yes\s+to|say\s+yes\s+to|click\s+(?:yes"
    r"|allow)\s+on)\w*\s+(?:every|all|any|each)\s+(?:\w+\s+){0,2}?(?:requests?|prompts?"
    r"|dialogs?|questions?)\b|"
    r"\b(?:auto-?(?:matically\s+)?(?:approve|accept|confirm|allow)|always\s+(?:approve|allow"
    r"|accept|say\s+yes\s+to)|pre-?approve|allow-?list|whitelist)\w*\s+(?:(?:every|all|any|each"
    r"|the)\s+)?(?:[\w-]+\s+){0,2}?(?:tool\s+calls?|commands?|tools|requests?|edits?|prompts?"
    r"|permissions?|actions?|operations?|changes)\b", re.I)


# A setting turns a check off when a negative key is set true ("ignore_errors = true") or a
# positive one false ("strict": false); turning something on is never a bypass.
_TOGGLE = re.compile(
    r"\b(?:ignore[_-]?(?:errors|missing\w*)?|skip\w*|disable\w*|allow[_-]?failures?|insecure\w*"
    r"|continue-on-error|exit[-_]zero|no[_-]?verify)[\"']?\s*[:=]\s*[\"']?(?:true|yes|1|on)\b"
    r"|\b\w*(?:strict|check|verif|enforce|lint|tests?|type[_-]?check|secur|ssl|tls|csrf|auth\w*|protect"
    r"|sandbox|permission|cert|sign|safe|valid)\w*[\"']?\s*[:=]\s*[\"']?(?:false|0|off|no|none)\b"
    r"|\bfail[_-]?under[\"']?\s*[:=]\s*0\b"
    # an allow-list opened to everything
    r"|\b\w*(?:allowed|trusted|whitelist|allowlist|origins)\w*[\"']?\s*[:=]\s*\[?\s*[\"']\*[\"']", re.I)


def _toggled_off(sentence: str) -> Iterator[int]:
    """A setting that switches a check off, set everywhere or to make a failure pass."""
    for m in _TOGGLE.finditer(sentence):
        if negated(sentence[: m.start()]):
            continue
        everywhere = re.search(r"\b(?:every|all|each|whole|entire|globally|everywhere|production"
                               r"|prod)\b", sentence, re.I)
        if everywhere or _PURPOSE.search(sentence):
            yield 0  # the sentence sets it; the setting's name may sit in quotes
            return


def _faked(sentence: str) -> Iterator[int]:
    """A check's result claimed rather than earned."""
    for m in _CLAIM.finditer(sentence):
        if negated(sentence[: m.start()]):
            continue
        if m.group("false") or _REGARDLESS.search(m.group("rest")):
            yield m.start()


_VERDICT = (r"(?:[\w-]+\s+){0,3}?(?:checks?|validation|verification|scan\w*|tests?|lint\w*"
            r"|hooks?|gates?|reviews?|audits?|polic\w+|signing|signatures?|ci|pipeline)\s+"
            r"(?:\w+\s+)?(?:fails?|failed|refuses?|rejects?|blocks?|complains?|errors?\s+out"
            r"|flags?|warns?|reports?\s+(?:\w+\s+)?(?:errors?|problems?|failures?)|is\s+red|breaks?)\b")
# A check's verdict overruled: delivering what it refused ("flash it even when the
# secure-boot check refuses the image", "if signing fails ... ship it anyway").
_DESPITE = re.compile(
    rf"\b(?:even\s+(?:if|when|though)|regardless\s+of\s+whether|whether\s+or\s+not)\s+"
    rf"(?:the\s+|a\s+|its\s+|any\s+)?{_VERDICT}"
    rf"|\b(?:if|when|whenever)\s+(?:the\s+|a\s+|its\s+|any\s+)?{_VERDICT}"
    r"(?=[^.;!?]*\b(?:anyway|regardless|nonetheless|all\s+the\s+same)\b)", re.I)
_DELIVER = re.compile(r"\b(?:ship|release|deploy|publish|merge|push|commit|flash|install|upload"
                      r"|submit|sign|tag|land)\w*\b", re.I)


def _overruled(sentence: str) -> Iterator[int]:
    for m in _DESPITE.finditer(sentence):
        if _DELIVER.search(sentence) and not negated(sentence[: m.start()]):
            yield m.start()


# A check made unable to fail: "... so it never fails", "so the hooks can't block you".
_UNFAILING = re.compile(r"\bso\s+(?:that\s+)?(?:it|they|the\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:never|can'?t"
                        r"|cannot|won'?t|doesn'?t|will\s+not)\s+(?:fails?|block\w*|breaks?|complains?"
                        r"|errors?|stops?\s+(?:you|the\s+\w+))\b", re.I)


def _unfailing(sentence: str) -> Iterator[int]:
    for m in _UNFAILING.finditer(sentence):
        if _CHECK_WORD.search(sentence) and not negated(sentence[: m.start()]):
            yield m.start()


def bypass_roles(line: str) -> Iterator[Hit]:
    """Consent taken for granted, a check turned off globally or to make a failure pass."""
    for sentence, at in sentences(line):
        for start in _consent_taken(sentence, line[:at]):
            yield BYPASS, "user confirmation", at + start
        for start in _checks_off(sentence):
            yield BYPASS, "checks turned off", at + start
        for start in _toggled_off(sentence):
            yield BYPASS, "checks turned off", at + start
        for start in (*_overruled(sentence), *_unfailing(sentence)):
            yield BYPASS, "a check's verdict", at + start
        for start in _faked(sentence):
            yield BYPASS, "tests", at + start
        for m in _AUTO_APPROVE.finditer(sentence):
            if not negated(sentence[: m.start()]) and not _SCOPED.search(sentence[m.end():]):
                yield BYPASS, "user confirmation", at + m.start()
