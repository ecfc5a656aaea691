"""The trigger check: does the agent load this skill for its own tasks, and only for them?

Claude Code, Codex and Copilot pick a skill by its frontmatter ``description``. The check
shows the target every installed skill's name and description and one task (the *routing
prompt*) and reads back the one skill it would load, or ``none``:

- *recall*: the share of the skill's own tasks for which the target picks it;
- *false triggers*: the share of other skills' tasks for which the target picks it.

A routing answer is read robustly (``parse_choice``: the bare name, quoted or in
backticks, ``{"skill": …}`` JSON, or the one installed name the reply mentions). A call
that fails, and a reply that names no installed skill and is not ``none``, is recorded as a
failed pick: excluded from the rates and from the pairs, never scored as a wrong pick.

``compare`` is the gate on the trigger score, with the gate's own paired statistics
(``night.gate``'s ``GateTest``, its one-look p-value on every pair): picks of the incumbent
and the candidate description are paired by (task, sample); the candidate is accepted only if its
recall rises (mean paired gain above the margin and the one-sided test significant at
``alpha``) and its false triggers are not worse: a description must not make the agent
load the skill for other skills' work. The false-trigger side is a non-inferiority check,
not a superiority one: "not significantly up" is no evidence of "not up" (4 of 36 foreign
pairs up and none down is p = 0.0625 under the sign test), so the candidate is rejected
when its observed false-trigger rise (the mean paired change over the foreign pairs)
exceeds ``FALSE_TRIGGER_TOLERANCE``, or when the rise is significant at ``alpha``. With 36
foreign pairs one extra false trigger (+0.028) is within the tolerance; two are not. Ties
reject.

``RouteAnswers`` keeps the routing replies of one run of nights, by the exact call (the
target, the routing prompt's messages, the sampling parameters and the sample's seed):
every skill's night of a run shows the target the same installed cards and the same tasks,
and so do the before/after measurements and the next nights while no description changed.
A stored reply is exactly the answer that call would be asked for (the same sample, never
another sample served again), so a simulated night's results are unchanged and a real
model's stored reply is an honest sample of it. A failed call is never stored. The
pipeline keeps a run's new replies in the archive and gives them to the project's next
runs (``archive.route_replies``, for a week), so a real night routes again only what a
changed description or a new task asks; the proof's nights share one store the same way.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    HandoffPending,
    ModelError,
    RoleUnavailable,
)
from skillopt_sleep.models.base import LLM, tag
from skillopt_sleep.models.cache import call_key
from skillopt_sleep.night import catalogue
from skillopt_sleep.night.gate import GateTest
from skillopt_sleep.records import Message, Task

ROUTE_SYSTEM = (
    "A coding agent has the skills listed below installed. It loads a skill only when the "
    "skill's description fits the task at hand. Decide which one skill it loads for the "
    "task, or none. Reply with the skill's name alone, or the single word none."
)
NONE_WORDS = frozenset({"none", "no skill", "no", "null", "nothing", "n/a"})
ROUTE_MAX_TOKENS = 32
FALSE_TRIGGER_TOLERANCE = 0.05
"""The largest observed false-trigger rise a description may bring (see the module)."""


@dataclass(frozen=True)
class SkillCard:
    """An installed skill as the agent's router sees it: its name and description."""

    name: str
    description: str


def route_messages(cards: Sequence[SkillCard], task: Task) -> list[Message]:
    """The routing prompt: every installed skill's card and one task."""
    rows = [{"name": c.name, "description": c.description} for c in cards]
    user = (
        f"<installed_skills>\n{json.dumps(rows, ensure_ascii=False, indent=1)}\n"
        f"</installed_skills>\n<task>\n{task.intent}\n</task>\n"
        "Which skill does the agent load for this task? Reply with its name only, or none."
    )
    return [
        {"role": "system", "content": tag(ROUTE_SYSTEM)},
        {"role": "user", "content": tag(user)},
    ]


