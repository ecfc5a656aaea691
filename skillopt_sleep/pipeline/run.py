"""The nightly pipeline: harvest what is new, mine tasks, run a night per skill, stage, adopt.

``run_once`` is what ``skillopt-sleep run``, the daemon and the MCP server all call. It holds
the state-dir lock for its whole length, so two nights never interleave. It harvests first
(local and incremental), and a night with nothing new (``pipeline.skip``) stops there: no
model is checked, no SDK imported, no endpoint contacted. Before it mines or replays
anything it checks every configured model (``models.build.preflight``: specs, prices, CLIs
installed and logged in, endpoints answering), so a night that cannot run fails in seconds.
A dry run harvests and mines into a throwaway copy of the state, makes no model call and
no request, and returns the plan (``pipeline.plan``); with nothing new, a plan of 0 calls.

Every model call of a run goes through one ledger with a ``CallGuard``: when a role cannot
answer (``RoleUnavailable``), the night stops, each of its skills is recorded ``failed`` with
the reason, no proposal is staged (the night's folder holds its report alone) and the
outcome says why, for ``run`` to exit non-zero.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest_new
from skillopt_sleep.config import Settings
from skillopt_sleep.errors import ConfigError, HandoffPending, RoleUnavailable
from skillopt_sleep.harvest.base import project_of
from skillopt_sleep.pipeline import failures, handoff, skip
from skillopt_sleep.pipeline.outcome import RunOutcome
from skillopt_sleep.publish import roots as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.publish.recovery import recover as recover_journal
from skillopt_sleep.records import sha256_text, utcnow

# What a night needs once it knows it has work (the models, the judges, the plan, the
# miner's store, the skill documents' YAML) is imported where it is used: a night with
# nothing new stops before them (``pipeline.skip``), and should cost little more than
# ``status`` does.
if TYPE_CHECKING:
    from skillopt_sleep.models.base import LLM
    from skillopt_sleep.models.build import RoleCheck
    from skillopt_sleep.models.meter import Ledger
    from skillopt_sleep.pipeline.fit import Fitted
    from skillopt_sleep.pipeline.skill_night import SkillNights
    from skillopt_sleep.records import Task


def night_id(
    project: str, when: datetime | None = None, taken: Callable[[str], bool] = lambda _i: False
) -> str:
    """``YYYYMMDD-HHMMSS-<8 hex of the project key>``; a taken id moves to the next second."""
    moment = (when or utcnow()).replace(microsecond=0)
    while True:
        candidate = f"{moment:%Y%m%d-%H%M%S}-{sha256_text(project)[:8]}"
        if not taken(candidate):
            return candidate
        moment += timedelta(seconds=1)


def skill_roots(settings: Settings, project: Path) -> list[Path]:
    if settings.skill_roots:
        return [Path(r).expanduser() for r in settings.skill_roots]
    roots = adoption.user_roots()
    return roots + adoption.project_roots(project) if settings.project_roots else roots


@contextmanager
def _state(dry_run: bool) -> Iterator[Path]:
    """The real state dir, or for a dry run a throwaway copy of it (nothing real is written)."""
    state = paths.state_dir()
    if not dry_run:
        yield paths.ensure(state)
        return
    import shutil  # a dry run's copy: a real night needs neither
    import tempfile

    with tempfile.TemporaryDirectory(prefix="skillopt-dry-") as tmp:
        copy = Path(tmp) / "state"
        if state.is_dir():
            shutil.copytree(state, copy, ignore=shutil.ignore_patterns("nights", "*.lock"))
        yield paths.ensure(copy)


def run_once(
    project: Path | None,
    *,
    settings: Settings,
    dry_run: bool = False,
    adopt: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> RunOutcome:
    """One night for ``project``: see the module docstring. ``adopt`` overrides the policy."""
    policy = adopt or settings.adopt
    if policy not in ("review", "auto"):
        raise ConfigError(f"adopt must be review or auto, not {policy!r}")
    where = Path(project_of(str(project or Path.cwd())))
    outcome = RunOutcome(project=str(where), dry_run=dry_run)
    say = progress or (lambda _m: None)
    adoption.check_readable(skill_roots(settings, where))
    with night_lock(paths.ensure(paths.state_dir())), _state(dry_run) as state:
        archive = Archive(paths.archive_path(state))
        try:
            archive.verify()  # a night writes to it: a damaged archive is refused first
            _Run(archive, state, where, settings, outcome, say).go(policy)
        finally:
            archive.close()
    return outcome


@dataclass
class _Run:
    """One pass of the pipeline, holding what every step needs."""

    archive: Archive
    state: Path
    project: Path
    settings: Settings
    outcome: RunOutcome
    say: Callable[[str], None]
    checks: list[RoleCheck] = field(default_factory=list)
    """What the pre-flight found per role (prices, base URLs, problems)."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """What tonight is made of (``pipeline.skip.fingerprint``); empty for a dry run."""

    @cached_property
    def ledger(self) -> Ledger:
        """Every model call of the run (miner, target, optimizer, judge) against one set of
        caps, watched by a guard that stops the run when a role cannot answer."""
        from skillopt_sleep.models.guard import CallGuard
        from skillopt_sleep.models.meter import Ledger

        return Ledger(CallGuard())

    def go(self, policy: str) -> None:
        nights_root = paths.staging_dir(self.state)
        staging.clean_orphans(nights_root)
        # A write-back a crash interrupted is finished or undone before the night reads
        # the live skills (the lock is held). A dry run's state is a throwaway copy whose
        # journal must never reach the real skill dirs.
        if not self.outcome.dry_run and (done := recover_journal(self.archive)) is not None:
            self.say(done.line)
            self.outcome.counts["recovered"] = done.as_dict()
        by_skill: dict[str, list[Task]] = {}
        try:
            by_skill, roots = self._resume() or self.tasks()
            if self.outcome.dry_run and self.outcome.skipped:
                # The night would stop here: nothing to plan, no backend to load.
                self.outcome.message = (f"{self.outcome.skipped}; dry run: the night would "
                                        "make 0 calls")
                return
            if self.outcome.dry_run:
                self.outcome.plan = self._fit(by_skill, roots).plan
                self.outcome.message = ("dry run: no model called, nothing staged, "
                                        "no state written")
                return
            if not by_skill:
                self.outcome.message = self.outcome.skipped or skip.nothing_to_train(
                    self.archive, self.settings, str(self.project))
                self._leave_fingerprint(roots)
                return
            if not self.outcome.night_id:
                self._name_night(nights_root)
            live = self.train(by_skill, roots)
        except RoleUnavailable as exc:
            if not self.outcome.dry_run:
                handoff.clear(str(self.project))
            self._fail(nights_root, exc)
            return
        except HandoffPending:
            self._wait(by_skill)
            return
        if not self.outcome.dry_run:
            handoff.clear(str(self.project))
        self._stage_and_adopt(nights_root, live, roots, policy)
        self._leave_fingerprint(roots)

    def _stage_and_adopt(self, nights_root: Path, live: dict[str, dict[str, str | None]],
                         roots: list[Path], policy: str) -> None:
        """Stage the trained nights, record them, and adopt the changed ones under ``auto``."""
        self.outcome.warnings = failures.run_warnings(self.ledger, self.outcome.nights)
        # Staged first, recorded second: a night in the archive always has its directory.
        out = self.outcome
        staged = staging.stage_night(self.archive, nights_root, out.night_id, out.project,
                                     out.nights, live, out.warnings)
        self.outcome.staged = str(staged)
        self.outcome.report = str(staged / "report.html")
        for result in self.outcome.nights:
            self.archive.record_night(result, "staged" if result.changed else
                                      "abstained" if result.abstained else "unchanged")
        if policy != "auto":
            return
        for result in self.outcome.nights:
            if result.changed:
                # Here: the firewall it checks with parses shell (bashlex builds its
                # tables on import, ~0.3 s), which a night that adopts nothing never needs.
                from skillopt_sleep.publish.adopt import adopt_skill

                taken = adopt_skill(self.archive, staged, result.skill, roots)
                self.outcome.adopted[result.skill] = taken.version
                self.outcome.warnings += [f"{result.skill} not written to {path}: {why}"
                                          for path, why in taken.skipped.items()]
                self.archive.record_night(result, "adopted")

    def _leave_fingerprint(self, roots: list[Path]) -> None:
        """A completed night leaves its fingerprint, so an unchanged tomorrow is skipped."""
        if self.inputs and self.outcome.ok and not self.outcome.skipped:
            skip.remember(self.archive, str(self.project), self.inputs["sessions"],
                          self.settings, roots, self.outcome.night_id)

    def _resume(self) -> tuple[dict[str, list[Task]], list[Path]] | None:
        """The tasks of a night waiting for hand-off answers, without harvest or mining."""
        if self.outcome.dry_run:
            return None
        found = handoff.load(str(self.project), self.settings)
        if found is None:
            return None
        self.outcome.night_id, by_skill = found
        self._check_models()
        self.outcome.counts["resumed"] = self.outcome.night_id
        self.say(f"resuming night {self.outcome.night_id} with its "
                 f"{sum(map(len, by_skill.values()))} tasks (no harvest, no mining)")
        return by_skill, skill_roots(self.settings, self.project)

    def _wait(self, by_skill: dict[str, list[Task]]) -> None:
        """Stopped for hand-off answers: keep the night's tasks so the next run resumes it."""
        out = self.outcome
        if by_skill and out.night_id and not out.dry_run:
            handoff.save(str(self.project), out.night_id, by_skill)
        out.nights = []  # nothing of a waiting night is recorded or staged
        out.waiting = handoff.waiting(out.night_id if by_skill else "")
        out.message = out.waiting.message

    def _name_night(self, nights_root: Path) -> None:
        known = {r.night_id for _, r in self.archive.nights(str(self.project), limit=20)}
        self.outcome.night_id = night_id(
            str(self.project), taken=lambda i: i in known or (nights_root / i).exists()
        )

    def _fail(self, nights_root: Path, exc: RoleUnavailable) -> None:
        """Record every skill of tonight ``failed``; stage its report, never a proposal."""
        out = self.outcome
        if not out.night_id:
            self._name_night(nights_root)
        if not out.nights:  # stopped before any skill's night (the miner): one row says so
            out.nights.append(failures.failed_result(out.night_id, "", out.project, "",
                                                     utcnow(), exc))
        failures.mark_failed(out.nights, exc)
        out.failed = str(exc)
        out.warnings = failures.run_warnings(self.ledger, out.nights)
        out.counts["calls"] = len(self.ledger.calls)
        if out.dry_run:
            out.message = "dry run: the night failed; nothing staged, no state written"
            return
        staged = staging.stage_night(self.archive, nights_root, out.night_id, out.project,
                                     out.nights, {}, out.warnings, failed=out.failed)
        out.report = str(staged / "report.html")
        for result in out.nights:
            self.archive.record_night(result, "failed")
        out.message = "the night failed; nothing was staged or adopted"

    def tasks(self) -> tuple[dict[str, list[Task]], list[Path]]:
        """Harvest what is new, mine, and group the replayable tasks by routed skill."""
        self.say("harvesting new sessions")
        self.outcome.counts["harvest"] = harvest_new(self.archive, self.state, self.settings)
        roots = skill_roots(self.settings, self.project)
        self.inputs, self.outcome.skipped = skip.check(
            self.archive, self.settings, str(self.project), roots, dry_run=self.outcome.dry_run)
        if self.outcome.skipped:
            return {}, roots
        self._check_models()  # before the miner, which may be a model itself
        self.say("mining tasks")
        from skillopt_sleep.archive.mining import MiningStore
        from skillopt_sleep.mine.collect import collect_tasks  # numpy, faiss: not when skipped
        from skillopt_sleep.night import task_budget
        from skillopt_sleep.pipeline.managed import group_by_skill

        # A dry run calls no model, the LLM miner included: judges come from corrections alone.
        mining = dataclasses.replace(self.settings, miner="") if self.outcome.dry_run \
            else self.settings
        found, mined = collect_tasks(
            self.archive, self.state, mining, str(self.project), roots, self.ledger
        )
        self.outcome.skipped_skills = mined.pop("skipped_skills", [])
        self.outcome.counts["mining"] = mined
        budget = task_budget.TaskBudget(self.settings.max_tasks_per_skill,
                                        self.settings.max_tasks_per_night)
        chosen, self.outcome.counts["task_budget"] = task_budget.apply(
            group_by_skill(found), budget,
            MiningStore(self.archive).family_recency(str(self.project)))
        return chosen, roots

    def _check_models(self) -> None:
        """Every configured role checked, once there is work for them: a night with nothing
        new never imports an SDK or contacts an endpoint. A dry run reaches no server: its
        plan lists what the offline checks found instead."""
        self.say("checking the models")
        from skillopt_sleep.models.build import check_roles, preflight

        self.checks = (check_roles(self.settings, reach=False) if self.outcome.dry_run
                       else preflight(self.settings))

    def train(
        self, by_skill: dict[str, list[Task]], roots: list[Path]
    ) -> dict[str, dict[str, str | None]]:
        """A night per skill under one ledger; returns the live hashes each night read."""
        from skillopt_sleep.judges.build import build_judge_for
        from skillopt_sleep.models.build import build_models
        from skillopt_sleep.pipeline.cluster import replay_executor
        from skillopt_sleep.pipeline.managed import new_descriptions
        from skillopt_sleep.pipeline.skill_night import SkillNights  # scipy, the judges

        ledger = self.ledger
        models = build_models(self.settings, ledger)
        judge_for = build_judge_for(self.settings, ledger)
        fitted = self._fit(by_skill, roots)
        self._estimate(fitted)
        with replay_executor(self.settings.cluster) as executor:
            nights = SkillNights(self.archive, fitted.settings, str(self.project),
                                 self.outcome.night_id, by_skill, roots, judge_for,
                                 self.say, new_descriptions(by_skill), executor)
            live = self._nights(nights, models, by_skill, roots)
        # The trigger check's calls, and those it had already (earlier runs, other skills).
        self.outcome.counts["routing"] = {"asked": nights.answers.asked,
                                          "reused": nights.answers.reused}
        self.outcome.counts["calls"] = len(ledger.calls)
        self.outcome.counts["cost_by_role"] = ledger.cost_by_role()
        return live

    def _nights(self, nights: SkillNights, models: tuple[LLM, LLM],
                by_skill: dict[str, list[Task]], roots: list[Path],
                ) -> dict[str, dict[str, str | None]]:
        """Each skill's night in turn; returns the live hashes each night read."""
        from skillopt_sleep.pipeline.managed import first_description
        from skillopt_sleep.skilldoc import new_skill

        ledger = self.ledger
        live: dict[str, dict[str, str | None]] = {}
        for skill, skill_tasks in sorted(by_skill.items()):
            self.say(f"night for skill {skill} ({len(skill_tasks)} tasks)")
            text, live[skill] = adoption.read_live(roots, skill)
            if text is None:
                text = new_skill(skill, first_description(skill))
            with ledger.skill_scope(skill):
                started = utcnow()
                try:
                    result = nights.run(skill, text, models, self._seed(skill))
                except RoleUnavailable as exc:
                    nights.keep()
                    self.outcome.nights.append(failures.annotate(failures.failed_result(
                        self.outcome.night_id, skill, str(self.project), text, started, exc),
                        ledger))
                    raise
                self.outcome.nights.append(failures.annotate(result, ledger))
        nights.keep()
        return live

    def _fit(self, by_skill: dict[str, list[Task]], roots: list[Path]) -> Fitted:
        """Tonight's plan, the night shrunk to its caps first (``pipeline.fit``)."""
        from skillopt_sleep.pipeline.fit import fit
        from skillopt_sleep.pipeline.managed import new_descriptions
        from skillopt_sleep.pipeline.plan import plan

        descriptions = new_descriptions(by_skill)
        return fit(self.settings, lambda s: plan(s, self.checks, by_skill, roots, self.archive,
                                                 str(self.project), descriptions))

    def _estimate(self, fitted: Fitted) -> None:
        estimate = fitted.plan["estimated_usd"]
        self.outcome.counts["estimate_usd"] = estimate
        if fitted.left_out:
            self.outcome.counts["fitted"] = fitted.left_out
            self.say("fitted to the caps: " + "; ".join(fitted.left_out))
        s = self.settings
        caps = f"${s.max_usd_per_night:.2f} a night, ${s.max_usd_per_skill:.2f} a skill"
        self.say(f"estimate: about ${estimate:.2f} (caps: {caps})")

    def _seed(self, skill: str) -> int:
        """Each night of a skill samples afresh: the configured seed, then the night's rank
        among this project's nights for the skill (so a rerun of the same history repeats)."""
        earlier = self.archive.count_nights(str(self.project), skill)
        return self.settings.seed * 100_003 + earlier
