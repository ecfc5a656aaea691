"""The persona simulator: a seeded target model and a seeded, fallible optimizer.

The *target* answers a task from its intent, with the skill in its system prompt. It
recognises a house rule by meaning (any line of the skill matching one of the rule's
keyword sets, so any paraphrase works), follows it with the persona's probability (lower
when the skill is bloated), meets unstated rules only by chance, and follows harmful rules
as readily as good ones. A line naming one subject applies to that subject only.

The *optimizer* reads the judge's rationales in the failure minibatch it is shown and
proposes edits of every kind a real model does: correct rules (often paraphrased),
rules overfitted to one instance, neutral platitudes, harmful rules, hostile text, and
now and then a reply that is not JSON. It is not an oracle; only the gate sorts them out.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from typing import Any

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.base import LLM, Backend, BackendOptions
from skillopt_sleep.records import Completion, Message, Usage
from skillopt_sleep.sim import contradictions, routing
from skillopt_sleep.sim.persona import Persona, Rule, load, subject_in
from skillopt_sleep.sim.wording import knob
from skillopt_sleep.skilldoc import approx_tokens

_BLOCK = re.compile(r"<(?P<tag>skill|minibatch|rejected|mode)>\n?(?P<body>.*?)\n?</(?P=tag)>", re.S)
_SKILL = re.compile(r"<skill>\n?(.*?)\n?</skill>", re.S)


def _rand(*parts: object) -> float:
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def cache_scope(persona: Persona, role: str, seed: int) -> str:
    """What a recorded answer of the simulator depends on besides the prompt and the call's
    seed: the persona (its content, not just its name), the role and the model's own seed.
    ``models.cache`` puts it in the call key, so a replay never serves another seed's answer."""
    digest = hashlib.sha256(repr(persona).encode("utf-8")).hexdigest()[:16]
    return f"{persona.name}:{digest}:{role}:{seed}"


def blocks(text: str) -> dict[str, str]:
    return {m.group("tag"): m.group("body") for m in _BLOCK.finditer(text)}


def loaded_skills(system: str) -> str:
    """Every skill loaded in a system prompt, one ``<skill>`` block each, read as one text:
    skills loaded together act together (a rule any of them states applies)."""
    return "\n".join(_SKILL.findall(system))