_STRIP = " \t\r\n`'\"*_.:!»«“”‘’[]()<>"


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])")


def parse_choice(reply: str, names: Sequence[str]) -> str | None:
    """The installed skill a routing reply names, or None for "none"; ``ValueError`` when
    the reply names neither (it is then a failed pick, never a wrong one)."""
    text = reply.strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        value = data.get("skill", data.get("name"))
        text = "none" if value is None else str(value)
    by_lower = {n.lower(): n for n in names}
    for candidate in (text, text.splitlines()[0] if text else ""):
        word = candidate.strip(_STRIP).lower()
        word = word.removeprefix("skill:").strip(_STRIP)
        if word in by_lower:
            return by_lower[word]
        if word in NONE_WORDS:
            return None
    low = text.lower()
    mentioned = [n for n in sorted(names, key=len, reverse=True) if _word(n).search(low)]
    # A shorter name inside a longer mentioned one ("review" in "code-review") is not a pick.
    mentioned = [n for n in mentioned
                 if not any(n != m and _word(n).search(m.lower()) for m in mentioned)]
    if len(mentioned) == 1:
        return mentioned[0]
    if not mentioned and re.search(r"\bnone\b", low):
        return None
    shown = text[:80]
    raise ValueError(f"routing reply names {'several' if mentioned else 'no'} installed "
                     f"skill(s): {shown!r}")


@dataclass(frozen=True)
class Pick:
    """One routing answer: which skill the target loads for one sample of one task."""

    task_id: str
    sample: int
    own: bool
    """The task is one of the skill's own (else another skill's)."""
    picked: str | None
    error: str = ""

    @property
    def usable(self) -> bool:
        return not self.error


def route_key(target: str, scope: str, messages: Sequence[Message], temperature: float,
              seed: int) -> str:
    """The key of one routing call to the target named ``target`` (``scope``: its
    ``cache_scope``, if any)."""
    return call_key(f"{target}#{scope}", messages, max_tokens=ROUTE_MAX_TOKENS,
                    temperature=temperature, seed=seed, tools=None)


class RouteAnswers:
    """Routing replies already had within one run of nights (see the module), shared by
    every night of the run that routes with the same target; ``stored``: replies earlier
    runs kept (``archive.route_replies``), by call key. Thread-safe."""

    def __init__(self, stored: Mapping[str, str] | None = None) -> None:
        self._replies: dict[str, str] = dict(stored or {})
        self._stored = frozenset(self._replies)
        self._lock = threading.Lock()
        self.asked = 0
        """Calls made through this store (successful or not)."""
        self.reused = 0
        """Calls answered from it instead."""

    @staticmethod
    def key(target: LLM, messages: Sequence[Message], temperature: float, seed: int) -> str:
        # A simulated target answers by its own seed too (``cache_scope``), as in models.cache.
        return route_key(target.name, getattr(target, "cache_scope", ""), messages,
                         temperature, seed)

    def reply(self, target: LLM, messages: Sequence[Message], temperature: float,
              seed: int) -> str:
        """The target's reply to this routing call: stored, else asked (and then stored).
        A failed call raises as ``complete`` does and stores nothing."""
        key = self.key(target, messages, temperature, seed)
        with self._lock:
            stored = self._replies.get(key)
            if stored is not None:
                self.reused += 1
                return stored
            self.asked += 1
        text = _ask(target, messages, temperature, seed)
        with self._lock:
            # Two threads asking the same call at once both got a sample of it; keep the first.
            return self._replies.setdefault(key, text)

    def new(self) -> dict[str, str]:
        """The replies this run asked for (not those it was given), by call key."""
        with self._lock:
            return {k: v for k, v in self._replies.items() if k not in self._stored}


def _ask(target: LLM, messages: Sequence[Message], temperature: float, seed: int) -> str:
    return target.complete(messages, max_tokens=ROUTE_MAX_TOKENS, temperature=temperature,
                           seed=seed).text


