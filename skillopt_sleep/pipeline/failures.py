"""A run's failed model calls, per skill and role, and the record of a night that failed.

The run's ledger holds every call with its role, skill and error; from it each skill's night
gets ``failures_by_role`` and, above ``FAILURE_RATE_WARNING``, a warning. When the guard stops
the run (``RoleUnavailable``), every skill of the night is recorded ``failed`` with the one
reason, the skill in progress included, so no face can mistake an empty night for a real one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from skillopt_sleep import records
from skillopt_sleep.errors import RoleUnavailable
from skillopt_sleep.records import utcnow

if TYPE_CHECKING:  # status reads failures too, and must not load the model stack
    from skillopt_sleep.models.meter import Ledger
    from skillopt_sleep.records import NightResult

__all__ = ["annotate", "failed_result", "mark_failed", "reason", "role_failures",
           "run_warnings"]

ROLE_ORDER = ("target", "optimizer", "judge", "miner")
NOT_STAGED = "not staged, the night failed: "


def role_failures(ledger: Ledger, skill: str | None) -> dict[str, dict[str, int]]:
    """``{role: {"calls": n, "failed": k}}`` for the calls of ``skill`` (None: every call)."""
    found: dict[str, dict[str, int]] = {}
    for call in ledger.calls:
        if skill is not None and call.skill != skill:
            continue
        row = found.setdefault(call.role, {"calls": 0, "failed": 0})
        row["calls"] += 1
        row["failed"] += bool(call.error)
    order = {role: i for i, role in enumerate(ROLE_ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))


def _warnings(rows: dict[str, dict[str, int]]) -> list[str]:
    from skillopt_sleep.models.guard import failure_warnings

    return failure_warnings([(role, r["calls"], r["failed"]) for role, r in rows.items()])


def annotate(result: NightResult, ledger: Ledger) -> NightResult:
    """Give ``result`` its skill's failed calls per role and the warnings they call for (none
    for a failed night: its one reason says more than a rate would)."""
    result.failures_by_role = role_failures(ledger, result.skill)
    # Imported here: the plan's sizes read the night's prompts, which a failure note needs not.
    from skillopt_sleep.pipeline.plan_sizes import replay_answer_tokens

    result.replay_answer_tokens = replay_answer_tokens([
        c.output_tokens for c in ledger.calls if c.skill == result.skill
        and c.role == "target" and not c.cached and not c.error])
    if result.failed and not result.model_calls:  # stopped inside its night: count from the run
        _spent(result, ledger)
    if not result.failed:
        result.warnings = [*result.warnings, *_warnings(result.failures_by_role)]
    return result


def _spent(result: NightResult, ledger: Ledger) -> None:
    """The calls and dollars of a night the failure cut short, as a finished night counts them
    (target and optimizer; the judge's are in ``failures_by_role``)."""
    for role in ("target", "optimizer"):
        mine = [c for c in ledger.calls if c.skill == result.skill and c.role == role]
        result.calls_by_role[role] = len(mine)
        result.cost_by_role[role] = sum(c.cost_usd for c in mine)
    result.model_calls = sum(result.calls_by_role.values())
    result.cost_usd = sum(result.cost_by_role.values())


def run_warnings(ledger: Ledger, nights: Sequence[NightResult]) -> list[str]:
    """Every skill's warnings (named), then those of calls outside any skill (the miner)."""
    found = [f"{r.skill}: {w}" for r in nights for w in r.warnings]
    if any(r.failed for r in nights):
        return found
    outside = role_failures(ledger, "")
    return found + [f"mining: {w}" for w in _warnings(outside)]


def failed_result(night_id: str, skill: str, project: str, skill_text: str,
                  started: datetime, exc: RoleUnavailable) -> NightResult:
    """The record of the skill whose night the failure stopped: no scores, the skill as it was."""
    return records.NightResult(night_id=night_id, skill=skill, project=project, started_at=started,
                       ended_at=utcnow(), skill_before=skill_text, skill_after=skill_text,
                       failed=str(exc))


def mark_failed(nights: Sequence[NightResult], exc: RoleUnavailable) -> None:
    """Skills trained earlier in a night that failed: kept in the record, never staged."""
    for r in nights:
        if not r.failed:
            r.failed = f"{NOT_STAGED}{exc}"


def reason(failed: str) -> str:
    """The night's own reason, from any of its skills' ``failed`` texts."""
    return failed.removeprefix(NOT_STAGED)
