"""What a night works with and produces: model completions, tasks and their judging,
rollouts, edits, gate decisions, and the ``NightResult`` that sums them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from skillopt_sleep.records.common import sha256_text
from skillopt_sleep.records.sessions import ToolCall


@dataclass
class Usage:
    """Tokens of one call. ``input_tokens`` are the prompt's uncached tokens: the ones read
    from the provider's prompt cache (``cache_read_tokens``) and written to it
    (``cache_write_tokens``, Anthropic's cache creation) are counted apart, at their prices."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt, cached or not."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


@dataclass
class Completion:
    """What one model call returned. ``tool_calls`` is filled by agent-harness backends."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    latency_s: float = 0.0
    cached: bool = False


# --- tasks and judging ------------------------------------------------------------------


class Split(StrEnum):
    TRAIN = "train"
    VALIDATION = "validation"
    TEST = "test"


@dataclass
class JudgeSpec:
    """How to score an answer.

    ``kind`` is a row of ``skillopt_sleep.tables.JUDGES``: ``rules`` (all ``checks`` must
    pass for hard; fraction for soft), ``exact`` (``reference`` compared after
    normalisation; ``contains`` allows containment) or ``rubric`` (a model grades against
    ``rubric``), or a kind a plugin registers.
    Each check is ``{"op": name, ...op arguments}``; see ``judges/rules.py``.
    """

    kind: str = "rules"
    checks: list[dict[str, Any]] = field(default_factory=list)
    reference: str = ""
    contains: bool = False
    rubric: str = ""
    repeats: int = 1


@dataclass
class Task:
    """Something the user asks for again and again, with a way to check the answer."""

    id: str
    family_id: str
    intent: str
    judge: JudgeSpec
    context: str = ""
    split: str = Split.TRAIN.value
    synthetic: bool = False
    project: str = ""
    skill: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Score:
    """A judgement. ``failed`` means no judgement was made: excluded, never scored as 0."""

    hard: float = 0.0
    soft: float = 0.0
    rationale: str = ""
    failed: bool = False

    def metric(self, name: str) -> float:
        if name == "hard":
            return self.hard
        if name == "soft":
            return self.soft
        return 0.5 * self.hard + 0.5 * self.soft


@dataclass
class Rollout:
    """One sample of one task answered with one skill version (identified by its hash)."""

    task_id: str
    sample: int
    skill_hash: str
    response: str = ""
    score: Score = field(default_factory=Score)
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    error: str = ""

    @property
    def usable(self) -> bool:
        return not self.error and not self.score.failed


# --- edits and the gate -----------------------------------------------------------------


class EditOp(StrEnum):
    APPEND = "append"
    INSERT_AFTER = "insert_after"
    REPLACE = "replace"
    DELETE = "delete"


class EditOutcome(StrEnum):
    """Typed result of applying an edit; applying never raises for a bad edit."""

    APPLIED = "applied"
    ANCHOR_NOT_FOUND = "anchor_not_found"
    ANCHOR_AMBIGUOUS = "anchor_ambiguous"
    NO_CHANGE = "no_change"
    OUTSIDE_REGION = "outside_region"
    INVALID = "invalid"


@dataclass
class Edit:
    """A small, anchored change to the learned region of a skill.

    ``anchor`` is existing entry text (required for insert_after, replace, delete);
    ``text`` is the new entry (required for append, insert_after, replace).
    """

    op: str
    text: str = ""
    anchor: str = ""
    rationale: str = ""
    origin: Literal["failure", "success", "slow", "retire"] = "failure"
    support: int = 1
    region: Literal["learned", "slow"] = "learned"
    id: str = ""
    cited: tuple[str, ...] = field(default=(), compare=False, repr=False,
                                   metadata={"transient": True})
    """The shown tasks the edit cites (its evidence, ``support`` counts them): where the gate
    looks first (``night.scoring``). Handed on in memory, never stored."""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = sha256_text(f"{self.op}\x00{self.anchor}\x00{self.text}")[:12]


@dataclass
class FirewallFinding:
    rule: str
    excerpt: str
    line: int = 0
    severity: str = "error"
    """``error`` (refused in an edit), ``warning`` or ``note`` (reported only)."""
    capability: str = ""
    """The capability class the finding is about, if any."""


@dataclass
class GateDecision:
    """Why one edit was accepted or rejected, with the paired evidence."""

    edit: Edit
    accepted: bool
    reason: str
    stage: Literal["gate", "firewall", "budget", "apply", "merge", "contradict", "cross",
                   "retire"] = "gate"
    metric: str = "mixed"
    mean_delta: float = 0.0
    p_value: float = 1.0
    n_pairs: int = 0
    incumbent_score: float = 0.0
    candidate_score: float = 0.0
    task_deltas: dict[str, float] = field(default_factory=dict)
    step: int = 0


@dataclass
class Contradiction:
    """An edit for one skill that lowered another skill's score on that skill's own tasks,
    with both loaded together, or whose text contradicts the other skill's document (a
    ``quote``, found by the optimizer): reported, and the edit rejected, never silently
    resolved."""

    skill: str
    other_skill: str
    edit: Edit
    mean_delta: float
    p_value: float
    n_pairs: int
    before: float = 0.0
    after: float = 0.0
    task_deltas: dict[str, float] = field(default_factory=dict)
    quote: str = ""
    """Found in the text: the other skill's words the edit contradicts (no replay: 0 pairs)."""
    why: str = ""
    """Found in the text: the optimizer's reason."""

    @property
    def own(self) -> bool:
        """Found by the own look (``night.demands``): the edit forbids a demand of its own
        skill's tasks, not another skill's work."""
        return self.other_skill == self.skill


