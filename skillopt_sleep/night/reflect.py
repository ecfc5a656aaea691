"""Reflect: the optimizer reads minibatches of failures and successes and proposes edits.

Failures and successes are shown in separate minibatches (default 8), with the current
skill, the rejected-edit buffer and the meta notes. A reply that is not valid edit JSON is
retried once, then recorded as a reflection failure; it is never silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from skillopt_sleep.errors import AuthError, BudgetExceeded, HandoffPending, ModelError
from skillopt_sleep.models.base import LLM
from skillopt_sleep.night.prompts import json_replies, reflect_messages
from skillopt_sleep.records import Edit, EditOp, GateDecision, Rollout, Task


@dataclass
class Reflection:
    edits: list[Edit] = field(default_factory=list)
    calls: int = 0
    failures: list[str] = field(default_factory=list)


def parse_edits(text: str, origin: str, shown: frozenset[str] | None = None) -> list[Edit]:
    """Edits from an optimizer reply; raise ``ValueError`` saying why it is unusable.

    An edit's ``support`` is the number of distinct tasks it cites; with ``shown`` (the ids
    of the minibatch the optimizer saw) only those count, so a made-up id adds nothing."""
    for data in json_replies(text):
        if isinstance(data, dict) and isinstance(data.get("edits"), list):
            found = (_edit(item, origin, shown) for item in data["edits"])
            return [e for e in found if e is not None]
    raise ValueError(f"reply is not edit JSON: {text[:120]!r}")


def _edit(item: object, origin: str, shown: frozenset[str] | None = None) -> Edit | None:
    if not isinstance(item, dict):
        return None
    op = str(item.get("op", ""))
    if op not in {o.value for o in EditOp}:
        return None
    cited = item.get("tasks")
    ids = {str(t) for t in cited} if isinstance(cited, list) else set()
    if shown is not None:
        ids &= shown
    support = max(1, len(ids))
    return Edit(
        op=op,
        text=str(item.get("text", "") or ""),
        anchor=str(item.get("anchor", "") or ""),
        rationale=str(item.get("rationale", "") or "")[:300],
        support=support,
        origin="success" if origin == "success" else "failure",
        cited=tuple(sorted(ids)),
    )


def _ask(
    optimizer: LLM,
    messages: list,
    origin: str,
    seed: int,
    out: Reflection,
    shown: frozenset[str] | None = None,
) -> None:
    for attempt in range(2):
        out.calls += 1
        try:
            reply = optimizer.complete(
                messages, max_tokens=1500, temperature=0.7, seed=seed * 2 + attempt
            )
            out.edits.extend(parse_edits(reply.text, origin, shown))
            return
        except (AuthError, BudgetExceeded, HandoffPending):
            raise
        except (ModelError, ValueError) as exc:
            if attempt == 1:
                out.failures.append(f"{origin} minibatch: {exc}")


def reflect(
    optimizer: LLM,
    *,
    skill: str,
    scored: Sequence[tuple[Task, Rollout]],
    rejected: Sequence[GateDecision],
    notes: Sequence[str],
    batch_size: int,
    max_edits: int,
    max_success_batches: int,
    seed: int,
) -> Reflection:
    """Edits proposed from this step's train rollouts."""
    out = Reflection()
    failures = [(t, r) for t, r in scored if r.usable and r.score.hard < 1.0]
    successes = [(t, r) for t, r in scored if r.usable and r.score.hard >= 1.0]
    batches = [
        ("failures", failures[i : i + batch_size]) for i in range(0, len(failures), batch_size)
    ]
    batches += [
        ("successes", successes[i : i + batch_size]) for i in range(0, len(successes), batch_size)
    ][:max_success_batches]
    waiting: HandoffPending | None = None
    for n, (mode, items) in enumerate(batches):
        messages = reflect_messages(
            mode=mode, skill=skill, items=items, rejected=rejected, notes=notes, max_edits=max_edits
        )
        origin = "failure" if mode == "failures" else "success"
        shown = frozenset(t.id for t, _ in items)
        try:
            _ask(optimizer, messages, origin, seed * 100 + n, out, shown)
        except HandoffPending as exc:
            waiting = exc  # the other minibatches' prompts are written in the same run
    if waiting is not None:
        raise waiting
    return out


def reflect_slow(
    optimizer: LLM,
    *,
    skill: str,
    persistent: Sequence[tuple[Task, Rollout]],
    comparison: str,
    rejected: Sequence[GateDecision],
    notes: Sequence[str],
    batch_size: int,
    seed: int,
) -> Reflection:
    """At most two entries of durable guidance for the slow region, from what still fails."""
    messages = reflect_messages(
        mode="slow",
        skill=skill,
        items=persistent[:batch_size],
        rejected=rejected,
        notes=notes,
        max_edits=2,
        comparison=comparison,
    )
    out = Reflection()
    shown = frozenset(t.id for t, _ in persistent[:batch_size])
    _ask(optimizer, messages, "failure", seed, out, shown)
    out.edits = [
        Edit(op="append", text=e.text, rationale=e.rationale, origin="slow",
             region="slow", support=e.support, cited=e.cited)
        for e in out.edits[:2]
        if e.text
    ]
    return out
