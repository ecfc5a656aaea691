"""One night for one skill: replay, reflect, merge, clip, gate — ``steps`` times — then the
slow update, the checks of the whole proposal (``night.whole``) and the meta notes.

The night never writes anything: it returns a ``NightResult`` whose ``skill_after`` is the
validated text. Its memory of earlier nights comes in with its inputs and tonight's lessons
are kept by the caller (``night.memory``); staging and adoption are ``publish``'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from skillopt_sleep.errors import BudgetExceeded
from skillopt_sleep.firewall import Context, check_edit, granted_by_user, user_typed
from skillopt_sleep.models.meter import Ledger, MeteredLLM
from skillopt_sleep.night import candidates, carry, gate, noise, retire, slow_update, whole
from skillopt_sleep.night.budget import edit_budget, idle
from skillopt_sleep.night.cross import CrossCheck, seen
from skillopt_sleep.night.demands import OwnLook
from skillopt_sleep.night.describe import Describer
from skillopt_sleep.night.evidence import decision_counts, evidence_rows
from skillopt_sleep.night.inputs import NightInputs
from skillopt_sleep.night.looks import Looks
from skillopt_sleep.night.measure import lift_margin, measured
from skillopt_sleep.night.merge import clip, merge
from skillopt_sleep.night.pools import Pools
from skillopt_sleep.night.reflect import reflect, reflect_slow
from skillopt_sleep.night.replay import mean_score
from skillopt_sleep.night.scoring import Scorer
from skillopt_sleep.night.settle import night_end
from skillopt_sleep.records import (
    Edit,
    GateDecision,
    NightResult,
    Rollout,
    Split,
    StepResult,
    sha256_text,
    utcnow,
)
from skillopt_sleep.secrets import redact

__all__ = ["Night", "NightInputs", "run_night"]  # NightInputs: its own module, named here too
from skillopt_sleep.skilldoc import SkillDoc, apply_edit, parse


class Night:
    def __init__(self, inputs: NightInputs):
        self.inputs = inputs
        self.cfg = inputs.config
        self.gate_test = gate.gate_test(inputs.config.gate_test)
        # The night's own tally of its calls, whatever meters the caller put around the models.
        self.ledger = Ledger()
        self.target = MeteredLLM(inputs.target, "target", self.ledger)
        self.optimizer = MeteredLLM(inputs.optimizer, "optimizer", self.ledger)
        self.split = {s.value: [t for t in inputs.tasks if t.split == s.value] for s in Split}
        # The report's test figure is of a stable sample; the gate never sees the test split.
        test = Split.TEST.value
        self.test_split = len(self.split[test])
        self.split[test] = measured(self.split[test], self.cfg.test_tasks)
        # Only what the user typed, and the skill itself, may vouch for a capability: a task's
        # context can hold a tool's output or a file, which anyone could have planted.
        self.firewall = Context.from_texts(user_typed(inputs.tasks), skill=inputs.skill_text)
        self.rejected: list[GateDecision] = list(inputs.memory.rejected)
        self.notes = list(inputs.memory.notes)
        self.pools = Pools(inputs.executor, inputs.config.concurrency)
        self.scorer = Scorer(self.split, self.target, inputs.judge_for, self.cfg,
                             self.pools.replays)
        self.refused = 0
        """1 when the night's validated proposal was refused by the firewall as a whole."""
        self.cross = CrossCheck(inputs.skill_name, inputs.neighbours, self.target,
                                inputs.judge_for, self.cfg, self.pools.replays,
                                reader=self.optimizer, size=inputs.cross_tasks,
                                seed=inputs.seed)
        self.own = OwnLook(inputs.skill_name, inputs.tasks, self.optimizer, seed=inputs.seed)
        self.looks = Looks(self.own, self.cross)
        self.start_first = self.val_first = inputs.memory.carried.first
        """First validation sample of the night's comparisons (the night starts where the
        last one left off). An accepted edit keeps the pairs it won on as the incumbent's
        (``Scorer.won``); only a retirement opens a fresh block."""
        self.preloaded = carry.preload(self.scorer, inputs.tasks, inputs.memory.carried)
        n_val = len(self.split[Split.VALIDATION.value])
        self.val_repeats = self.cfg.repeats_for(n_val)
        self.val_block = self.val_repeats  # samples a task may give; the probe may deepen it
        self.incumbent: SkillDoc = parse(inputs.skill_text)
        """The best skill validated so far tonight; every gate compares against it."""
        self.stepped = (self.incumbent, self.val_first)  # the gated edits' start: last look
        self.result = NightResult(
            night_id=inputs.night_id,
            skill=inputs.skill_name,
            project=inputs.project,
            started_at=utcnow(),
            skill_before=inputs.skill_text,
        )
        self.result.neighbours_seen = seen(inputs.neighbours, inputs.skill_name,
                                           inputs.skill_text)

    # --- scoring (cached by skill hash: the incumbent is never re-run) -------------------

    def score(self, split: str, doc: SkillDoc, repeats: int, first: int = 0) -> list[Rollout]:
        return self.scorer.rounds(split, doc, repeats, first)

    def _train(self, doc: SkillDoc, seed: int) -> list[Rollout]:
        """The train rollouts reflection reads: one minibatch of ``train_batch`` tasks drawn
        by ``seed`` (``0``: every task), each sampled ``train_samples`` times."""
        train, size = Split.TRAIN.value, self.cfg.train_batch
        if not size:
            return self.score(train, doc, self.cfg.train_samples)
        return self.scorer.minibatch(train, doc, size, seed, self.cfg.train_samples)

    def _mean(self, split: str, doc: SkillDoc, repeats: int, first: int = 0) -> float | None:
        if not self.split[split]:
            return None
        return mean_score(self.score(split, doc, repeats, first), self.cfg.metric)

    def _val_mean(self, doc: SkillDoc, first: int) -> float:
        """The validation score over the pairs the gate already drew for ``doc``, but the
        ones it won on (biased by the win); one round of samples no comparison used when
        nothing else was drawn. A reported figure, not worth more calls of its own."""
        val = Split.VALIDATION.value
        drawn = self.scorer.drawn(val, doc, first) or self.score(val, doc, 1, self._clean(doc))
        return mean_score(drawn, self.cfg.metric) or 0.0

    def _clean(self, doc: SkillDoc) -> int:
        """The first validation sample on which ``doc``'s answers are unselected: past the
        block it won a comparison on tonight, if it did (``night.carry``)."""
        return self.val_first + (self.val_block if self.scorer.has_won(doc) else 0)

    # --- the night ------------------------------------------------------------------------

    def run(self) -> NightResult:
        try:
            return self._run()
        finally:
            self.pools.shutdown()

    def _run(self) -> NightResult:
        r = self.result
        doc = parse(self.inputs.skill_text)
        n_val = len(self.split[Split.VALIDATION.value])
        if self.gate_test.replays and n_val < self.cfg.min_val_tasks:
            r.abstained = (
                f"only {n_val} validation tasks (need {self.cfg.min_val_tasks}); "
                "the gate cannot tell an edit from noise, so nothing was changed"
            )
            return self._finish(doc, doc)
        try:
            doc = self._describe(doc)
            doc = self.incumbent = self._retire(doc)
            self.stepped = (doc, self.val_first)
            doc = self._steps(doc)
            doc = self._slow(parse(self.inputs.skill_text), doc)
        except BudgetExceeded as exc:
            r.stopped = f"stopped at the cost cap: {exc}; kept what was validated before it"
        before = parse(self.inputs.skill_text)
        return self._finish(before, self._settle(before, self._whole(before, self.incumbent)))

    def _whole(self, before: SkillDoc, after: SkillDoc) -> SkillDoc:
        """``after``, unless the proposal as a whole is held back (``night.whole``): by the
        firewall's check of the whole text (then the skill stays as ``before``), or by the
        last look at what the gated edits made of the skill they started from (then it stays
        as that: a withdrawal, a retirement or a new description stands on its own test).
        The reason goes to the report and the accepted edits to the buffer."""
        if after.hash == before.hash:
            return after
        held, back = whole.refused(before, after, self.firewall), before
        self.refused = int(held is not None)
        start, first = self.stepped
        looks = self.gate_test.replays and not self.result.stopped and start != after
        if held is None and looks:
            held, back = whole.worse(self.scorer, start, after, before_first=first,
                                     after_first=self._clean(after), cfg=self.cfg,
                                     test=self.gate_test, notes=self.result.notes), start
        if held is None:
            return after
        self.result.warnings.append(f"{held.warning}; the skill stays as it was")
        for d in self.result.accepted:
            self._reject(replace(d, accepted=False, stage=held.stage, reason=held.reason))
        return back

    def _settle(self, before: SkillDoc, doc: SkillDoc) -> SkillDoc:
        return night_end(self.cross, self.result, before, doc, self.inputs.recheck,
                         self._reject)

    def _describe(self, doc: SkillDoc) -> SkillDoc:
        """The trigger check first: whether the agent loads the skill at all."""
        setup = self.inputs.trigger
        if setup is None:
            return doc
        describer = Describer(self.inputs.skill_name, self.target, self.optimizer, setup,
                              self.split, self.cfg, self.pools.routing, self.firewall,
                              self.inputs.seed)
        self.incumbent, self.result.trigger = describer.run(doc)
        self.result.notes.extend(describer.notes)
        return self.incumbent

    def _retire(self, doc: SkillDoc) -> SkillDoc:
        if not self.inputs.retire or not self.gate_test.replays:
            return doc
        val, first = Split.VALIDATION.value, self.val_first
        n = self.val_repeats * len(self.split[val])
        doc, self.result.retired = retire.retire(
            doc, self.inputs.retire, lambda d: self.scorer.pairs(val, d, first, n),
            self.cfg, self.gate_test)
        if any(d.accepted for d in self.result.retired):
            self.val_first += self.val_block  # fresh samples: the winner's curse again
        return doc

    def _steps(self, doc: SkillDoc) -> SkillDoc:
        self.incumbent = doc
        for t in range(self.cfg.steps):
            budget = edit_budget(
                t,
                self.cfg.steps,
                start=self.cfg.budget_start,
                end=self.cfg.budget_end,
                schedule=self.cfg.schedule,
            )
            self.inputs.progress(f"step {t + 1}/{self.cfg.steps} (budget {budget})")
            self.result.steps.append(self._step(t, budget))
            if idle(self.result.steps, self.cfg.idle_steps):
                self.inputs.progress(f"steps stop after {t + 1}: {self.cfg.idle_steps} in a row "
                                     "accepted nothing")
                break
        return self.incumbent

    def _step(self, t: int, budget: int) -> StepResult:
        doc = self.incumbent
        train = self._train(doc, self.inputs.seed * 1000 + t)
        if t == 0 and self.gate_test.replays and self.cfg.noise_probe:
            self._probe(doc, train)
        by_id = {task.id: task for task in self.split[Split.TRAIN.value]}
        scored = [(by_id[ro.task_id], ro) for ro in train]
        found = reflect(self.optimizer, skill=doc.text, scored=scored, rejected=self.rejected,
                        notes=self.notes, batch_size=self.cfg.batch_size, max_edits=budget,
                        max_success_batches=self.cfg.max_success_batches,
                        seed=self.inputs.seed * 1000 + t)
        step = StepResult(step=t, budget=budget, proposed=len(found.edits),
                          train_score=mean_score(train, self.cfg.metric) or 0.0,
                          reflect_failures=len(found.failures))
        self.result.notes.extend(found.failures)
        passed = self._firewall(found.edits, step)
        ranked, dropped = merge(passed, self.rejected)
        ranked, spared = self._admit(ranked, doc)
        kept, over = clip(ranked, budget)
        step.decisions.extend(dropped + spared + over)
        for edit in kept:
            step.decisions.append(self._gate_one(edit, t))
        return step

    def _probe(self, doc: SkillDoc, train: Sequence[Rollout]) -> None:
        """How deep a comparison's lead may draw, from the A/A probe on train (``night.noise``)."""
        found = noise.measure(self.scorer, doc, train, self.cfg.metric, self.cfg.noise_probe)
        self.val_block = max(self.val_block, noise.lead_depth(found, self.val_repeats, self.cfg))
        # Progress, not a note: a night's notes are what went wrong in it (reflect failures).
        self.inputs.progress(f"answer noise: {found.ratio:.2f} of checks flip (A/A) on "
                             f"{found.pairs} train pairs; lead depth {self.val_block}")

    def _firewall(self, edits: Sequence[Edit], step: StepResult) -> list[Edit]:
        passed = []
        for edit in edits:
            findings = check_edit(edit, self.firewall)
            if findings:
                reason = "; ".join(f"{f.rule}: {f.excerpt}" for f in findings)
                # A refused edit is kept (buffer, report) with its secrets masked: it must
                # never reach a prompt, the archive or a page in clear.
                shown = replace(edit, text=redact(edit.text)[0], anchor=redact(edit.anchor)[0])
                self._reject(GateDecision(shown, False, reason, stage="firewall", step=step.step))
                step.decisions.append(self.rejected[-1])
            else:
                passed.append(edit)
        return passed

    def _admit(self, ranked: Sequence[Edit], doc: SkillDoc) -> tuple[list[Edit],
                                                                      list[GateDecision]]:
        if not self.gate_test.replays:
            return list(ranked), []  # the gate-off ablation keeps every edit that applies
        return candidates.admit(ranked, doc, min_support=self.cfg.min_support,
                                overlap=self.cfg.restate_overlap, anecdotes=self.cfg.anecdotes)

    def _reject(self, decision: GateDecision) -> None:
        self.rejected.append(decision)
        self.result.buffered.append(decision)

    def _gate_one(self, edit: Edit, step: int, allow_slow: bool = False) -> GateDecision:
        incumbent = self.incumbent
        candidate, outcome = apply_edit(incumbent, edit, allow_slow=allow_slow)
        if outcome.value != "applied":
            return GateDecision(
                edit, False, f"edit not applied: {outcome.value}", stage="apply", step=step
            )
        if not self.gate_test.replays:
            self.incumbent = candidate
            return GateDecision(edit, True, "gate disabled", step=step)
        verdict = self.scorer.compare(self.gate_test, incumbent, candidate, self.val_first,
                                      self.val_repeats, f"{edit.text} {edit.anchor}",
                                      cited=edit.cited, adds=edit.text,
                                      lead_repeats=self.val_block)
        held = self.looks.after(verdict, incumbent.text, candidate.text, edit)
        self.result.contradictions += held.found
        decision = gate.decision(edit, held.verdict.accepted, held.verdict.reason,
                                 held.verdict.comparison, metric=self.cfg.metric,
                                 stage=held.stage, step=step)
        if decision.accepted:
            self.incumbent = candidate
        else:
            self._reject(decision)
        return decision

    def _slow(self, yesterday: SkillDoc, today: SkillDoc) -> SkillDoc:
        if not self.cfg.slow_update or not self.split[Split.TRAIN.value]:
            return today
        # The first step's minibatch: its answers of the night's first skill are drawn
        # already, so only today's skill is replayed (a fresh draw cost as much again and
        # gave the gate study no more lift).
        seed = self.inputs.seed * 1000
        before, after = self._train(yesterday, seed), self._train(today, seed)
        scored = {r.task_id for r in after}
        groups, persistent = slow_update.compare(
            [t for t in self.split[Split.TRAIN.value] if t.id in scored],
            before,
            after,
            self.cfg.metric,
        )
        if not persistent:
            return today
        found = reflect_slow(
            self.optimizer,
            skill=today.text,
            persistent=persistent,
            comparison=slow_update.summary(groups),
            rejected=self.rejected,
            notes=self.notes,
            batch_size=self.cfg.batch_size,
            seed=self.inputs.seed * 1000 + 999,
        )
        self.result.notes.extend(found.failures)
        slow_step = StepResult(step=self.cfg.steps, budget=2, proposed=len(found.edits))
        kept, spared = self._admit(self._firewall(found.edits, slow_step), today)
        self.result.slow_updates.extend(replace(d, step=self.cfg.steps) for d in spared)
        for edit in kept:
            self.result.slow_updates.append(self._gate_one(edit, self.cfg.steps, allow_slow=True))
        return self.incumbent

    def _finish(self, before: SkillDoc, after: SkillDoc) -> NightResult:
        r = self.result
        r.skill_after = after.text
        # What the skill's next night compares its own document with (``cross.changed``).
        r.neighbours_seen[self.inputs.skill_name] = sha256_text(after.text)[:16]
        if not r.abstained:
            try:
                r.baseline_val = self._val_mean(before, self.start_first)
                changed = after.hash != before.hash
                r.after_val = self._val_mean(after, self.val_first) if changed else r.baseline_val
                if self.cfg.score_test:
                    test, reps = Split.TEST.value, self.cfg.test_repeats
                    r.baseline_test = self._mean(test, before, reps)
                    r.after_test = self._mean(test, after, reps)
            except BudgetExceeded:
                r.after_val = r.baseline_val if after.hash == before.hash else r.after_val
        r.notes.extend([*self.own.notes, *self.cross.notes])
        r.granted = granted_by_user(before.text, after.text, self.firewall)
        r.counts = decision_counts(r)
        if self.refused:
            r.counts["refused_proposal"] = self.refused
        r.task_evidence = self._evidence(before, after)
        if r.after_test is not None:
            scored = self.split[Split.TEST.value]
            r.test_scored, r.test_split = len(scored), self.test_split
            r.test_margin = lift_margin(scored, r.task_evidence)
        roles = self.ledger.by_role()
        r.calls_by_role = {k: roles.get(k, {}).get("calls", 0) for k in ("target", "optimizer")}
        r.cost_by_role = {k: roles.get(k, {}).get("cost_usd", 0.0) for k in ("target", "optimizer")}
        r.model_calls = sum(r.calls_by_role.values())
        r.cost_usd = sum(r.cost_by_role.values())
        first = self._clean(after)
        r.carried = [*carry.kept(self.scorer, self.inputs.tasks, after.hash, first),
                     *noise.carried(self.scorer, self.inputs.tasks)]
        r.carried_first = first
        r.ended_at = utcnow()
        return r

    def _evidence(self, before: SkillDoc, after: SkillDoc) -> list[dict[str, Any]]:
        rows = []
        starts = {Split.VALIDATION.value: self.start_first, Split.TEST.value: 0}
        for split, first in ((Split.VALIDATION.value, self.val_first), (Split.TEST.value, 0)):
            rows += evidence_rows(self.split[split], split, self.cfg.metric,
                                  self.scorer.drawn(split, before, starts[split]),
                                  self.scorer.drawn(split, after, first))
        return rows


def run_night(inputs: NightInputs) -> NightResult:
    """Run one night; see the module docstring."""
    return Night(inputs).run()