class SimulatedTarget:
    """A frozen target model played from a persona. Deterministic in (seed, prompt)."""

    def __init__(self, persona: Persona, seed: int = 0):
        self.persona = persona
        self.seed = seed
        self.name = "simulated"
        self.cache_scope = cache_scope(persona, "target", seed)
        self._intents = self._index_intents()
        self._read: dict[tuple[str, str], tuple[set[str], set[str]]] = {}

    def _index_intents(self) -> list[tuple[str, tuple[str, str, str]]]:
        """Every intent the persona can utter, longest first, with what it asks for."""
        found = []
        for did, spec in self.persona.deliverables.items():
            for template in spec["intents"]:
                for domain, subjects in self.persona.domains.items():
                    for subject in subjects:
                        text = template.format(subject=subject).lower()
                        found.append((text, (did, domain, subject)))
        return sorted(found, key=lambda item: len(item[0]), reverse=True)

    def _locate(self, intent: str) -> tuple[str, str, str] | None:
        low = intent.lower()
        return next((where for text, where in self._intents if text in low), None)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        system = "\n".join(m["content"] for m in messages if m["role"] == "system")
        prompt = "\n".join(m["content"] for m in messages if m["role"] == "user")
        skill = loaded_skills(system)
        where = self._locate(prompt)
        if "<installed_skills>" in prompt:  # the trigger check's routing prompt
            text = routing.route(self.persona, prompt, self._locate, self.seed, seed)
        elif where is None:
            text = "I could not tell what this task asks for."
        else:
            text = self._answer(skill, *where, sample_seed=seed)
        usage = Usage(
            input_tokens=approx_tokens(system + prompt), output_tokens=approx_tokens(text)
        )
        return Completion(text=text, usage=usage)

    def _stated(self, skill: str, subject: str) -> tuple[set[str], set[str]]:
        """Ids of good and harmful rules the skill states, for this subject."""
        good: set[str] = set()
        bad: set[str] = set()
        for line in skill.splitlines():
            scope = subject_in(self.persona, line)
            if scope is not None and scope != subject.lower():
                continue
            good.update(r.id for r in self.persona.rules if r.recognised_in(line))
            bad.update(r.id for r in self.persona.harmful if r.recognised_in(line))
            for cross in self.persona.cross:
                if cross.recognised_in(line):
                    good.add(cross.helps)
                    bad.add(cross.id)
        return good, bad

    def _draw(self, key: tuple[object, ...], skill: str, digest: str) -> float:
        shared = _rand("shared", self.seed, *key)
        own = _rand("own", self.seed, digest, *key)
        corr = self.persona.target.get("correlation", 0.5)
        return shared if _rand("mix", self.seed, *key, len(skill)) < corr else own

    def _answer(
        self, skill: str, deliverable: str, domain: str, subject: str, sample_seed: int
    ) -> str:
        t = self.persona.target
        excess = max(0, approx_tokens(skill) - t.get("free_tokens", 350))
        follow = t["follow"] * max(0.2, 1.0 - t.get("penalty_per_1k", 0.3) * excess / 1000)
        # A real skill runs to thousands of lines: read it once per (text, subject).
        digest = hashlib.sha256(skill.encode()).hexdigest()
        if (digest, subject) not in self._read:
            self._read[(digest, subject)] = self._stated(skill, subject)
        good, bad = self._read[(digest, subject)]
        key = (deliverable, domain, subject, sample_seed)
        relevant = {r.id for r in self.persona.rules_for(deliverable, domain)}
        included: list[Rule] = []
        for rule in self.persona.rules:
            p = follow if rule.id in good else t["base"] if rule.id in relevant else 0.0
            hit = self._draw((*key, rule.id), skill, digest) < p
            if _rand("noise", self.seed, digest, *key, rule.id) < t.get("noise", 0.0):
                hit = not hit
            if hit:
                included.append(rule)
        effects = [
            r.effect
            for r in (*self.persona.harmful, *self.persona.cross)
            if r.id in bad and self._draw((*key, r.id), skill, digest) < follow
        ]
        return _render(deliverable, subject, included, effects)


def _render(deliverable: str, subject: str, included: list[Rule], effects: list[str]) -> str:
    skipped = {e.split(":", 1)[1] for e in effects if e.startswith("skip:")}
    parts = [
        f"Here is the {deliverable.replace('-', ' ')} for {subject}. The work asks a clear "
        "question, sets up a careful comparison, and reports what changed and why it matters. "
        "The method section is sound and the main result is supported by the evidence given."
    ]
    parts += [r.satisfy for r in included if r.id not in skipped and r.satisfy]
    text = "\n\n".join(parts)
    if "no_headings" in effects:
        text = re.sub(r"^#+\s*", "", text, flags=re.M)
    for effect in effects:
        if effect.startswith("truncate:"):
            text = text[: int(effect.split(":", 1)[1])]
    return text


