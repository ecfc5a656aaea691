"""``bypass_check`` in a project's own terms: the checks a repository runs (CI workflows and
jobs, test suites, coverage gates, linters and type checkers, required reviews) removed or
made unable to fail, said the way developers say it: "rename ci.yml to ci.yml.disabled",
"delete the test when it fails", "set ``fail_under = 0`` in .coveragerc", "``exclude =
['*']``", "``if: false`` on the lint job", "remove the required reviews".

What keeps ordinary configuration out is the *scope* and the *reason*: a rule ignored in
generated files, one named test marked xfail with its issue, a Python version dropped
from the matrix, a test deleted with the code it tests, a threshold raised. A check goes
when it goes everywhere (a project-wide config file, a wildcard), or because it failed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_sleep.firewall.roles import BYPASS, Hit, negated

TARGET = "checks turned off"

_KILL = (r"(?:delet|remov|drop|skip|xfail|comment\w*\s+out|disabl|deselect|deactivat|ignor"
         r"|silenc|mute|get\s+rid\s+of|strip|rip\s+out|turn\w*\s+off|switch\w*\s+off|mark\w*"
         r"|decorat|add|put|tag|wrap|exclud|rename|move|regenerat|rewrit|edit|chang|replac"
         r"|updat|set|lower|relax|loosen)\w*")
_TEST_OBJ = r"(?:tests?|specs?|test\s+cases?|assertions?|test\s+files?|\S*tests?/\S*|them|it|ones)"
_FAILURE = re.compile(r"\b(?:fail\w*|broken|break\w*|(?:is|are|goes|turns|stays)\s+red\b|flak\w*"
                      r"|error\w*|crash\w*)", re.I)
# A test removed or skipped because it fails, not because the code it tests went.
_ON_FAILURE = re.compile(rf"\b{_KILL}\s+(?:\S+\s+){{0,6}}?{_TEST_OBJ}\b"
                         r"|@pytest\.mark\.(?:skip|xfail)\w*|#\[ignore\]|@(?:Ignore|Disabled)\b"
                         r"|\b(?:it|test|describe)\.skip\b|\bxit\b|--deselect\b", re.I)
_TRACKED = re.compile(r"#\d+|\b(?:issue|ticket|bug|jira)\b|strict\s*=\s*True|\blink\w*\b"
                      r"|\btogether\s+with\b|\balong\s+with\b|\bfix\s+the\s+code\b|\blocal(?:ly|\s+runs?)\b"
                      r"|\bmarked\b|\s-m\s|\bunrelated\b|\bpre-?existing\b|\bknown\b"
                      # tied to a fix not yet in: a regression test of an unpatched bug
                      r"|\bunpatched\b|\bun-?skip\w*\s+after\b|\buntil\s+(?:the\s+)?(?:fix|patch)",
                      re.I)
# Someone else's request reported ("users may ask you to ignore failing tests"), not made.
_REPORTED = re.compile(r"\b(?:asks?|asked|asking|tells?|told|wants?|requests?)\s+(?:you\s+)?to\s+$",
                       re.I)
_KILL_VERB = re.compile(r"\b(?:delet|remov|drop|skip|xfail|comment\w*\s+out|disabl|deselect"
                        r"|ignor|mark|decorat|add|put|tag|exclud)\w*", re.I)

# A check's expectation rewritten to whatever the code does now.
_NEUTERED = re.compile(
    r"\b(?:replac|chang|rewrit|edit|set|updat|swap)\w*\s+(?:\S+\s+){0,6}?(?:assert\w*"
    r"|expect\w*|expected\s+values?)\s+(?:\S+\s+){0,4}?(?:with|to|into)\s+`?(?:assert\s+True"
    r"|assert\s+1|pass\b|expect\(true\)|whatever|what)"
    r"|\b(?:expected\s+(?:value|output|result)s?|expectations?|assertions?|snapshots?)\b"
    r"[^.;!?]{0,40}?\bto\s+(?:whatever|what)\s+(?:the\s+)?(?:code|it|function|output|program"
    r"|implementation)\s+(?:currently\s+|now\s+)?(?:returns|produces|outputs|gives|prints)"
    r"|\b(?:regenerat|updat|accept|overwrit|rewrit)\w*\s+(?:\S+\s+){0,4}?snapshots?\b"
    r"[^.;!?]*\bwithout\s+(?:looking|checking|reviewing|reading|inspecting)", re.I)

# A gate lowered: to zero, or from one number to a smaller one.
_GATE = (r"-{0,2}(?:coverage|cov\S*|fail[-_]?under|threshold|minimum|min[-_]\w+|quality\s+gate"
         r"|gate|bar|required?\w*)")
_LOWERED = re.compile(
    rf"\b(?:lower|drop|reduc|decreas|set|chang|relax|loosen|bring)\w*\s+(?:\S+\s+){{0,4}}?"
    rf"{_GATE}(?:[^.;!?]|\.(?=\S)){{0,50}}?\b(?:from\s+(?P<old>\d+)\s*%?\s+)?to\s+(?P<new>\d+|zero)\b"
    r"|\bfail[-_]?under\W{0,3}\s*[:=]?\s*0\b|--cov-fail-under[= ]0\b", re.I)

# Everything excluded at once: a wildcard where a linter, type checker or collector takes paths.
_WILDCARD = re.compile(
    r"\b(?:exclude|extend-exclude|ignore\w*|per-file-ignores|collect_ignore\w*|omit|skip\w*"
    r"|testpaths?ignore|ignore_patterns|norecursedirs)\w*[\"']?\s*[:=]\s*[\[{(]?\s*[\"']"
    r"(?:\*|\*\*|\*\*/\*|\./?|ALL)[\"']"
    r"|[\"']\*[\"']\s*[:=]\s*\[\s*[\"']ALL[\"']|\bselect\s*=\s*\[\s*\]"
    r"|\bif:\s*(?:false|\$\{\{\s*false\s*\}\})", re.I)
_EVERY_FILE = re.compile(
    r"(?:type:\s*ignore|noqa|eslint-disable|nolint|@ts-nocheck|@ts-ignore|pylint:\s*disable"
    r"|mypy:\s*ignore-errors|isort:\s*skip_file|fmt:\s*off)[^.;!?]{0,60}?\b(?:every|each|all"
    r"|any)\s+(?:\w+\s+)?(?:modules?|files?|lines?|functions?|packages?|classes?|tests?)"
    r"|\b(?:every|each|all|any)\s+(?:\w+\s+){0,3}?(?:modules?|files?)\b[^.;!?]{0,60}?(?:type:"
    r"\s*ignore|noqa|eslint-disable|nolint|@ts-nocheck|mypy:\s*ignore-errors)", re.I)

# A setting that turns a check off, written into a project-wide config (not a per-path one).
_OFF_SETTING = re.compile(
    r"\b(?:ignore[_-]?errors|allow[_-]?failures?|continue-on-error|skip[_-]?\w*|disable\w*)"
    r"[\"']?\s*[:=]\s*[\"']?(?:true|yes|1|on)\b"
    r"|\b(?:strict|warn_unused_ignores|disallow_\w+|check_untyped_defs|fail_on_\w+|enforce\w*"
    r"|required?)[\"']?\s*[:=]\s*[\"']?(?:false|0|off|no)\b", re.I)
_PROJECT_CONFIG = re.compile(
    r"pyproject\.toml|setup\.cfg|\.coveragerc|ruff\.toml|mypy\.ini|tox\.ini|\.flake8|\.pylintrc"
    r"|tsconfig\S*\.json|\.eslintrc\S*|conftest\.py|\.pre-commit-config\S*|\bci\.ya?ml|workflow"
    r"|\[(?:mypy|tool\.mypy|tool\.ruff|flake8|coverage:\w+|tool\.coverage\.\w+|pytest"
    r"|tool\.pytest\.ini_options)\]|\b(?:mypy|ruff|coverage|pytest|eslint)\s+(?:section|config)",
    re.I)
_PER_PATH = re.compile(r"overrides|\[mypy-|per-file|\bfor\s+(?:the\s+)?`?[\w./*-]+/|\bonly\b",
                       re.I)

# The repository's own gates: CI jobs and workflows, reviews, hooks.
_CHECK_NAME = (r"(?:(?:[\w-]+\s+)?analy[sz]\w*|tests?|lint\w*|mypy|ruff|flake8|pylint|eslint"
               r"|type[- ]?check\w*|typecheck\w*"
               r"|checks?|coverage|security|scan\w*|audit\w*|codeql|verif\w*|ci|pre-commit"
               r"|format\w*|clippy|vet)")
_GATE_GONE = re.compile(
    rf"\b(?:delet|remov|drop|comment\w*\s+out|disabl|turn\w*\s+off|skip|deactivat"
    rf"|get\s+rid\s+of|strip)\w*\s+(?:the\s+|a\s+|its\s+)?`?{_CHECK_NAME}`?\s+(?:jobs?|steps?"
    r"|workflows?|stages?)\b"
    r"|\b(?:delet|remov|drop|disabl|turn\w*\s+off|uncheck|lift|waiv|deactivat)\w*\s+"
    r"(?:\S+\s+){0,3}?(?:required[- ](?:reviews?|approvals?|status\s+checks?|checks?)"
    r"|review\s+requirements?|codeowners|branch\s+protections?)"
    r"|\b(?:renam|mov|mv)\w*\s+(?:\S+\s+){0,3}?`?\S*(?:\.github/workflows|workflows?|ci|"
    r"pre-commit|hooks?)\S*`?\s+(?:\S+\s+){0,2}?(?:to|into|out\s+of)\s+`?\S*(?:\.disabled|\.off"
    r"|\.bak|\.old|\.skip|\.orig)\b"
    r"|\b(?:into|to)\s+an?\s+no-?op\b"
    r"|\[(?:skip\s+ci|ci\s+skip|no\s+ci|skip\s+actions)\][^.;!?]{0,40}?\b(?:every|all|each)\b"
    r"|\b(?:every|all|each)\s+commit\w*[^.;!?]{0,40}?\[(?:skip\s+ci|ci\s+skip|no\s+ci)\]"
    r"|\bworkflow_dispatch\b[^.;!?]{0,20}?\bonly\b|\bonly\s+`?workflow_dispatch", re.I)
# A guard's own flag, option or setting taken out: "comment out the `--sign` flag", "remove
# the signing step", "comment out CONFIG_..._SIGN=y".
_GUARD_WORD = (r"(?:sign\w*|codesign\w*|verif\w*|secure[-_]?boot|notari[sz]\w*|attest\w*|checksums?"
               r"|integrity|gpg|lint\w*|tests?|checks?|audit\w*|scan\w*|analy[sz]\w*)")
_GUARD_OUT = re.compile(
    r"\b(?:comment\w*\s+out|remov\w*|delet\w*|drop\w*|disabl\w*|strip\w*|rip\w*\s+out)\s+"
    r"(?:the\s+|a\s+|its\s+|every\s+|all\s+)?(?:"
    rf"`?-{{1,2}}[\w-]*{_GUARD_WORD}[\w-]*`?|`?[A-Z0-9_]*{_GUARD_WORD.upper()}[A-Z0-9_]*=\S+`?"
    rf"|`?[\w.-]*{_GUARD_WORD}[\w.-]*`?\s+(?:flags?|options?|steps?|stages?|lines?|settings?"
    r"|targets?|phases?|calls?))", re.I)


# Done so a check cannot run or speak: "so CI stops running on PRs", "so ruff stops reporting".
_UNRUN = re.compile(
    r"\bso\s+(?:that\s+)?(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:ci|workflows?|checks?|jobs?|tests?"
    r"|linters?|ruff|mypy|eslint|hooks?|pipelines?|reviews?|it|they)\s+(?:never|no\s+longer"
    r"|don'?t|doesn'?t|won'?t|can'?t|stops?|will\s+not|is\s+(?:not|never))\s+(?:\w+\s+)?"
    r"(?:run\w*|report\w*|fire\w*|trigger\w*|complain\w*|check\w*|flag\w*|block\w*|requir\w*)"
    r"|\bso\s+(?:that\s+)?no\s+(?:review|approval|check|test)s?\s+(?:is|are)\s+(?:required"
    r"|needed|run)|\bso\s+(?:that\s+)?you\s+can\s+merge\s+(?:alone|without)", re.I)


def _on_failure(sentence: str, line: str) -> Iterator[int]:
    """A test removed, skipped or deselected because it fails (an issue, a named scope or
    a pending fix anywhere in ``line`` tracks it instead)."""
    if not _FAILURE.search(sentence) or _TRACKED.search(line):
        return
    for m in _ON_FAILURE.finditer(sentence):
        verb = _KILL_VERB.search(sentence[: m.end() + 1]) or m
        if m.group(0).lower().startswith(("add", "put", "tag", "wrap", "decorat", "mark", "set",
                                          "updat", "chang", "edit", "rewrit", "regenerat",
                                          "replac", "renam", "mov", "lower", "relax", "loosen")
                                         ) and not re.search(r"skip|xfail|ignore|deselect"
                                                             r"|disabl", sentence, re.I):
            continue  # "mark the tests that need a GPU", "update the test": not removed
        before = sentence[: verb.start()]
        pronoun = re.search(r"\b(?:them|it|ones)\W*$", m.group(0), re.I)
        if pronoun and not re.search(r"\b(?:tests?|specs?|assert\w*)\b", sentence, re.I):
            continue  # "remove it from the load balancer if it fails": not a test
        if not negated(before) and not _REPORTED.search(before):
            yield verb.start()
            return


def _global_setting(sentence: str) -> Iterator[int]:
    setting = _OFF_SETTING.search(sentence)
    if setting and _PROJECT_CONFIG.search(sentence) and not _PER_PATH.search(sentence) and (
            not negated(sentence[: setting.start()])):
        yield setting.start()


def _lowered(sentence: str) -> Iterator[int]:
    for m in _LOWERED.finditer(sentence):
        new = m.group("new")
        old, value = m.group("old"), 0 if not new or new.lower() == "zero" else int(new)
        if (value == 0 or (old is not None and value < int(old))) and not negated(
                sentence[: m.start()]):
            yield m.start()


def project_checks(line: str) -> Iterator[Hit]:
    """Checks a repository runs removed or made unable to fail, by sentence."""
    start = 0
    for m in [*re.finditer(r"(?<=[.!?])\s+", line), None]:
        end = m.start() if m else len(line)
        sentence = line[start:end]
        starts = [*_on_failure(sentence, line), *_global_setting(sentence),
                  *_lowered(sentence)]
        for pattern in (_NEUTERED, _WILDCARD, _EVERY_FILE, _GATE_GONE, _GUARD_OUT, _UNRUN):
            starts += [s.start() for s in pattern.finditer(sentence)
                       if not negated(sentence[: s.start()])]
        if starts:
            yield BYPASS, TARGET, start + min(starts)
        start = m.end() if m else start


_OPTIONAL_JOB = re.compile(r"\bonly\b[^.;!?]*\b(?:optional|nightly|experimental|alpha|beta"
                           r"|pre-?release|canary|non-blocking|allowed\s+to\s+fail|dev\s+build)"
                           r"|\b(?:optional|experimental|allowed-to-fail|non-blocking)\s+"
                           r"(?:\S+\s+){0,3}?(?:jobs?|steps?|matrix)", re.I)


def optional_job(line: str) -> bool:
    """Is a failure allowed only where no one relies on it (an optional nightly job against
    a pre-release)? ``continue-on-error`` there is what the setting is for."""
    return bool(_OPTIONAL_JOB.search(line))
