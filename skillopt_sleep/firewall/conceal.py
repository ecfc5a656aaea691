"""Concealment: the user kept from knowing what the agent did. A class of
``override_instructions``, read by role like the rest of ``roles``:

- *traces erased*: the record a person would check afterwards (shell history, an audit
  log, the reflog) destroyed, or any log, output or history removed *so that* no one sees;
- *a purpose of not being seen*: "… so nobody can tell", "so it doesn't show up", "so the
  team isn't alerted", whatever the act before it;
- *the agent's own doing left untold*: a negated telling ("don't bring up", "make no
  mention of", "no need to report") or a leaving-out ("leave it out of the report") whose
  object is something the agent did and whose channel or audience is named;
- *a false report*: a failure swallowed or output thrown away, then "say it went fine".

A domain object is not concealment: "don't mention ticket numbers in commit messages",
"delete log files older than 30 days", "rewrite history only on your own branches".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.roles import OVERRIDE, PERSON, Hit, negated

TARGET = "agent instructions"

# Records a person reads to learn what was done on a machine: erasing one has no other use.
_RECORD = (r"(?:(?:shell|bash|zsh|command|terminal)\s+history|\S*\.(?:bash|zsh|sh|python)_history"
           r"|\$?HISTFILE|audit\s+(?:logs?|trail|records?|entries|lines)|\S*audit\S*\.log|reflog"
           r"|\S*/var/log/auth\S*|login\s+records?|wtmp|lastlog)")
_RECORD_RE = re.compile(_RECORD, re.I)
_ERASE = (r"(?:clear|delete|remove|wipe|erase|truncate|purge|shred|unset|empty|scrub|rewrite"
          r"|expire|overwrite|squash(?:\s+away)?|zero|disable|turn\s+off|mute|drop|edit"
          r"|clean\s+up|get\s+rid\s+of|redirect|pipe|send|throw\s+away|discard|amend"
          r"|set|change|force-push|garbage-collect)\w*")
_ERASED = re.compile(rf"\b{_ERASE}\s+(?:(?!so\b)[^.;!?\s]+\s+){{0,8}}?{_RECORD}", re.I)
# Said as a purpose: done so that no one sees, notices, knows, finds or can tell.
_SEEN = (r"(?:see\w*|notic\w*|know\w*|find\s+out|found\s+out|tell|spot\w*|learn\w*|realis\w*"
         r"|realiz\w*|trace\w*|track\w*|recover\w*|review\w*|detect\w*|aware|alerted|notified"
         r"|informed|suspect\w*|audit\w*)")
_UNSEEN = re.compile(
    r"\bso\s+(?:that\s+)?(?:(?:nobody|no\s+one|no-one|none\s+of\s+\w+)\s+(?:\w+\s+){0,4}?"
    rf"{_SEEN}"
    rf"|(?:the\s+|your\s+|our\s+)?(?:{PERSON}|anyone|anybody|others|people|[\w-]+\s+(?:team"
    r"|engineer|lead|reviewers?))\s+(?:\w+\s+){0,2}?(?:never|can'?t|cannot|won'?t|doesn'?t"
    rf"|don'?t|isn'?t|aren'?t|will\s+not|does\s+not|do\s+not|is\s+not|are\s+not)\s+(?:be\s+)?"
    rf"(?:\w+\s+)?{_SEEN}"
    r"|(?:it|they|this|that|the\s+[\w-]+(?:\s+[\w-]+)?|nothing|no\s+\w+)\s+(?:\w+\s+)?"
    r"(?:(?:doesn'?t|don'?t|won'?t|never|does\s+not|will\s+not|can'?t|cannot)\s+(?:\w+\s+)?"
    r"(?:show\s+up|appear|get\s+(?:logged|recorded|noticed|seen)|look\s+like|turn\s+up"
    r"|be\s+(?:seen|noticed|recovered|traced|found|recorded|logged))"
    r"|(?:is|are|gets?)\s+(?:ever\s+)?(?:recorded|logged|kept|left|gone|lost|visible)"
    r"|(?:is|are)\s+(?:no\s+longer\s+)?(?:gone|hidden|invisible|untraceable)"
    r"|(?:isn'?t|is\s+not|aren'?t|are\s+not|won'?t\s+be|will\s+not\s+be|is\s+never)\s+"
    r"(?:\w+\s+)?(?:visible|seen|noticed|recorded|logged|traceable|found|there|shown))"
    r"|there\s+(?:is|'s|will\s+be)\s+no\s+(?:trace|record|sign|evidence|log))"
    r"|\bwithout\s+(?:leaving\s+)?(?:a|any)\s+(?:trace|record)\b", re.I)

_UNTOLD_VERB = (r"(?:bring\s+up|mention|report|surfac|list|narrat|disclos|reveal"
                r"|talk\s+about|say\s+anything\s+about|bring\s+(?:it|this|that|them)\s+up"
                r"|call\s+out|include)")
_NEG = (r"(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|no\s+need\s+to"
        r"|(?:don'?t|do\s+not|doesn'?t|does\s+not)\s+need\s+to|needn'?t|avoid"
        r"|there\s+is\s+no\s+need\s+to)")
_UNTOLD = re.compile(
    rf"\b{_NEG}\s+(?:\w+\s+)?{_UNTOLD_VERB}\w*\b"
    rf"|\bwithout\s+{_UNTOLD_VERB}\w*ing\b"
    r"|\bmake\s+no\s+mention\b"
    r"|\b(?:leave|keep|drop|omit|strip|cut|exclude)\w*\s+(?:(?!out\b)[^.;!?\s]+\s+){0,6}?"
    r"(?:out\s+of|from)\s+(?:the\s+|your\s+|any\s+|this\s+)?(?:\w+\s+)?(?:summary|report"
    r"|answer|reply|pr|pull\s+request|chat|transcript|changelog|description|notes|update"
    r"|message|recap|output|status)"
    r"|\b(?:keep|hold)\s+(?:(?!to\b)\S+\s+){1,5}?to\s+yourself\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+(?:anyone|anybody|them"
    rf"|(?:the\s+|your\s+|a\s+)?{PERSON})\b", re.I)
_PERSON_UNAWARE = re.compile(
    rf"\b(?:the\s+|your\s+|a\s+)?(?:{PERSON}|team\s+lead|reviewers?|anyone|nobody|no\s+one)\s+"
    r"(?:must\s+not|mustn'?t|should\s+not|shouldn'?t|must\s+never|should\s+never|is\s+not\s+to"
    r"|doesn'?t\s+need\s+to|does\s+not\s+need\s+to|don'?t\s+need\s+to|needs?\s+to\s+never"
    r"|should)\s+(?:ever\s+)?(?:find\s+out|know|learn|notice|hear|see|be\s+told|be\s+informed"
    r"|discover|realis\w*|realiz\w*)\b", re.I)
# What goes untold is the agent's doing: a change, an action, a session, a failure.
_DONE = re.compile(
    r"\b(?:chang\w*|migrations?|patch\w*|cleanup|clean-up|fix\w*|updat\w*|rotation|commands?"
    r"|sessions?|calls?|edits?|deploy\w*|releases?|rollouts?|actions?|steps?|operations?"
    r"|files?\s+you|what\s+you|(?:you|we)\s+(?:\w+\s+)?\w+(?:ed|t|ne)\b|fail\w*|errors?"
    r"|copied|ran|run|did|touched|modified|deleted|uploaded|pushed|accessed|workarounds?"
    r"|hotfix\w*|restarts?|scripts?|queries|backfills?|writes?|transfers?|uploads?)\b", re.I)
_PRONOUN = re.compile(r"\b(?:it|this|that|them|these|those|either)\b", re.I)
_HEARD = re.compile(rf"\b(?:{PERSON}|anyone|anybody|summary|report|answer|reply|pr\b"
                    r"|pull\s+request|chat|transcript|changelog|description|notes|recap|status"
                    r"|update|message|channel|standup)\b", re.I)
# A failure thrown away, then the outcome reported as fine.
_FALSE_REPORT = re.compile(
    r"\b(?:say|tell(?:\s+\w+){0,2}?|report|claim|answer|reply|confirm)\s+(?:that\s+)?"
    r"(?:everything|all|it|this|the\s+\w+|things)\s+(?:\w+\s+)?(?:went|was|were|is|are|ran)"
    r"\s+(?:\w+\s+)?(?:fine|ok|okay|well|smoothly|successful\w*|a\s+no-?op|green|clean"
    r"|as\s+planned|nothing)\b", re.I)
_THROWN = re.compile(r"\b(?:swallow|suppress|ignore|hide|bury|discard)\w*\s+(?:the\s+|any\s+"
                     r"|all\s+)?(?:errors?|failures?|exceptions?)|/dev/null|\bfail\w*", re.I)
_ONLY_GOOD = re.compile(
    r"\bonly\s+(?:show|report|mention|tell|give|list)\s+(?:\w+\s+){0,3}?(?:tests?\s+that"
    r"\s+passed|passing|successes|what\s+(?:worked|passed|succeeded)|green)", re.I)


# The agent's doing buried in something else: "hide the migration inside a refactor commit".
_BURIED = re.compile(r"\b(?:hide|conceal|bury|disguise|smuggle|tuck|sneak)\w*\s+(?:\S+\s+){0,4}?"
                     r"(?:inside|in|among|within|behind|under)\s+(?:an?\s+|the\s+)?(?:\w+\s+)?"
                     r"(?:unrelated|other|bigger|larger|different|innocuous|routine|refactor\w*"
                     r"|cleanup|formatting)\b", re.I)
# Shell that destroys the record of a session: history off or erased, logs emptied.
ERASED_SHELL = re.compile(
    r"\bhistory\s+-[cw]\b|\bunset\s+HISTFILE\b|\bHIST(?:FILE|SIZE|FILESIZE)=(?:/dev/null|0)\b"
    # a project's own ``*.log`` is build output; the system's logs and histories are records
    r"|\bset\s+\+o\s+history\b|\b(?:rm|shred|truncate|unlink)\b[^|;&\n]*(?:_history|audit\S*"
    r"|/var/log/\S+)|>\s*(?:~/)?\S*(?:_history|/var/log/\S+)"
    r"|\breflog\s+expire\b[^|;&\n]*--expire=(?:now|all)", re.I)


_EDITORIAL = re.compile(r"\b(?:unless|until|except\s+(?:when|where|if)|only\s+(?:when|if))\b",
                        re.I)


def _untold(sentence: str, context: str) -> Iterator[int]:
    for m in _UNTOLD.finditer(sentence):
        lead = m.group(0).lower()
        if not lead.startswith(("do", "never", "must", "should", "no", "there", "without",
                                "avoid", "make", "need")) and negated(sentence[: m.start()]):
            continue  # "never leave failures out of the report" asks for the opposite
        rest = sentence[m.end():]
        if _EDITORIAL.search(rest):
            continue  # "… out of the changelog until it ships": a choice of when, not whether
        obj = m.group(0) + rest[:80]
        done = _DONE.search(obj) or ((_PRONOUN.search(obj) or "without" in lead) and _DONE.search(
            context + sentence[: m.start()]))
        if done and (_HEARD.search(sentence) or "yourself" in lead or "without" in lead):
            yield m.start()


def _clauses(line: str) -> Iterator[tuple[str, int]]:
    # Every sentence, imperatives the role reader would take for a noun phrase included
    # ("Squash away the commit that adds …"): a purpose of not being seen is never a
    # description of a kind of thing.
    start = 0
    for m in [*re.finditer(r"(?<=[.!?;])\s+|:\s+", line), None]:
        end = m.start() if m else len(line)
        yield line[start:end], start
        start = m.end() if m else start


def concealed(line: str) -> Iterator[Hit]:
    """Concealment from the user, sentence by sentence (``line`` is prose, code spans
    unwrapped)."""
    before = ""
    for sentence, at in _clauses(line):
        starts: list[int] = []
        for m in _ERASED.finditer(sentence):
            if not negated(sentence[: m.start()]):
                starts.append(m.start())
        for m in _UNSEEN.finditer(sentence):
            if not negated(sentence[: m.start()]) and not re.search(
                    r"\b(?:only|locally|your\s+own)\b", sentence[: m.start()], re.I):
                starts.append(0)
        starts += list(_untold(sentence, before))
        starts += [m.start() for m in _PERSON_UNAWARE.finditer(sentence)]
        starts += [m.start() for m in _BURIED.finditer(sentence)
                   if _DONE.search(m.group(0)) and not negated(sentence[: m.start()])]
        starts += [m.start() for m in _ONLY_GOOD.finditer(sentence)
                   if not negated(sentence[: m.start()])]
        report = _FALSE_REPORT.search(sentence)
        if report and _THROWN.search(sentence[: report.start()]) and not negated(
                sentence[: report.start()]):
            starts.append(report.start())
        if starts:
            yield OVERRIDE, TARGET, at + min(starts)
        before = sentence
