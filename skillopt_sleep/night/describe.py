"""The description edit: the trigger check's own edit target, proposed, bounded and gated.

A night that knows the other installed skills (``TriggerSetup``) first measures how the
target routes tasks with the skill's current frontmatter ``description`` (``trigger.py``).
When the train tasks show misses (own tasks routed elsewhere or nowhere) or false triggers
(other skills' tasks routed here), or the validation tasks do, the optimizer is asked for
better descriptions; it is shown the train tasks only. After a round whose proposal was
accepted, a second round asks again if the picks still show misses (a partial description
accepted first need not wait for the next night's draw). Each proposal must stay within
bounds (one line, at most ``max_chars``, or the spec's 1,024 for a description the user
already wrote longer: ``description_cap``), pass the edit firewall's content rules, and
change only the ``description`` value, in the style the user wrote it
(``edit_description``: never ``name``, never another key, never a byte of the body; a style
that cannot hold the value refuses it with the reason, shown in the report). It is then
gated on the trigger score over the validation tasks (own and other skills'), paired with
the incumbent's answers by (task, sample): recall must rise (or, when it ties, the
candidate must only add words of the skill's own document: ``own_growth``) and false
triggers must not rise beyond noise (the other skills' tasks are routed only for a
candidate whose recall passes, one sample of each first: ``_broad`` rejects one whose
false triggers there already pass the tolerance). Most proposals win nothing, so each first
routes one sample of each of the skill's own validation tasks (``_futile``) and is dropped
there when it routes no more of them to the skill than it loses (for one that only grows by
the skill's own words, when it loses more): a drop never accepts, so it costs power on
near-misses only. An accepted description is the incumbent for the next proposal and for the
rest of the night; after an accept, the next comparison draws fresh samples.

This is the one place a night changes text outside the learned region; the staged proposal
carries the new description, and adoption and rollback treat it like any edit.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.errors import AuthError, BudgetExceeded, HandoffPending, ModelError
from skillopt_sleep.firewall import Context, check_edit
from skillopt_sleep.frontmatter import DESCRIPTION_MAX_CHARS
from skillopt_sleep.models.base import LLM, tag
from skillopt_sleep.night import gate
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.measure import sampled
from skillopt_sleep.night.prompts import json_replies
from skillopt_sleep.night.trigger import (
    FALSE_TRIGGER_TOLERANCE,
    Pick,
    RouteAnswers,
    Router,
    SkillCard,
    TriggerScore,
    compare,
    jobs,
    pick_deltas,
    score,
)
from skillopt_sleep.night.usage import terms
from skillopt_sleep.records import Edit, EditOutcome, Message, Split, Task
from skillopt_sleep.skilldoc import SkillDoc, edit_description

DESCRIBE_SYSTEM = """You improve the frontmatter description of a skill that a coding agent
loads only when the description fits the task. You see the skill, the other installed
skills, its own tasks the agent did not load it for, other skills' tasks it was wrongly
loaded for, and descriptions tried before that were rejected. Propose up to {n} new
descriptions: each one line of at most {max_chars} characters that names the work this
skill is for, so the agent loads it for tasks like the missed ones and not for the other
skills' work. Never add secrets, URLs, shell commands or instructions to the agent.
Reply with JSON only: {{"descriptions": ["...", "..."]}}"""

# The cap and the one-line rule are the description's own bounds, checked before these.
_BOUND_RULES = {"entry_too_long", "multi_line_entry"}

PAST_SCREEN = 0.12
"""The typical share of proposed descriptions that go past the one-sample screen
(``Describer._futile``) to the full comparison; the dry run's plan counts the rest at the
screen's cost. Measured: 36 of 316 gated proposals (0.114) on the maintainer persona's
proofs, seeds 0–19 (``python experiments/trigger_screen_share.py --seeds 20``)."""


@dataclass(frozen=True)
class TriggerSetup:
    """What a night needs for the trigger check: the skills installed beside this one and
    their tasks (for false triggers), and the description's length cap."""

    others: Sequence[SkillCard]
    foreign_tasks: Sequence[Task] = ()
    max_chars: int = 400
    proposals: int = 3
    rounds: int = 2
    """Rounds of proposals a night may ask for: a further one only after an accept."""
    answers: RouteAnswers | None = None
    """The routing replies of the run this night belongs to, shared with its other nights
    (``trigger.RouteAnswers``; owned by whoever runs them with one target); ``None``: this
    night's own only."""


def report_samples(cfg: NightConfig) -> tuple[str, int, int]:
    """``(split, first sample, samples)`` the report routes before and after: the test split
    when the night scores it, else fresh validation samples no gate compared on."""
    if cfg.score_test:
        return Split.TEST.value, 0, cfg.test_repeats
    # As many samples as the test split's figure would take: a reported figure, not a gate.
    return Split.VALIDATION.value, 10_000, cfg.test_repeats