def route_one(target: LLM, cards: Sequence[SkillCard], task: Task, sample: int, own: bool,
              temperature: float, answers: RouteAnswers | None = None) -> Pick:
    """Ask the target once (or take the run's stored reply to the same call from
    ``answers``); a failed call or unreadable reply is a failed pick."""
    messages = route_messages(cards, task)
    try:
        text = (answers.reply(target, messages, temperature, sample) if answers is not None
                else _ask(target, messages, temperature, sample))
    except (AuthError, BudgetExceeded, HandoffPending, RoleUnavailable):
        raise
    except ModelError as exc:
        return Pick(task.id, sample, own, None, error=f"model call failed: {exc}")
    try:
        picked = parse_choice(text, [c.name for c in cards])
    except ValueError as exc:
        return Pick(task.id, sample, own, None, error=str(exc))
    return Pick(task.id, sample, own, picked)


def installed(skill: str, description: str, others: Sequence[SkillCard]) -> list[SkillCard]:
    """The cards a routing prompt shows: ``skill`` with ``description`` beside ``others``
    (any card of ``skill`` among them left out), by name, fitted to the target's context
    (``catalogue.fit``: cut, never dropped)."""
    cards = [*(c for c in others if c.name != skill), SkillCard(skill, description)]
    fitted = catalogue.fit([(c.name, c.description) for c in cards], own=skill)
    return sorted((SkillCard(c.name, text) for c, text in zip(cards, fitted, strict=True)),
                  key=lambda c: c.name)


class Router:
    """Routing answers for one skill against fixed other cards, cached by (the skill's
    description, task, sample): an unchanged description is never asked twice; with
    ``answers``, neither is a call another night of the run already made."""

    def __init__(self, target: LLM, skill: str, others: Sequence[SkillCard],
                 executor: Executor, temperature: float, answers: RouteAnswers | None = None):
        self.target = target
        self.skill = skill
        self.others = [c for c in others if c.name != skill]
        self.executor = executor
        self.temperature = temperature
        self.answers = answers
        self._cache: dict[tuple[str, str, int], Pick] = {}

    def cards(self, description: str) -> list[SkillCard]:
        return installed(self.skill, description, self.others)

    def picks(self, description: str, jobs: Sequence[tuple[Task, int, bool]]) -> list[Pick]:
        """Picks for ``(task, sample, own)`` jobs with this description installed."""
        cards = self.cards(description)
        missing = [(t, s, o) for t, s, o in jobs if (description, t.id, s) not in self._cache]
        futures = [self.executor.submit(route_one, self.target, cards, t, s, o,
                                        self.temperature, self.answers)
                   for t, s, o in missing]
        for (task, sample, _), future in zip(missing, futures, strict=True):
            self._cache[(description, task.id, sample)] = future.result()
        return [self._cache[(description, t.id, s)] for t, s, _ in jobs]


def jobs(own: Sequence[Task], foreign: Sequence[Task], samples: int,
         first: int = 0) -> list[tuple[Task, int, bool]]:
    """Every own and foreign task, ``samples`` times each, samples numbered from ``first``."""
    return [(t, s, is_own) for tasks, is_own in ((own, True), (foreign, False))
            for t in tasks for s in range(first, first + samples)]


@dataclass(frozen=True)
class TriggerScore:
    recall: float | None
    """Share of the usable own picks that picked the skill (None: no own task)."""
    false_triggers: float | None
    """Share of the usable foreign picks that picked the skill (None: no foreign task)."""
    own: int
    foreign: int
    failed: int

    def to_dict(self) -> dict[str, Any]:
        return {"recall": _round(self.recall), "false_triggers": _round(self.false_triggers),
                "own": self.own, "foreign": self.foreign, "failed": self.failed}