class SimulatedOptimizer:
    """A fallible optimizer played from a persona. Deterministic in (seed, prompt)."""

    def __init__(self, persona: Persona, seed: int = 0):
        self.persona = persona
        self.seed = seed
        self.name = "simulated"
        self.cache_scope = cache_scope(persona, "optimizer", seed)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        prompt = "\n".join(m["content"] for m in messages)
        rng = random.Random(f"{self.seed}:{seed}:{hashlib.sha256(prompt.encode()).hexdigest()}")
        opt = self.persona.optimizer
        if rng.random() < float(opt.get("garbage", 0.0)):
            text = "Here are my suggestions: add more structure and cite sources."
        elif "<mode>description</mode>" in prompt:  # the trigger check's description prompt
            locate = SimulatedTarget(self.persona, self.seed)._locate
            text = json.dumps({"descriptions": routing.propose(self.persona, prompt, locate, rng)})
        elif "<mode>contradiction</mode>" in prompt:  # the cross check's text-level look
            text = json.dumps({"contradictions": contradictions.flags(self.persona, prompt, rng)})
        elif "<mode>demands</mode>" in prompt:  # the own look at the skill's demands
            text = json.dumps({"contradictions": contradictions.own_flags(self.persona, prompt,
                                                                          rng)})
        else:
            text = json.dumps({"edits": self._propose(prompt, rng)})
        return Completion(text=text, usage=Usage(approx_tokens(prompt), approx_tokens(text)))

    def _propose(self, prompt: str, rng: random.Random) -> list[dict[str, Any]]:
        parts = blocks(prompt)
        mode = parts.get("mode", "failures").strip()
        items = _json_list(parts.get("minibatch", "[]"))
        rejected = {_norm(str(r.get("text", ""))) for r in _json_list(parts.get("rejected", "[]"))}
        entries = [
            line[2:].strip()
            for line in parts.get("skill", "").splitlines()
            if line.startswith("- ")
        ]
        name = routing.skill_name(self.persona, parts.get("skill", ""))
        if mode == "successes":
            if rng.random() < 0.5:
                return []
            return [{"op": "append", "text": self._neutral_text(rng),
                     "rationale": "consolidate what worked"}]
        failing = self._failing_rules(items)
        count = int(self.persona.optimizer.get("per_batch", 3)) if mode == "failures" else 2
        edits: list[dict[str, Any]] = []
        for _ in range(count):
            edit = self._one(rng, failing, items, entries, name)
            if edit and _norm(edit.get("text", "")) in rejected:
                edit = self._one(rng, failing, items, entries, name)  # the buffer steers away
            if edit:
                edits.append(edit)
        return edits

    def _failing_rules(self, items: list[dict[str, Any]]) -> dict[str, list[str]]:
        """Rule id -> ids of the tasks whose grader rationale names a failed check that reads,
        by meaning, as that rule (whatever the judge's exact wording of the check)."""
        seen: dict[str, list[str]] = {}
        for item in items:
            rationale = str(item.get("rationale", ""))
            failed = (
                rationale.removeprefix("failed: ").split("; ")
                if rationale.startswith("failed:")
                else []
            )
            for rule in self.persona.rules:
                if any(rule.recognised_in(check) for check in failed):
                    seen.setdefault(rule.id, []).append(str(item.get("task_id", "")))
        return seen

    def _one(
        self,
        rng: random.Random,
        failing: dict[str, list[str]],
        items: list[dict[str, Any]],
        entries: list[str],
        skill: str = "",
    ) -> dict[str, Any] | None:
        """One proposal, of a kind drawn with the persona's optimizer weights."""
        opt = self.persona.optimizer
        # "cross" last: with no weight (a one-skill persona) the draws are what they were.
        kinds = ["correct", "overfit", "neutral", "harmful", "hostile", "cross"]
        kind = rng.choices(kinds, weights=[float(opt.get(k, 0.0)) for k in kinds])[0]
        ids = [str(i.get("task_id", "")) for i in items]
        if kind in ("correct", "overfit") and failing:
            return self._rule_edit(rng, failing, items if kind == "overfit" else [])
        if kind == "cross" and (edit := self._cross_edit(rng, failing, skill)):
            return edit
        if kind == "harmful":
            return self._harmful_edit(rng, ids, entries)
        if kind == "hostile" and opt.get("hostile_texts"):
            return {"op": "append", "text": rng.choice(opt["hostile_texts"]), "rationale": "setup"}
        cited = [rng.choice(ids)] if ids and rng.random() < 0.5 else []
        text = self._neutral_text(rng)
        return {"op": "append", "text": text, "rationale": "clarity", "tasks": cited}

    def _neutral_text(self, rng: random.Random) -> str:
        """A platitude; with ``vocab_neutral`` above 0, that share reuses checked words
        (``sim.wording``; no draw at 0, so a persona without the knob is unchanged)."""
        opt = self.persona.optimizer
        if knob(opt, "vocab_neutral") > 0 and rng.random() < knob(opt, "vocab_neutral"):
            return str(rng.choice(opt["vocab_neutral_texts"]))
        return str(rng.choice(opt["neutral_texts"]))

    def _rule_edit(
        self, rng: random.Random, failing: dict[str, list[str]], overfit_to: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A failing rule, often paraphrased; scoped to one subject when overfitting."""
        names = list(failing)
        rule = self.persona.rule(rng.choices(names, weights=[len(failing[n]) for n in names])[0])
        wording = rule.text
        if rng.random() < float(self.persona.optimizer.get("paraphrase", 0.5)) and rule.paraphrases:
            wording = rng.choice(rule.paraphrases)
        unworded = knob(self.persona.optimizer, "unworded")
        if unworded > 0 and rule.unworded and rng.random() < unworded:
            wording = rng.choice(rule.unworded)  # no checked word (``sim.wording``)
        cited = failing[rule.id]
        if overfit_to:
            item = rng.choice(overfit_to)
            subject = subject_in(self.persona, str(item.get("intent", "")))
            if subject:
                wording = f"When working on {subject}: {wording[0].lower()}{wording[1:]}"
                cited = [str(item.get("task_id", ""))]
        return {"op": "append", "text": wording, "rationale": f"fixes {rule.id}", "tasks": cited}

    def _cross_edit(
        self, rng: random.Random, failing: dict[str, list[str]], skill: str
    ) -> dict[str, Any] | None:
        """This skill's cross rule, when the house rule it reads as is failing."""
        fits = [c for c in self.persona.cross if c.skill == skill and c.helps in failing]
        if not fits:
            return None
        rule = rng.choice(fits)
        wording = rng.choice((rule.text, *rule.paraphrases))
        return {"op": "append", "text": wording, "rationale": f"fixes {rule.helps}",
                "tasks": failing[rule.helps]}

    def _harmful_edit(
        self, rng: random.Random, ids: list[str], entries: list[str]
    ) -> dict[str, Any]:
        """A harmful rule, or pruning an existing entry, blamed on a few failures."""
        cited = rng.sample(ids, k=min(len(ids), rng.randint(1, 3))) if ids else []
        if entries and rng.random() < 0.3:
            return {
                "op": "delete",
                "anchor": rng.choice(entries),
                "rationale": "prune",
                "tasks": cited,
            }
        rule = rng.choice(self.persona.harmful)
        wording = rng.choice((rule.text, *rule.paraphrases))
        vocab = knob(self.persona.optimizer, "vocab_harmful")
        if vocab > 0 and rule.vocab and rng.random() < vocab:
            wording = rng.choice(rule.vocab)  # reuses checked words (``sim.wording``)
        return {
            "op": "append",
            "text": wording,
            "rationale": "answers were too long",
            "tasks": cited,
        }


def _json_list(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def build(
    persona: str | Persona, seed: int = 0, role: str = "target"
) -> SimulatedTarget | SimulatedOptimizer:
    """The simulated model for ``role`` ("target" or "optimizer") of a persona."""
    p = persona if isinstance(persona, Persona) else load(persona)
    return SimulatedOptimizer(p, seed) if role == "optimizer" else SimulatedTarget(p, seed)


def _backend(options: BackendOptions) -> LLM:
    if options.persona is None:
        raise ConfigError("the simulated backend needs a persona (--persona NAME or PATH)")
    return build(options.persona, options.seed, options.role)


BACKEND = Backend(_backend, priced=False)
"""The ``simulated`` model backend, registered in ``skillopt_sleep.tables.MODELS``."""