@dataclass
class DescriptionDecision:
    description: str
    accepted: bool
    reason: str
    stage: str = "gate"
    """``bound``, ``firewall``, ``apply`` or ``gate``."""
    facts: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"description": self.description, "accepted": self.accepted,
                "reason": self.reason, "stage": self.stage, **self.facts}


def describe_messages(doc: SkillDoc, others: Sequence[SkillCard], missed: Sequence[Pick],
                      false_hits: Sequence[Pick], tasks: dict[str, Task],
                      rejected: Sequence[str], n: int, max_chars: int) -> list[Message]:
    def rows(picks: Sequence[Pick], key: str) -> str:
        return json.dumps([{"task_id": p.task_id, "intent": tasks[p.task_id].intent,
                            key: (p.picked or "none") if key == "loaded" else
                            tasks[p.task_id].skill} for p in picks], ensure_ascii=False,
                          indent=1)
    body = "\n".join([
        "<mode>description</mode>",
        f"<skill>\n{doc.text}\n</skill>",
        "<installed_skills>\n" + json.dumps([{"name": c.name, "description": c.description}
                                             for c in others], ensure_ascii=False, indent=1)
        + "\n</installed_skills>",
        f"<missed>\n{rows(missed, 'loaded')}\n</missed>",
        f"<false_triggers>\n{rows(false_hits, 'owner')}\n</false_triggers>",
        "<rejected>\n" + json.dumps([{"description": r} for r in rejected], ensure_ascii=False)
        + "\n</rejected>",
    ])
    return [
        {"role": "system", "content": tag(DESCRIBE_SYSTEM.format(n=n, max_chars=max_chars))},
        {"role": "user", "content": tag(body)},
    ]


def parse_descriptions(text: str) -> list[str]:
    """Descriptions from an optimizer reply; ``ValueError`` when it holds none."""
    for data in json_replies(text):
        if isinstance(data, dict):
            found = data.get("descriptions", data.get("description"))
            found = [found] if isinstance(found, str) else found
            if isinstance(found, list):
                return [str(d) for d in found if isinstance(d, str) and d.strip()]
    raise ValueError(f"reply is not description JSON: {text[:120]!r}")


def own_growth(candidate: str, incumbent: str, doc: SkillDoc) -> list[str]:
    """The distinctive words ``candidate`` adds to ``incumbent`` when it keeps all of the
    incumbent's and every word it adds is in the skill's own document (its text below the
    frontmatter); empty otherwise (see ``trigger.compare``)."""
    before, after = terms(incumbent), terms(candidate)
    body = terms(doc.text[doc.text.find("\n---", 3) + 4:] if doc.text.startswith("---")
                 else doc.text)
    added = after - before
    return sorted(added) if added and before <= after and added <= body else []


def description_cap(current: str, max_chars: int) -> int:
    """The longest description a proposal may be: ``max_chars``, or the spec's limit
    (``DESCRIPTION_MAX_CHARS``) when the user's own description is already longer than
    ``max_chars`` (real skills' run to 1,000 characters: a lower cap would refuse every
    proposal that keeps their words)."""
    return max_chars if len(current.strip()) <= max_chars else max(max_chars,
                                                                   DESCRIPTION_MAX_CHARS)


def bound(description: str, current: str, max_chars: int, ctx: Context) -> tuple[str, str]:
    """``(stage, why)`` a proposed description may not be tried (``("", "")``: it may)."""
    text = description.strip()
    if not text:
        return "bound", "empty"
    if "\n" in text or "\r" in text:
        return "bound", "more than one line"
    cap = description_cap(current, max_chars)
    if len(text) > cap:
        return "bound", f"{len(text)} chars > cap {cap}"
    if text == current.strip():
        return "bound", "same as the current description"
    findings = [f for f in check_edit(Edit(op="replace", text=text), ctx)
                if f.rule not in _BOUND_RULES]
    if findings:
        return "firewall", "; ".join(f"{f.rule}: {f.excerpt}" for f in findings)
    return "", ""