def score(skill: str, picks: Sequence[Pick]) -> TriggerScore:
    own = [p for p in picks if p.usable and p.own]
    foreign = [p for p in picks if p.usable and not p.own]
    return TriggerScore(
        recall=sum(p.picked == skill for p in own) / len(own) if own else None,
        false_triggers=sum(p.picked == skill for p in foreign) / len(foreign) if foreign
        else None,
        own=len(own),
        foreign=len(foreign),
        failed=sum(1 for p in picks if not p.usable),
    )


@dataclass(frozen=True)
class TriggerVerdict:
    accepted: bool
    reason: str
    recall_delta: float = 0.0
    false_delta: float = 0.0
    p_recall: float = 1.0
    p_false_up: float = 1.0
    own_pairs: int = 0
    foreign_pairs: int = 0


def pick_deltas(skill: str, incumbent: Sequence[Pick], candidate: Sequence[Pick]
                ) -> tuple[list[float], list[float]]:
    """The paired changes in "the target picked ``skill``" (+1 gained, −1 lost, 0 the same),
    own tasks' and other skills' apart; picks are paired by (task, sample), failed ones left
    out."""
    base = {(p.task_id, p.sample): p for p in incumbent if p.usable}
    pairs = [(base[(c.task_id, c.sample)], c) for c in candidate
             if c.usable and (c.task_id, c.sample) in base]
    own = [float(c.picked == skill) - float(i.picked == skill) for i, c in pairs if c.own]
    foreign = [float(c.picked == skill) - float(i.picked == skill)
               for i, c in pairs if not c.own]
    return own, foreign


def compare(skill: str, incumbent: Sequence[Pick], candidate: Sequence[Pick], *,
            test: GateTest, alpha: float, margin: float = 0.0,
            false_tolerance: float = FALSE_TRIGGER_TOLERANCE,
            grows: Sequence[str] = ()) -> TriggerVerdict:
    """The gate on the trigger score (see the module docstring); ``grows``: the words of the
    skill's own document the candidate adds to the incumbent, keeping all of its words
    (empty: it does not only grow by them)."""
    own, foreign = pick_deltas(skill, incumbent, candidate)
    rd = sum(own) / len(own) if own else 0.0
    fd = sum(foreign) / len(foreign) if foreign else 0.0
    p_recall, p_false = test.p_value(own), test.p_value(foreign)
    facts = TriggerVerdict(False, "", recall_delta=rd, false_delta=fd, p_recall=p_recall,
                           p_false_up=p_false, own_pairs=len(own), foreign_pairs=len(foreign))

    def verdict(accepted: bool, reason: str) -> TriggerVerdict:
        return dataclasses.replace(facts, accepted=accepted, reason=reason)

    if not test.replays:
        return verdict(True, "gate disabled")
    if not own:
        return verdict(False, "no usable pairs of the skill's own tasks")
    gain = rd > margin and p_recall < alpha
    if not gain and not (grows and rd >= 0):
        if rd <= margin:
            word = "tie" if rd == 0 else "recall down"
            return verdict(False, f"{word}: recall delta {rd:+.3f} ≤ margin {margin}")
        return verdict(False, f"recall gain not significant: p = {p_recall:.3f} ≥ "
                              f"α = {alpha:.4f}")
    if fd > 0 and p_false < alpha:
        return verdict(False, f"false triggers up by {fd:+.3f} (p = {p_false:.3f})")
    if fd > false_tolerance:
        return verdict(False, f"false triggers up by {fd:+.3f} > tolerance "
                              f"{false_tolerance} (p = {p_false:.3f})")
    if not gain:
        return verdict(True, f"recall not lower ({rd:+.3f}) and it adds only the skill's own "
                             f"words ({', '.join(grows)}), false triggers {fd:+.3f}")
    return verdict(True, f"recall up by {rd:+.3f} (p = {p_recall:.3f}), false triggers "
                         f"{fd:+.3f}")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
