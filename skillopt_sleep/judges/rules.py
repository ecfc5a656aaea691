"""Rule-check judge: every check must pass for ``hard``; the passing fraction is ``soft``.

Checks are ``{"op": name, ...}`` dicts. Specs are validated when a task is loaded
(``validate_checks``), so a typo in an op or a bad regex is an error at load time, never
a silently failing check during a night.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skillopt_sleep.errors import JudgeError
from skillopt_sleep.records import Score, Task, ToolCall

if TYPE_CHECKING:
    from skillopt_sleep.models.base import LLM
    from skillopt_sleep.records import JudgeSpec

Check = dict[str, Any]

_REFUSAL = re.compile(
    r"\b(I can(?:no|')t help|I(?: a|')m (?:not able|unable) to|I won'?t be able to|as an AI)\b",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _sections(text: str) -> dict[str, str]:
    """Markdown sections by lower-cased heading title, each with its body text."""
    found: dict[str, str] = {}
    matches = list(_HEADING.finditer(text))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        found.setdefault(match.group(2).strip().lower(), text[match.end() : end])
    return found


def _section_present(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return str(c["section"]).lower() in _sections(text)


def _section_contains(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    body = _sections(text).get(str(c["section"]).lower())
    return body is not None and str(c["text"]).lower() in body.lower()


def _regex(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    flags = re.IGNORECASE if c.get("ignore_case", True) else 0
    return re.search(str(c["pattern"]), text, flags | re.MULTILINE) is not None


def _contains(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return str(c["text"]).lower() in text.lower()


def _not_contains(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return not _contains(text, c, calls)


def _min_chars(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return len(text.strip()) >= int(c["n"])


def _max_chars(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return len(text.strip()) <= int(c["n"])


def _no_refusal(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return bool(text.strip()) and _REFUSAL.search(text) is None


def _tool_called(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return any(call.name == c["tool"] for call in calls)


def _tool_not_called(text: str, c: Check, calls: Sequence[ToolCall]) -> bool:
    return not _tool_called(text, c, calls)


OPS: dict[str, tuple[Callable[[str, Check, Sequence[ToolCall]], bool], tuple[str, ...]]] = {
    "section_present": (_section_present, ("section",)),
    "section_contains": (_section_contains, ("section", "text")),
    "regex": (_regex, ("pattern",)),
    "contains": (_contains, ("text",)),
    "not_contains": (_not_contains, ("text",)),
    "min_chars": (_min_chars, ("n",)),
    "max_chars": (_max_chars, ("n",)),
    "no_refusal": (_no_refusal, ()),
    "tool_called": (_tool_called, ("tool",)),
    "tool_not_called": (_tool_not_called, ("tool",)),
}


def validate_checks(checks: Sequence[Check]) -> list[Check]:
    """Return ``checks`` if every one is well-formed; raise ``JudgeError`` naming the fault."""
    if not checks:
        raise JudgeError("a rules judge needs at least one check")
    for i, check in enumerate(checks):
        if not isinstance(check, dict) or "op" not in check:
            raise JudgeError(f"check {i} is not an object with an 'op': {check!r}")
        op = check["op"]
        if op not in OPS:
            raise JudgeError(f"check {i}: unknown op {op!r}; known: {', '.join(sorted(OPS))}")
        for arg in OPS[op][1]:
            if arg not in check:
                raise JudgeError(f"check {i} ({op}): missing argument {arg!r}")
        if op == "regex":
            try:
                re.compile(str(check["pattern"]))
            except re.error as exc:
                raise JudgeError(f"check {i}: bad regex {check['pattern']!r}: {exc}") from exc
        if op in ("min_chars", "max_chars") and not str(check["n"]).isdigit():
            raise JudgeError(f"check {i} ({op}): n must be a non-negative integer")
    return list(checks)


def run_check(check: Check, response: str, tool_calls: Sequence[ToolCall] = ()) -> bool:
    return OPS[check["op"]][0](response, check, tool_calls)


class RulesJudge:
    """Judge for ``JudgeSpec(kind="rules")``; names the failed checks in the rationale."""

    def score(self, task: Task, response: str, tool_calls: Sequence[ToolCall] = ()) -> Score:
        checks = task.judge.checks
        if not checks:
            return Score(failed=True, rationale="no checks in judge spec")
        failed = [c for c in checks if not run_check(c, response, tool_calls)]
        passed = len(checks) - len(failed)
        rationale = "all checks passed" if not failed else "failed: " + "; ".join(
            describe(c) for c in failed
        )
        return Score(hard=float(not failed), soft=passed / len(checks), rationale=rationale)


def describe(check: Check) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in check.items() if k not in ("op", "why"))
    return f"{check['op']}({args})"


def make(spec: JudgeSpec, grader: LLM | None = None) -> RulesJudge:
    """The ``rules`` judge (``skillopt_sleep.tables.JUDGES``): its checks validated first."""
    validate_checks(spec.checks)
    return RulesJudge()