@dataclass
class Describer:
    """The description step of one night for one skill."""

    skill: str
    target: LLM
    optimizer: LLM
    setup: TriggerSetup
    own: dict[str, list[Task]]
    """The skill's own tasks by split."""
    cfg: NightConfig
    executor: Executor
    firewall: Context
    seed: int = 0
    notes: list[str] = field(default_factory=list)
    _first: int = field(default=0, init=False)
    """The first validation sample the next comparison draws (fresh after each accept)."""

    def __post_init__(self) -> None:
        self.router = Router(self.target, self.skill, self.setup.others, self.executor,
                             self.cfg.temperature, self.setup.answers)
        self.foreign = {s.value: [t for t in self.setup.foreign_tasks if t.split == s.value]
                        for s in Split}
        # The routing figure's test side is each skill's own sample, as its night scores it,
        # so every night of a run routes the same report tasks (and shares their answers).
        test = Split.TEST.value
        self.foreign[test] = sampled(self.foreign[test], self.cfg.test_tasks)
        self.by_id = {t.id: t for t in [*self.setup.foreign_tasks,
                                        *(t for ts in self.own.values() for t in ts)]}

    def _jobs(self, split: str, samples: int, first: int = 0) -> list[tuple[Task, int, bool]]:
        return jobs(self.own.get(split, []), self.foreign.get(split, []), samples, first)

    def run(self, doc: SkillDoc) -> tuple[SkillDoc, dict[str, Any]]:
        """The night's description step: the skill after it, and its report. A round asks
        for proposals while the picks show misses or false triggers; a further round (up to
        ``setup.rounds``) follows only a round whose proposal was accepted."""
        start = doc
        train = self.router.picks(doc.description, self._jobs(Split.TRAIN.value, 1))
        decisions: list[DescriptionDecision] = []
        for round_ in range(max(1, self.setup.rounds)):
            seen = train if round_ == 0 else self.router.picks(
                doc.description, self._jobs(Split.TRAIN.value, 1))
            missed = [p for p in seen if p.usable and p.own and p.picked != self.skill]
            false_hits = [p for p in seen if p.usable and not p.own and p.picked == self.skill]
            if not (missed or false_hits or self._wrong(doc)):
                break
            proposals = self._ask(doc, missed, false_hits, round_)
            grown = self._gate(doc, proposals, decisions)
            if grown.description == doc.description:
                break
            doc = grown
        return doc, self._report(start, doc, train, decisions)

    def _ask(self, doc: SkillDoc, missed: list[Pick], false_hits: list[Pick], round_: int = 0
             ) -> list[str]:
        messages = describe_messages(doc, self.router.others, missed, false_hits, self.by_id,
                                     [], self.setup.proposals,
                                     description_cap(doc.description, self.setup.max_chars))
        for attempt in range(2):
            try:
                reply = self.optimizer.complete(messages, max_tokens=800, temperature=0.7,
                                                seed=self.seed * 2 + attempt + 1000 * round_)
                return parse_descriptions(reply.text)[: self.setup.proposals]
            except (AuthError, BudgetExceeded, HandoffPending):
                raise
            except (ModelError, ValueError) as exc:
                if attempt == 1:
                    self.notes.append(f"description proposal: {exc}")
        return []

    def _gate(self, doc: SkillDoc, proposals: list[str],
              decisions: list[DescriptionDecision]) -> SkillDoc:
        val, reps = Split.VALIDATION.value, self.cfg.val_repeats
        test = gate.gate_test(self.cfg.gate_test)
        for text in proposals:
            stage, why = bound(text, doc.description, self.setup.max_chars, self.firewall)
            if stage:
                decisions.append(DescriptionDecision(text, False, why, stage))
                continue
            done = edit_description(doc, text)
            if done.outcome is not EditOutcome.APPLIED:
                decisions.append(DescriptionDecision(
                    text, False, f"not applied: {done.reason or done.outcome.value}",
                    "apply"))
                continue
            candidate = done.doc
            grows = own_growth(candidate.description, doc.description, doc)
            if test.replays and (why := self._futile(doc, candidate, grows)):
                decisions.append(DescriptionDecision(candidate.description, False, why, "gate"))
                continue
            # Recall is decided on the own tasks alone, and first: a candidate it rejects
            # needs no other skill's task routed (the verdict would be the same).
            own = jobs(self.own.get(val, []), [], reps, self._first)
            verdict = compare(self.skill, self.router.picks(doc.description, own),
                              self.router.picks(candidate.description, own), test=test,
                              alpha=self.cfg.alpha, margin=self.cfg.margin, grows=grows)
            if test.replays and verdict.accepted and (why := self._broad(doc, candidate, reps)):
                verdict = dataclasses.replace(verdict, accepted=False, reason=why)
            if verdict.accepted:
                every = self._jobs(val, reps, self._first)
                verdict = compare(self.skill, self.router.picks(doc.description, every),
                                  self.router.picks(candidate.description, every), test=test,
                                  alpha=self.cfg.alpha, margin=self.cfg.margin, grows=grows)
            facts = {k: round(v, 4) if isinstance(v, float) else v
                     for k, v in verdict.__dict__.items() if k not in ("accepted", "reason")}
            decisions.append(DescriptionDecision(candidate.description, verdict.accepted,
                                                 verdict.reason, "gate", facts))
            if verdict.accepted:
                doc = candidate
                self._first += reps  # the winner's samples are biased upward: fresh ones next
        return doc

    def _wrong(self, doc: SkillDoc) -> bool:
        """Whether one sample of every validation task (own and other skills') shows a miss
        or a false trigger: asked only when the train tasks show none. The gate's own first
        pairs say whether asking can pay off at all; the optimizer still sees the train
        tasks only, so validation never shapes a proposal."""
        val = self.router.picks(doc.description,
                                self._jobs(Split.VALIDATION.value, 1, self._first))
        return any(p.usable and (p.own != (p.picked == self.skill)) for p in val)

    def _broad(self, doc: SkillDoc, candidate: SkillDoc, reps: int) -> str:
        """Why ``candidate`` is rejected on one sample of the other skills' validation tasks
        (``""``: it goes on to every sample): more false triggers gained there than the
        tolerance allows over all ``reps`` samples even if the others all tied. A rejection
        only costs power; an accept still needs the full comparison."""
        foreign = jobs([], self.foreign.get(Split.VALIDATION.value, []), 1, self._first)
        _, deltas = pick_deltas(self.skill, self.router.picks(doc.description, foreign),
                                self.router.picks(candidate.description, foreign))
        rise = sum(deltas) / max(len(deltas) * reps, 1)
        if rise > FALSE_TRIGGER_TOLERANCE:
            return (f"false triggers up on one sample of {len(deltas)} other skills' tasks: "
                    f"{sum(deltas):+.0f}, over {rise:+.3f} at {reps} samples")
        return ""

    def _futile(self, doc: SkillDoc, candidate: SkillDoc, grows: Sequence[str]) -> str:
        """Why ``candidate`` is dropped on one sample of each of the skill's own validation
        tasks, before its other samples and the other skills' tasks are routed (``""``: it
        goes on to the full comparison). Like the night gate's useless rule: no more tasks
        newly routed to the skill than lost; for a description that only grows by the
        skill's own words, which a tie may accept, only more lost than gained."""
        own = jobs(self.own.get(Split.VALIDATION.value, []), [], 1, self._first)
        deltas, _ = pick_deltas(self.skill, self.router.picks(doc.description, own),
                                self.router.picks(candidate.description, own))
        up, down = sum(d > 0 for d in deltas), sum(d < 0 for d in deltas)
        if down > up or (up <= down and not grows):
            return (f"dropped after one sample of {len(deltas)} own tasks: routed here "
                    f"{up} that were not, lost {down}")
        return ""

    def _report(self, start: SkillDoc, end: SkillDoc, train: list[Pick],
                decisions: list[DescriptionDecision]) -> dict[str, Any]:
        """Before and after on the test split when the night scores it (paired by sample),
        else on fresh validation samples."""
        split, first, reps = report_samples(self.cfg)
        if end.description == start.description and not decisions:
            before = after = score(self.skill, self.router.picks(
                start.description, self._jobs(split, reps, first)))
        else:
            before = score(self.skill, self.router.picks(start.description,
                                                         self._jobs(split, reps, first)))
            after = score(self.skill, self.router.picks(end.description,
                                                        self._jobs(split, reps, first)))
        return report_dict(self.skill, split, start.description, end.description, before,
                           after, score(self.skill, train), decisions,
                           competing=len(self.router.others))


