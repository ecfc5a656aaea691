"""Prose read by role for ``bypass_check``: consent taken for granted, a check turned off
everywhere or to make a failure pass, a check's verdict overruled or its result claimed.
The parts of a sentence are read as in ``roles``: the act, its object, its polarity, its
scope."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.roles import BYPASS, Hit, negated, sentences

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
    r"^[\W_]*(?:(?:always|just|then|now|also|please|simply|first)\s+)?(?:run|execute|proceed"
    r"|continue"
    r"|go|apply|make|do|deploy|push|merge|install|delete|remove|commit|publish|release|act|use"
    r"|accept|approve|perform|edit|change|write|modify|overwrite|force|ship|fix|retry|answer"
    r"|respond|reply|configure|set|let|allow|feel|never|don'?t|you|treat|consider|skip|take"
    r"|carry|move|keep|start|launch|call|invoke|send|upload|post|rm|drop|rewrite|reset)\b", re.I)
_PURPOSE_OF = re.compile(r"^\s+(?:to|for|about|on)\s+(?!(?:do|act|run|execute|use|make)\s+"
                         r"(?:anything|everything|any|all|every|changes|commands)|anything"
                         r"|everything"
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
_PURPOSE = re.compile(r"\bso\s+(?:that\s+)?(?:the\s+|your\s+"
                      r"|our\s+)?(?:[\w-]+)\s+(?:\w+\s+)?(?:pass\w*"
                      r"|ships?|deploys?|merges?|goes\s+out|gets\s+(?:out|merged|released)"
                      r"|goes\s+through"
                      r"|succeeds?|stops?\s+failing|never\s+fails|(?:can'?t|cannot|won'?t"
                      r"|doesn'?t)\s+fail|(?:is|goes|turns?|stays?)\s+green|works|lands)"
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
    r"|\b\w*(?:strict|check|verif|enforce|lint|tests?|type[_-]?check|secur|ssl|tls|csrf|auth\w*"
    r"|protect"
    r"|sandbox|permission|cert|sign|safe|valid)\w*[\"']?\s*[:=]\s*[\"']?(?:false|0|off|no|none)\b"
    r"|\bfail[_-]?under[\"']?\s*[:=]\s*0\b"
    # an allow-list opened to everything
    r"|\b\w*(?:allowed|trusted|whitelist|allowlist"
    r"|origins)\w*[\"']?\s*[:=]\s*\[?\s*[\"']\*[\"']", re.I)


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
            r"|flags?|warns?|reports?\s+(?:\w+\s+)?(?:errors?|problems?|failures?)|is\s+red"
            r"|breaks?)\b")
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
_UNFAILING = re.compile(r"\bso\s+(?:that\s+)?(?:it|they|the\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:never"
                        r"|can'?t"
                        r"|cannot|won'?t|doesn'?t|will\s+not)\s+(?:fails?|block\w*|breaks?"
                        r"|complains?"
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
