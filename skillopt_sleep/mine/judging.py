"""Judge specs for mined tasks: validation, and the LLM miner's proposals.

Nothing a model proposes is used unchecked: unknown ops are dropped, bad regexes and
checks missing an argument are rejected, and a judge made only of shape checks (length,
a heading, no refusal) is flagged ``shape-only``, since any on-topic answer passes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.errors import JudgeError, ModelError
from skillopt_sleep.mine.corrections import Check
from skillopt_sleep.models.base import LLM, tag

OPS: dict[str, tuple[str, ...]] = {
    "section_present": ("section",),
    "section_contains": ("section", "text"),
    "regex": ("pattern",),
    "contains": ("text",),
    "not_contains": ("text",),
    "min_chars": ("n",),
    "max_chars": ("n",),
    "no_refusal": (),
    "tool_called": ("tool",),
    "tool_not_called": ("tool",),
}
SHAPE_OPS = frozenset({"section_present", "min_chars", "max_chars", "no_refusal"})


def check_problem(check: Any) -> str | None:
    """Why ``check`` cannot be used, or None when it is well-formed."""
    if not isinstance(check, dict) or not isinstance(check.get("op"), str):
        return f"not a check object: {check!r}"[:200]
    op = check["op"]
    if op not in OPS:
        return f"unknown op {op!r}"
    missing = [arg for arg in OPS[op] if check.get(arg) in (None, "")]
    if missing:
        return f"{op}: missing {', '.join(missing)}"
    if op == "regex":
        try:
            re.compile(str(check["pattern"]))
        except re.error as exc:
            return f"regex {check['pattern']!r}: {exc}"
    if op in ("min_chars", "max_chars") and not str(check["n"]).isdigit():
        return f"{op}: n must be a non-negative integer"
    return _shared_validator_problem(check)


def _shared_validator_problem(check: Check) -> str | None:
    # The judges package is the authority on what a night can run; ask it too.
    try:
        from skillopt_sleep.judges.rules import validate_checks
    except ImportError:
        return None
    try:
        validate_checks([check])
    except JudgeError as exc:
        return str(exc)
    return None


def valid_checks(checks: Sequence[Any]) -> tuple[list[Check], list[str]]:
    """The usable checks and one note per rejected one."""
    kept: list[Check] = []
    rejected: list[str] = []
    for check in checks:
        problem = check_problem(check)
        if problem is None:
            kept.append(dict(check))
        else:
            rejected.append(problem)
    return kept, rejected


def shape_only(checks: Sequence[Check]) -> bool:
    return bool(checks) and all(c["op"] in SHAPE_OPS for c in checks)


@dataclass
class Proposal:
    """What the LLM miner proposed for one family, after validation."""

    checks: list[Check] = field(default_factory=list)
    rubric: str = ""
    paraphrases: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    error: str = ""


_PROMPT = """You turn a developer's recurring request into a way to check an agent's answer.

Request (as they usually phrase it): {intent}
Other phrasings: {phrasings}
What they said when an answer was wrong: {corrections}
Failure signals seen: {signals}

Reply with one JSON object and nothing else:
{{"checks": [{{"op": ..., ...}}], "rubric": "...", "paraphrases": ["..."]}}
Check ops and their arguments: {ops}.
Give checks only for what the developer evidently wants; leave "rubric" empty when the
checks say it all; give up to 3 paraphrases of the request."""


def _prompt(intent: str, phrasings: Sequence[str], corrections: Sequence[str],
            signals: Sequence[str]) -> str:
    ops = "; ".join(f"{op}({', '.join(args)})" for op, args in OPS.items())
    return tag(_PROMPT.format(
        intent=intent, phrasings=json.dumps(list(phrasings)[:8]),
        corrections=json.dumps(list(corrections)[:8]) if corrections else "none",
        signals=", ".join(sorted(set(signals))) or "none", ops=ops,
    ))


def _json_object(text: str) -> dict[str, Any]:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the reply")
    data = json.loads(text[start : end + 1])
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    return data


def propose(llm: LLM, intent: str, phrasings: Sequence[str], corrections: Sequence[str],
            signals: Sequence[str], seed: int = 0) -> Proposal:
    """Ask ``llm`` for checks, a rubric and paraphrases. Never raises for a bad reply or a
    failed call: the proposal then carries ``error`` and nothing else."""
    messages = [{"role": "user", "content": _prompt(intent, phrasings, corrections, signals)}]
    try:
        reply = llm.complete(messages, max_tokens=800, temperature=0.0, seed=seed)
        data = _json_object(reply.text)
    except (ModelError, ValueError) as exc:
        return Proposal(error=f"miner model: {exc}"[:300])
    raw_checks = data.get("checks") if isinstance(data.get("checks"), list) else []
    checks, rejected = valid_checks(raw_checks or [])
    rubric = str(data.get("rubric") or "") if isinstance(data.get("rubric"), str) else ""
    raw = data.get("paraphrases")
    paraphrases = [p.strip() for p in raw if isinstance(p, str) and p.strip()][:3] \
        if isinstance(raw, list) else []
    for check in checks:
        check.setdefault("why", "proposed by the miner model")
    return Proposal(checks, rubric.strip(), paraphrases, rejected)