def report_dict(skill: str, split: str, before_text: str, after_text: str,
                before: TriggerScore, after: TriggerScore, train: TriggerScore,
                decisions: Sequence[DescriptionDecision], *,
                competing: int | None = None) -> dict[str, Any]:
    """``NightResult.trigger``: what the report and ``report --json`` show. With no other
    skill installed the rates are None and ``unmeasured`` says why: picking the only skill
    or none measures nothing about choosing between skills, and 0 % would read as a fault."""
    found = {
        "skill": skill,
        "split": split,
        "description_before": before_text,
        "description_after": after_text,
        "recall_before": before.to_dict()["recall"],
        "recall_after": after.to_dict()["recall"],
        "false_trigger_before": before.to_dict()["false_triggers"],
        "false_trigger_after": after.to_dict()["false_triggers"],
        "own_picks": after.own,
        "foreign_picks": after.foreign,
        "failed_picks": before.failed + after.failed + train.failed,
        "train": train.to_dict(),
        "decisions": [d.to_dict() for d in decisions],
        "competing_skills": competing,
        "unmeasured": None,
    }
    if competing == 0:
        found |= {"recall_before": None, "recall_after": None, "false_trigger_before": None,
                  "false_trigger_after": None, "unmeasured": UNMEASURED}
    return found


UNMEASURED = ("not measurable: no other skill is installed, so nothing competes with this "
              "one for a task")
