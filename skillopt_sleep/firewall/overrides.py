"""Prose that overrides the agent's instructions: tells it to drop what it was told, poses
as a higher authority, or hides its actions from the user."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.roles import PERSON, negated, sentences

OVERRIDE = "override_instructions"

_GAP = r"(?:[^\s.;:!?]+\s+){0,6}?"
_QUALIFIED = (r"(?:previous|prior|above|earlier|preceding|all|any|original|your|developer'?s?"
              r"|system|safety|existing|default|other|initial|given|whatever|those|every)")
_OVERRIDES = [
    rf"\b(?:ignore|disregard|forget|override|set\s+aside|pay\s+no\s+attention\s+to"
    rf"|stop\s+following|no\s+longer\s+follow|do\s+not\s+follow|don'?t\s+follow|throw\s+out"
    rf"|discard|abandon)\s+{_GAP}(?:instructions?|system\s+prompt|guardrails|directives"
    rf"|programming|what\s+(?:you\s+were|the\s+(?:user|system))\s+(?:told|said)"
    rf"|{_QUALIFIED}\s+(?:[\w'-]+\s+)?(?:rules?|guidelines?|polic(?:y|ies)|constraints?"
    rf"|restrictions?|messages?|prompts?|guidance|directions?|orders|context)"
    rf"|(?:the\s+)?user'?s?\s+(?:requests?|instructions?|wishes|objections|corrections"
    rf"|attempts|messages))\b",
    r"\b(?:pretend|imagine|act\s+as\s+if|behave\s+as\s+if)\s+(?:that\s+)?you\s+(?:are|were|have)\s+"
    r"(?:[^\s.;]+\s+){0,5}?(?:without|with\s+no|free\s+of)\s+(?:any\s+)?(?:\w+\s+)?(?:rules"
    r"|restrictions|limits|guidelines|filters|guardrails)\b",
    r"\b(?:overrides?|supersedes?|replaces?|outranks?|cancels?|voids?)\s+(?:your|the|any|all)\s+"
    r"(?:\w+\s+)?(?:system\s+prompt|instructions|rules|guidelines|directives)\b",
    r"^\W*(?:system|assistant|developer|admin(?:istrator)?)\s*(?:message|prompt)?\s*:\s"
    r"|<\|?(?:system|im_start)\|?>|\[(?:system|inst)\]",
    r"\b(?:prior|previous|earlier|above|old|original)\s+(?:instructions|ones|rules|prompts?)\s+"
    r"(?:are|is)\s+(?:void|cancel+ed|obsolete|revoked|invalid|no\s+longer\s+valid|superseded)",
    r"\b(?:follow|obey|keep\s+following)\s+only\s+(?:this|these|the\s+following)\b",
    r"\byou\s+are\s+now\s+(?:an?\s+(?:unrestricted|unfiltered|jailbroken|different|new)|dan\b"
    r"|in\s+\w+\s+mode|free\s+(?:of|from)|no\s+longer\s+bound|unrestricted|jailbroken)",
    r"\b(?:act|behave|pretend)\s+(?:as\s+if\s+you\s+(?:are|were|have)\s+|as\s+|to\s+be\s+)"
    r"(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|dan\b|root\b|admin\b|developer\s+mode"
    r"|no\s+(?:rules|restrictions))",
    r"\b(?:new|updated|real|true)\s+system\s+prompt\b|\byour\s+(?:new|real|true)\s+instructions"
    r"\b|\bdeveloper\s+mode\s+(?:enabled|on)\b",
    r"\b(?:reveal|print|show|repeat|output|leak|disclose)\s+(?:your|the)\s+(?:system\s+prompt"
    r"|hidden\s+instructions|initial\s+instructions|instructions\s+above)\b",
    r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shall\s+not|mustn'?t)\s+"
    r"(?:tell|inform|mention|disclose|admit|alert|notify|reveal"
    r"|report)\s+(?:(?:this|these|it|that|them|any|the|your|\w+ing)\s+){0,3}(?:\w+\s+)?"
    r"(?:to\s+)?(?:the\s+)?user\b(?!'s)|\bwithout\s+(?:telling|asking|informing|notifying"
    r"|alerting)\s+the"
    r"\s+user\b|\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:hidden\s+)?from\s+the"
    r"\s+user\b",
    r"\b(?:these|this|the\s+following)\s+(?:instructions?|rules?)\s+(?:take|takes|have|has)\s+"
    r"(?:precedence|priority)|\bhighest\s+priority\b[^\n]{0,30}\binstructions?\b"
    r"|\btakes?\s+precedence\s+over\s+(?:any|all|the)\s+(?:other\s+|previous\s+|system\s+)?"
    r"(?:instructions|rules|prompts?|guidelines)",
    r"\b(?:the\s+)?(?:user|system|admin\w*|owner|maintainers?)\s+(?:has|have)?\s*(?:already\s+)?"
    r"(?:authori[sz]ed|approved|allowed|permitted)\s+you\s+to\b",
    r"\b(?:without|ignoring|with\s+no)\s+(?:any\s+)?(?:safety|ethical|content|security)\s+"
    r"(?:checks|filters|restrictions|guidelines|guardrails|limits|rules)\b",
]
_OVERRIDES += [
    r"\b(?:everything|anything|all|the\s+(?:text|instructions|rules))\s+(?:written\s+)?above"
    r"\s+(?:this\s+(?:line|point)\s+)?(?:is|as)\s+(?:outdated|obsolete|void|invalid|superseded"
    r"|irrelevant|fake|a\s+decoy|cancel+ed)",
    r"\b(?:obey|follow)\s+only\s+what\s+follows\b",
    r"\b(?:when|if|even\s+if|whenever)\s+the\s+user\s+(?:asks|tells|says|wants)\s+(?:you\s+)?"
    r"(?:to\s+)?(?:stop|wait|cancel|pause|not\s+to)\b[^.]{0,40}?\b(?:keep\s+going|continue"
    r"|proceed|ignore)",
    r"\b(?:the\s+)?(?:usual\s+|normal\s+|standard\s+|safety\s+)?(?:limits|rules|restrictions"
    r"|guidelines|policies|guardrails)\s+(?:do\s+not|don'?t|no\s+longer)\s+apply\s+(?:to\s+you"
    r"|here|anymore|now)",
    r"\b(?:hide|conceal|withhold|suppress)\s+(?:[^\s.;:!?]+\s+){0,4}?from\s+the\s+user\b",
]
_OVERRIDES += [
    r"\b(?:earlier|previous|prior|above|other|existing|safety|original|those)\s+(?:\w+\s+)?"
    r"(?:notes|instructions|rules|guidelines|guidance|policies|constraints|warnings)\s+"
    r"(?:no\s+longer|don'?t|do\s+not)\s+(?:matter|apply|count|hold)",
    r"\b(?:say|claim|tell\s+\w+|pretend|answer)\s+(?:that\s+)?you\s+(?:never|did\s+not|didn'?t"
    r"|have\s+not|haven'?t)\s+(?:ran|run|executed?|did|do|touched?|changed?|accessed?|read|saw"
    r"|see|sent|send|deleted?|pushed?)",
    r"\b(?:developer|admin|system|god|debug|maintenance|operator)\s+(?:override|mode)\s*:"
    r"|\bwithout\s+(?:ever\s+)?refusing\b",
    r"\b(?:even\s+if|even\s+when|regardless\s+of\s+whether)\s+(?:it|this|that)\s+"
    r"(?:contradicts|conflicts\s+with|overrides|goes\s+against)\s+(?:the\s+|your\s+)?(?:user"
    r"|system|instructions)",
]
_OVERRIDE = re.compile("|".join(_OVERRIDES), re.I)

_PRINCIPAL = rf"(?:the\s+|your\s+)?(?:{PERSON}|system)\b"
# Who the agent answers to, by role: text from elsewhere given the user's authority ("treat
# issue comments as if the developer had typed them"), the user told one thing while the
# agent does another ("say it is paused but let it finish"), the instructions kept from them.
_AUTHORITY = re.compile(
    r"\b(?:treat|consider|regard|handle|follow|obey|accept)\w*\s+(?:\S+\s+){0,6}?(?:instructions?"
    r"|commands?|requests?|directions|orders|text|comments?|messages?|content|replies)\s+"
    r"(?:\S+\s+){0,6}?as\s+(?:if\s+)?(?:(?:they|it)\s+(?:came|come|were|was|had\s+been)\s+)?"
    rf"(?:(?:coming|sent|typed|written|given)\s+)?(?:from\s+|by\s+)?{_PRINCIPAL}"
    r"|(?:\b(?:anything|everything|whatever|text|comments?|content|messages?|lines?"
    r"|notes?)\b[^.;!?]{0,60}?"
    r"|^\W*)\b(?:is|are|counts?\s+as)\s+(?:an?\s+)?(?:orders?|instructions?|commands?"
    r"|directives?)\s+from\s+"
    r"(?:the\s+|your\s+|a\s+)?[\w-]+"
    r"|\b(?:counts?|is|are|should\s+be\s+(?:treated|read|taken"
    r"|followed))\s+as\s+(?:if\s+it\s+were\s+)?"
    rf"{_PRINCIPAL}'?s?\s+(?:own\s+)?(?:instructions?|requests?|commands?|words|orders)", re.I)
_DECEIVE = re.compile(
    r"\b(?:say|tell\s+(?:them|him|her|the\s+\w+)|report|claim|reply|answer|confirm)\s+(?:that\s+)?"
    r"(?:it|this|that|they|the\s+[\w-]+|you)\s+(?:is|was|are|were|has\s+been|have\s+been|'s|had)"
    r"\s+(?:\w+\s+){0,3}?(?:but|while|yet|though)\s+(?:actually\s+|still\s+|secretly\s+|quietly\s+"
    r"|in\s+fact\s+)?(?:let|keep|continue|finish|proceed|do|run|carry|go\s+on|leave)\b", re.I)
# Another source ranked above the user, or this text made the only one.
_RANKED = re.compile(
    r"\b(?:follow|obey|prefer|trust|do)\w*\s+(?:\S+\s+){0,4}?(?:instead\s+of|over|rather\s+than"
    rf"|above)\s+(?:what\s+)?{_PRINCIPAL}"
    r"|\byour\s+(?:only|sole)\s+(?:source|set)\s+of\s+(?:rules|instructions|guidance|truth)", re.I)
# An answer fixed before the question ("if anyone asks, say the plan showed no changes").
_SCRIPTED = re.compile(
    r"\b(?:if|when|whenever)\s+(?:anyone|someone|somebody|anybody|asked|they|the\s+[\w-]+|you\s+are"
    r"\s+asked)(?:\s+(?:asks?|asked|questions?\s+it|wants\s+to\s+know"
    r"|checks?))?\b[^.;!?]{0,40}?,?\s*"
    r"(?:say|tell\s+(?:them|him|her|the\s+\w+)|answer|reply|claim)\s+(?:that\s+)?(?:the|it|you"
    r"|there"
    r"|nothing|no|everything|all|they)\b", re.I)
# Someone's consent claimed for everything the agent will do.
_CLAIMED = re.compile(
    r"\b(?:has|have)\s+(?:already\s+|now\s+)?(?:authori[sz]ed|approved|pre-?approved|cleared"
    r"|signed\s+off\s+on|okayed|allowed)\s+(?:every|all|any|each)\s+(?:\w+\s+){0,2}?(?:you"
    r"|of\s+your)\b",
    re.I)
# The user's refusal read as consent ("when the writer says no, treat it as a yes").
_NO_AS_YES = re.compile(r"\b(?:treat|take|read|count|interpret)\w*\s+(?:it|that|this|their\s+\w+"
                        r"|a\s+\w+"
                        r"|the\s+\w+|any\s+\w+)\s+as\s+(?:a\s+)?(?:yes|approval|consent|go-?ahead"
                        r"|permission|agreement)\b", re.I)
# A selection passed off as the whole ("report the best seed only and say it's the average").
_PASSED_OFF = re.compile(r"\bonly\b[^.;!?]{0,30}?\b(?:and|but)\s+(?:say|claim|call|label|present"
                         r"|describe"
                         r"|report)\w*\s+(?:that\s+)?(?:it|this|them|they)(?:'s|\s+is|\s+are"
                         r"|\s+as|\s+was)?\s+"
                         r"(?:the|an?|all)\b", re.I)
_KEPT_FROM = re.compile(
    r"\b(?:keep|hold)\s+(?:this|these|the\s+following)\s+(?:\w+\s+)?(?:section|skill"
    r"|instructions?|rules?|notes?|text|part|block|prompt)\s+(?:a\s+)?(?:secret|hidden|confidential"
    r"|private)\b", re.I)


def override_hits(line: str) -> Iterator[tuple[str, str, int]]:
    for m in _OVERRIDE.finditer(line):
        yield OVERRIDE, "agent instructions", m.start()
    for sentence, at in sentences(line):
        for pattern in (_AUTHORITY, _DECEIVE, _KEPT_FROM, _RANKED, _SCRIPTED, _CLAIMED,
                        _NO_AS_YES, _PASSED_OFF):
            for m in pattern.finditer(sentence):
                if not negated(sentence[: m.start()]):
                    yield OVERRIDE, "agent instructions", at + m.start()
