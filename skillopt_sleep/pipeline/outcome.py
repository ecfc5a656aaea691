"""What one run of the pipeline did, as ``run``, the daemon, the MCP server and the proof
read it (``RunOutcome.to_dict`` is ``run --json``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skillopt_sleep.pipeline import handoff

if TYPE_CHECKING:  # the night's records: not loaded by a run that trains nothing
    from skillopt_sleep.records import NightResult

__all__ = ["RunOutcome"]


@dataclass
class RunOutcome:
    project: str
    night_id: str = ""
    dry_run: bool = False
    staged: str = ""
    """The proposal's folder; empty when nothing was staged (a dry run, a failed night)."""
    report: str = ""
    """The night's ``report.html`` (a failed night has one, and no proposal)."""
    nights: list[NightResult] = field(default_factory=list)
    adopted: dict[str, int] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    failed: str = ""
    """Why the night failed (a role's model could not answer); empty when it did not."""
    warnings: list[str] = field(default_factory=list)
    plan: dict[str, Any] | None = None
    """A dry run's plan (``pipeline.plan.plan``)."""
    skipped_skills: list[dict[str, Any]] = field(default_factory=list)
    """Loaded skills no night trains: ``{"skill", "reason", "families", "routed_to"}``."""
    waiting: handoff.Waiting | None = None
    """The night stopped for hand-off answers (``status`` ``waiting_for_answers``)."""
    skipped: str = ""
    """Why no night ran because nothing changed since the last one (``pipeline.skip``)."""

    @property
    def ok(self) -> bool:
        """The night ran to its end: not failed, not stopped, not waiting for answers."""
        return (not self.failed and self.waiting is None
                and not any(n.stopped for n in self.nights))

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "night_id": self.night_id,
            "dry_run": self.dry_run,
            "staged": self.staged,
            "report": self.report,
            "adopted": self.adopted,
            "counts": self.counts,
            "message": self.message,
            "ok": self.ok,
            "failed": self.failed,
            "warnings": self.warnings,
            "skipped_skills": self.skipped_skills,
            "skipped": self.skipped,
            "skills": [
                {
                    "skill": n.skill,
                    "changed": n.changed,
                    "accepted": len(n.accepted),
                    # A failed or abstained night measured no score: None, never a 0.
                    **{k: None if n.failed or n.abstained else getattr(n, k) for k in
                       ("baseline_val", "after_val", "baseline_test", "after_test")},
                    "abstained": n.abstained,
                    "stopped": n.stopped,
                    "failed": n.failed,
                    "failures_by_role": n.failures_by_role,
                    "warnings": n.warnings,
                    "cost_usd": n.cost_usd,
                    "model_calls": n.model_calls,
                }
                for n in self.nights
            ],
        } | ({"plan": self.plan} if self.plan is not None else {}) | self._waiting()

    def _waiting(self) -> dict[str, Any]:
        if self.waiting is None:
            return {}
        return {"status": "waiting_for_answers", "pending": self.waiting.pending,
                "handoff": self.waiting.to_dict()}