@dataclass
class StepResult:
    step: int
    budget: int
    proposed: int
    decisions: list[GateDecision] = field(default_factory=list)
    train_score: float = 0.0
    reflect_failures: int = 0


@dataclass
class NightResult:
    """Everything one night did for one skill."""

    night_id: str
    skill: str
    project: str = ""
    started_at: datetime | None = None
    ended_at: datetime | None = None
    skill_before: str = ""
    skill_after: str = ""
    baseline_val: float = 0.0
    after_val: float = 0.0
    baseline_test: float | None = None
    after_test: float | None = None
    test_scored: int = 0
    """Test tasks the two test figures are of (``night.measure``: a stable sample of whole
    families, at most ``test_tasks``)."""
    test_split: int = 0
    """Test tasks the night was given; more than ``test_scored`` when it sampled."""
    test_margin: float | None = None
    """Half-width of the 95 % interval of the test lift, over the sample's families."""
    steps: list[StepResult] = field(default_factory=list)
    slow_updates: list[GateDecision] = field(default_factory=list)
    abstained: str = ""
    stopped: str = ""
    failed: str = ""
    """Why the night failed (a role's model could not answer); its scores mean nothing."""
    counts: dict[str, int] = field(default_factory=dict)
    model_calls: int = 0
    cost_usd: float = 0.0
    cost_by_role: dict[str, float] = field(default_factory=dict)
    calls_by_role: dict[str, int] = field(default_factory=dict)
    replay_answer_tokens: float = 0.0
    """The mean output tokens of the target's replays, metered (0: not metered); the next
    night's plan sizes its answers by it (``pipeline.plan_sizes``)."""
    task_evidence: list[dict[str, Any]] = field(default_factory=list)
    """Per held-out task: ``task_id, split, intent, before/after score and answer`` (sample 0)."""
    notes: list[str] = field(default_factory=list)
    failures_by_role: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per role, this skill's ``calls`` and how many ``failed`` (after their retries)."""
    warnings: list[str] = field(default_factory=list)
    """A role whose calls failed too often, and the like: shown in the run and the report."""
    trigger: dict[str, Any] = field(default_factory=dict)
    """The trigger check (``night.describe.report_dict``): recall and false triggers before
    and after, the description before and after, each proposed description's decision;
    empty when the night ran none."""
    retired: list[GateDecision] = field(default_factory=list)
    """Deletions of learned entries no task exercised for a while, each gated (accepted:
    the entry is retired); never among ``decisions`` (no reflection proposed them)."""
    withdrawn: list[GateDecision] = field(default_factory=list)
    """Entries of the skill withdrawn because they now lower a skill loaded beside it (a
    neighbour that changed since: ``night.cross.withdraw``)."""
    neighbours_seen: dict[str, str] = field(default_factory=dict)
    """The neighbours' document hashes this night checked against, by skill, and under the
    skill's own name the hash of the document it left (``night.cross.changed``)."""
    contradictions: list[Contradiction] = field(default_factory=list)
    """Edits the cross-skill check rejected, with the other skill's paired evidence."""
    entries: list[dict[str, Any]] = field(default_factory=list)
    """The skill's learned entries after the night: ``text, night_id, age, evidence,
    last_used, status`` (filled by whoever keeps the usage: the pipeline, the proof)."""
    loads: dict[str, Any] = field(default_factory=dict)
    """When the agents loaded the skill and how those sessions' turns went (harvest)."""
    granted: list[list[str]] = field(default_factory=list)
    """``[class, target]`` of each capability the skill after the night has that the skill
    before did not, granted by the user's own typed requests (``firewall.provenance``):
    staged with the proposal, so adoption's re-check grants exactly these again."""
    buffered: list[GateDecision] = field(default_factory=list, metadata={"transient": True})
    """Tonight's rejections for the rejected-edit buffer (the gate's and the firewall's, the
    slow update's included); kept by the caller, never stored with the result."""
    carried: list[tuple[str, Rollout]] = field(default_factory=list,
                                               metadata={"transient": True})
    """``(task_key, rollout)`` the skill's next night may reuse (``night.carry``); kept by
    the caller, never stored with the result."""
    carried_first: int = field(default=0, metadata={"transient": True})
    """The validation sample the next night starts at."""

    @property
    def decisions(self) -> list[GateDecision]:
        return [d for s in self.steps for d in s.decisions] + list(self.slow_updates)

    @property
    def accepted(self) -> list[GateDecision]:
        return [d for d in self.decisions if d.accepted]

    @property
    def changed(self) -> bool:
        return self.skill_after != self.skill_before
