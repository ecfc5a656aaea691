from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.models.base import ScriptedLLM
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.night.memory import recall, remember
from skillopt_sleep.night.merge import clip, merge
from skillopt_sleep.night.reflect import parse_edits
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.records import SENTINEL, Edit, JudgeSpec, Message, Task, to_dict
from skillopt_sleep.sim import persona as personas

GOOD = "Always end with a line 'Tests: pytest -q'."
HARMFUL = "Keep answers under 40 characters."


def make_tasks() -> list[Task]:
    judge = JudgeSpec(
        kind="rules", checks=[{"op": "contains", "text": "pytest -q"}, {"op": "min_chars", "n": 60}]
    )
    splits = ["train"] * 4 + ["validation"] * 8 + ["test"] * 8
    return [
        Task(id=f"t{i}", family_id=f"f{i}", intent=f"fix bug number {i}", judge=judge, split=s)
        for i, s in enumerate(splits)
    ]


def target_reply(messages: Sequence[Message], seed: int) -> str:
    """A deterministic target: follows GOOD and HARMFUL if the skill states them."""
    system = messages[0]["content"]
    answer = "I fixed the bug by guarding the empty list and adding a regression test for it."
    if "pytest -q" in system:
        answer += "\nTests: pytest -q"
    if "40 characters" in system:
        answer = answer[:40]
    return answer


def optimizer_reply(edits: list[dict]) -> ScriptedLLM:
    return ScriptedLLM(json.dumps({"edits": edits}), name="optimizer")


def night(tmp: Path, optimizer: ScriptedLLM, **cfg) -> tuple:
    archive = Archive(tmp / "a.sqlite3")
    inputs = NightInputs(
        tasks=make_tasks(),
        skill_text="---\nname: fix\ndescription: d\n---\nFix bugs.\n",
        skill_name="fix",
        target=ScriptedLLM(target_reply),
        optimizer=optimizer,
        night_id="n1",
        project="p",
        memory=recall(archive, "p", "fix"),
        config=NightConfig(steps=1, slow_update=False, **cfg),
    )
    result = run_night(inputs)
    remember(archive, result)
    return result, archive


def test_harmful_edit_rejected_even_when_proposed_with_helpful_one(tmp_path: Path):
    opt = optimizer_reply(
        [
            {"op": "append", "text": HARMFUL, "tasks": ["t0", "t1", "t2"]},
            {"op": "append", "text": GOOD, "tasks": ["t0", "t1"]},
        ]
    )
    result, _ = night(tmp_path, opt)
    verdicts = {d.edit.text: d for d in result.decisions if d.stage == "gate"}
    assert verdicts[GOOD].accepted and not verdicts[HARMFUL].accepted
    assert GOOD in result.skill_after and HARMFUL not in result.skill_after
    assert result.after_test is not None and result.after_test > (result.baseline_test or 0)


def test_gate_off_lets_the_harmful_edit_in(tmp_path: Path):
    opt = optimizer_reply([{"op": "append", "text": GOOD}, {"op": "append", "text": HARMFUL}])
    result, _ = night(tmp_path, opt, gate_test="accept-all")
    assert HARMFUL in result.skill_after


def test_rejected_edit_reaches_the_next_reflection_and_is_not_regated(tmp_path: Path):
    opt = optimizer_reply([{"op": "append", "text": HARMFUL, "tasks": ["t0", "t1"]}])
    first, archive = night(tmp_path, opt)
    assert [d.stage for d in first.decisions] == ["gate"]
    archive.close()
    second, _ = night(tmp_path, opt)
    prompt = opt.calls[-1][1]["content"]
    rejected = json.loads(prompt.split("<rejected>\n")[1].split("\n</rejected>")[0])
    assert HARMFUL in [r["text"] for r in rejected]
    assert [d.stage for d in second.decisions] == ["merge"]


def test_garbage_optimizer_is_recorded_not_fatal(tmp_path: Path):
    result, _ = night(tmp_path, ScriptedLLM("I think the skill is fine as it is."))
    assert result.skill_after == result.skill_before
    assert any("not edit JSON" in n for n in result.notes)


def test_every_prompt_starts_with_the_sentinel(tmp_path: Path):
    opt = optimizer_reply([{"op": "append", "text": GOOD}])
    target = ScriptedLLM(target_reply)
    inputs = NightInputs(
        tasks=make_tasks(),
        skill_text="Fix bugs.\n",
        skill_name="fix",
        target=target,
        optimizer=opt,
        night_id="n",
        config=NightConfig(steps=1),
    )
    run_night(inputs)
    for call in target.calls + opt.calls:
        for message in call:
            assert message["content"].startswith(SENTINEL)


def test_small_validation_abstains_and_says_so(tmp_path: Path):
    tasks = [t for t in make_tasks() if t.split != "validation"] + make_tasks()[4:6]
    inputs = NightInputs(
        tasks=tasks,
        skill_text="Fix bugs.\n",
        skill_name="fix",
        target=ScriptedLLM(target_reply),
        optimizer=optimizer_reply([]),
        night_id="n",
    )
    result = run_night(inputs)
    assert "only 2 validation tasks" in result.abstained and result.skill_after == "Fix bugs.\n"


def test_merge_dedupes_counts_support_and_ranks_failures_first():
    edits = [
        Edit(op="append", text="b rule", origin="success"),
        Edit(op="append", text="A  rule"),
        Edit(op="append", text="a rule"),
        Edit(op="delete", anchor="x"),
        Edit(op="replace", anchor="x", text="y"),
    ]
    ranked, dropped = merge(edits)
    assert ranked[0].text == "A  rule" and ranked[0].support == 2
    assert ranked[-1].origin == "success"
    assert [d.stage for d in dropped] == ["merge"]
    kept, over = clip(ranked, 2)
    assert len(kept) == 2 and all(d.stage == "budget" for d in over)


def test_parse_edits_accepts_fenced_json_and_rejects_prose():
    assert parse_edits('Here:\n```json\n{"edits": [{"op": "append", "text": "x"}]}\n```', "failure")
    assert parse_edits('{"edits": [{"op": "frobnicate", "text": "x"}]}', "failure") == []
    try:
        parse_edits("no json here", "failure")
    except ValueError as exc:
        assert "not edit JSON" in str(exc)
    else:
        raise AssertionError("prose must not parse")


def test_persona_splits_never_leak_and_are_stable():
    p = personas.load("researcher")
    for seed in range(5):
        tasks = personas.tasks(p, seed)
        by_family: dict[str, set[str]] = {}
        for t in tasks:
            by_family.setdefault(t.family_id, set()).add(t.split)
        assert all(len(s) == 1 for s in by_family.values())
        assert sum(t.split == "validation" for t in tasks) >= 6
        assert not any(t.synthetic and t.split != "train" for t in tasks)
    # Stable across processes, whatever Python's string hashing seed (nights are processes).
    code = ("import json; from skillopt_sleep.sim import persona as personas; "
            "p = personas.load('researcher'); "
            "print(json.dumps([[t.id, t.split] for s in range(5) for t in personas.tasks(p, s)]))")
    elsewhere = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert json.loads(elsewhere.stdout) == [[t.id, t.split] for s in range(5)
                                            for t in personas.tasks(p, s)]


def test_a_refused_secret_never_reaches_the_buffer_the_result_or_a_prompt(tmp_path: Path):
    key = "sk-ant-api03-Xq7Lm2Pz9Rt4Vb8Nc1Kd5Fg3Hj6Mw0Ye2Ua4Io8Sp7Tq-AbCdEfGh"
    opt = optimizer_reply([{"op": "append", "text": f"Call the API with {key}."}])
    result, archive = night(tmp_path, opt)
    assert [d.stage for d in result.decisions] == ["firewall"]
    stored = json.dumps([json.loads(r[0]) for r in archive.conn.execute(
        "SELECT edit_json FROM rejected_edits")])
    assert key not in stored and key not in json.dumps(to_dict(result))
    archive.close()
    night(tmp_path, opt)
    assert all(key not in m["content"] for m in opt.calls[-1])


def test_after_an_accept_the_winners_pairs_serve_the_next_gate_but_never_its_report(
    tmp_path: Path,
):
    asked: list[tuple[str, str, int]] = []

    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append((messages[0]["content"], messages[-1]["content"], seed))
        return target_reply(messages, seed)

    opt = optimizer_reply([{"op": "append", "text": GOOD, "tasks": ["t0", "t1", "t2"]},
                           {"op": "append", "text": "Name the failing test.",
                            "tasks": ["t2", "t3"]}])
    inputs = NightInputs(tasks=make_tasks(), skill_text="Fix bugs.\n", skill_name="fix",
                         target=ScriptedLLM(target), optimizer=opt, night_id="n",
                         config=NightConfig(steps=1, slow_update=False, gate_test="sign",
                                            score_test=False, min_val_pairs=24))
    result = run_night(inputs)
    verdicts = [d for d in result.decisions if d.stage == "gate"]
    assert verdicts[0].accepted and verdicts[1].n_pairs == 24
    # 8 validation tasks x 3 repeats. The winner answered samples 0-2 once, in its own
    # gate: the second gate compared against those answers instead of replaying them
    # (biased up by the win, so only ever harder for the next candidate).
    winner = [(u, seed) for system, u, seed in asked
              if GOOD in system and "failing test" not in system and "bug number" in u]
    val = [t for t in make_tasks() if t.split == "validation"]
    assert len(winner) == len(set(winner))
    assert {seed for _, seed in winner} == {0, 1, 2, 3}
    # Its reported score is over samples it did not win on: one fresh round (sample 3),
    # which is also where the next night starts.
    assert sum(seed == 3 for _, seed in winner) == len(val)
    assert result.carried_first == 3
    assert all(r.sample >= 3 for _, r in result.carried if r.task_id in {t.id for t in val})


def test_merge_gives_a_near_miss_one_more_try_and_never_a_worse_edit():
    from skillopt_sleep.night.merge import settled
    from skillopt_sleep.records import GateDecision

    near = Edit(op="append", text="near miss")
    worse = Edit(op="append", text="made it worse")
    once = [GateDecision(near, False, "not significant", mean_delta=0.05),
            GateDecision(worse, False, "worse", mean_delta=-0.1)]
    assert settled(once) == {("append", "", "made it worse")}
    twice = [*once, GateDecision(near, False, "not significant", mean_delta=0.02)]
    assert ("append", "", "near miss") in settled(twice)


def test_sequential_gate_drops_a_clearly_harmful_edit_after_a_few_pairs(tmp_path: Path):
    opt = optimizer_reply([{"op": "append", "text": HARMFUL, "tasks": ["t0", "t1", "t2"]}])
    fixed, _ = night(tmp_path / "a", opt, gate_test="sign")
    early, _ = night(tmp_path / "b", opt, gate_test="sequential")
    (f,), (e,) = ([d for d in r.decisions if d.stage == "gate"] for r in (fixed, early))
    # Dropped at the sequential test's first look, three pairs in.
    assert not f.accepted and not e.accepted and "harmful" in e.reason
    assert e.n_pairs == 3 < f.n_pairs == 8 * 5  # 8 validation tasks, min_val_pairs 36
    assert early.calls_by_role["target"] < fixed.calls_by_role["target"]


def test_the_same_seed_gives_the_same_night_at_any_concurrency():
    p = personas.load("researcher")
    from skillopt_sleep.sim.models import build

    def one(concurrency: int) -> dict:
        inputs = NightInputs(
            tasks=personas.tasks(p, 3), skill_text=p.initial_skill(), skill_name=p.skill,
            target=build(p, 3, "target"), optimizer=build(p, 3, "optimizer"), night_id="n",
            config=NightConfig(concurrency=concurrency), seed=3,
        )
        r = to_dict(run_night(inputs))
        return {k: r[k] for k in ("steps", "slow_updates", "baseline_val", "after_val",
                                  "baseline_test", "after_test", "skill_after", "calls_by_role")}

    assert one(1) == one(8)


def test_any_executor_runs_the_replays(tmp_path: Path):
    from concurrent.futures import ThreadPoolExecutor

    class Counting(ThreadPoolExecutor):
        maps = 0

        def map(self, *args, **kwargs):  # type: ignore[override]
            Counting.maps += 1
            return super().map(*args, **kwargs)

    opt = optimizer_reply([{"op": "append", "text": GOOD, "tasks": ["t0", "t1"]}])
    with Counting(max_workers=2) as pool:
        inputs = NightInputs(tasks=make_tasks(), skill_text="Fix bugs.\n", skill_name="fix",
                             target=ScriptedLLM(target_reply), optimizer=opt, night_id="n",
                             config=NightConfig(steps=1, slow_update=False), executor=pool)
        result = run_night(inputs)
    assert Counting.maps > 0 and GOOD in result.skill_after


def test_concurrency_defaults_come_from_the_backend_and_bad_values_are_refused(tmp_path: Path):
    import pytest

    from skillopt_sleep import config
    from skillopt_sleep.errors import ConfigError
    from skillopt_sleep.models.base import default_concurrency

    assert default_concurrency("claude-code") == default_concurrency("codex:gpt-5") == 2
    assert default_concurrency("anthropic:claude-haiku-4-5") == 8
    assert default_concurrency("simulated") == 8 and default_concurrency("handoff") == 1
    assert config.load(tmp_path, flags={"concurrency": 3}, env={}).concurrency == 3
    with pytest.raises(ConfigError, match="concurrency"):
        config.load(tmp_path, flags={"concurrency": -1}, env={})
    with pytest.raises(ConfigError, match="concurrency"):
        NightConfig(concurrency=0)


def test_reflection_scores_only_its_train_minibatch_and_reuses_the_incumbents(tmp_path: Path):
    train_intents = {t.intent for t in make_tasks() if t.split == "train"}
    asked: list[str] = []

    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append(messages[-1]["content"])
        return target_reply(messages, seed)

    def replays(batch: int, steps: int, probe: int = 0) -> int:
        asked.clear()
        inputs = NightInputs(tasks=make_tasks(), skill_text="Fix bugs.\n", skill_name="fix",
                             target=ScriptedLLM(target), optimizer=optimizer_reply([]),
                             night_id="n", seed=1,
                             config=NightConfig(steps=steps, slow_update=False,
                                                train_batch=batch, score_test=False,
                                                noise_probe=probe))
        run_night(inputs)
        return sum(1 for a in asked if any(re.search(rf"{i}\b", a) for i in train_intents))

    assert replays(0, 1) == 4  # the whole split
    assert replays(2, 1) == 2  # only the minibatch reflection reads
    # Nothing accepted: later steps reuse the unchanged incumbent's rollouts where their
    # minibatches overlap, so three steps of 2 never cost more than the 4 tasks there are.
    assert replays(2, 3) <= 4
    # The noise probe replays the first minibatch once more, with the incumbent's twin.
    assert replays(2, 1, probe=8) == 4 and replays(0, 1, probe=3) == 7
    assert replays(2, 1) == 2


def test_no_rollout_is_drawn_twice_in_a_night_with_the_sequential_gate(tmp_path: Path):
    asked: list[tuple[str, str, int]] = []

    def target(messages: Sequence[Message], seed: int) -> str:
        asked.append((messages[0]["content"], messages[-1]["content"], seed))
        return target_reply(messages, seed)

    opt = optimizer_reply([{"op": "append", "text": GOOD, "tasks": ["t0", "t1"]},
                           {"op": "append", "text": "Name the failing test.",
                            "tasks": ["t2", "t3"]}])
    inputs = NightInputs(tasks=make_tasks(), skill_text="Fix bugs.\n", skill_name="fix",
                         target=ScriptedLLM(target), optimizer=opt, night_id="n",
                         config=NightConfig(steps=2, gate_test="sequential"))
    result = run_night(inputs)
    gated = [d for d in result.decisions if d.stage == "gate"]
    assert any(d.accepted for d in gated)
    assert any(d.n_pairs < 24 for d in gated)  # stopped at an interim look
    assert len(asked) == len(set(asked))  # looks, reports and slow update share them


def test_the_validation_tasks_an_edit_touches_lead_the_pairs_with_every_sample():
    """Two of eight validation tasks are checked for a Changelog line: an edit about the
    changelog is compared on all three samples of them first, then on the other tasks in
    rounds; an edit touching nothing keeps the tasks' order."""
    from concurrent.futures import ThreadPoolExecutor

    from skillopt_sleep.night.replay import default_judge_for
    from skillopt_sleep.night.scoring import Scorer
    from skillopt_sleep.night.sequential import SEQUENTIAL
    from skillopt_sleep.skilldoc import parse

    changelog = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "Changelog entry:"}])
    tasks = [replace(t, judge=changelog) if t.id in ("t9", "t11") else t for t in make_tasks()]
    splits = {s: [t for t in tasks if t.split == s] for s in ("train", "validation", "test")}

    def order(line: str) -> list[int]:
        asked: list[int] = []

        def target(messages: Sequence[Message], seed: int) -> str:
            if line in messages[0]["content"]:
                asked.append(int(re.findall(r"number (\d+)", messages[-1]["content"])[0]))
            return target_reply(messages, seed)

        with ThreadPoolExecutor(1) as pool:
            scorer = Scorer(splits, ScriptedLLM(target), default_judge_for, NightConfig(), pool)
            scorer.compare(SEQUENTIAL, parse("Fix bugs.\n"), parse(f"Fix bugs.\n{line}\n"),
                           0, 3, line)
        return asked

    touched = order("Add a changelog entry.")
    assert len(touched) >= 3
    assert touched == [9, 11, 9, 11, 9, 11, 4, 5, 6, 7, 8, 10][:len(touched)]
    untouched = order("Prefer small steps.")
    assert len(untouched) >= 3 and untouched == [4, 5, 6, 7, 8, 9, 10, 11][:len(untouched)]



def test_a_restatement_of_the_skill_is_screened_at_the_first_look(tmp_path: Path):
    # The tasks are checked for "pytest -q"; the edit speaks of pytest and changes no answer.
    # Where the skill speaks of it already, the edit is dropped at the first look; where it
    # brings the word, at the second, as any new rule.
    again = "Mention the pytest command only in passing."

    def decided(skill: str, screen: str = "words") -> tuple[int, str]:
        opt = optimizer_reply([{"op": "append", "text": again, "tasks": ["t0", "t1"]}])
        archive = Archive(tmp_path / f"{len(skill)}{screen}.sqlite3")
        result = run_night(NightInputs(
            tasks=make_tasks(), skill_text=f"---\nname: fix\ndescription: d\n---\n{skill}\n",
            skill_name="fix", target=ScriptedLLM(target_reply), optimizer=opt, night_id="n1",
            project="p", memory=recall(archive, "p", "fix"),
            config=NightConfig(steps=1, slow_update=False, screen=screen)))
        d = next(d for d in result.decisions if d.stage == "gate")
        return d.n_pairs, d.reason

    assert decided(GOOD)[0] == 3 and "useless" in decided(GOOD)[1]
    assert decided("Fix bugs.")[0] == 6 and "useless" in decided("Fix bugs.")[1]
    # Read from the answers (the default), it changed none at the first look either way:
    # familiar, whatever its words and the skill's.
    for skill in (GOOD, "Fix bugs."):
        assert decided(skill, "behaviour") == (3, "dropped as useless after 3 pairs: 0 better "
                                                  "of 0 that differ")


def test_a_familiar_edit_needs_stronger_evidence_than_a_new_rule(tmp_path: Path):
    # The same effect, a changelog line on one validation task of eight, five of five pairs:
    # p = 0.031. An edit that speaks of the changelog is tested at alpha (0.05) and passes;
    # one that speaks of nothing the tasks are checked for, at familiar_alpha (0.01).
    judge = JudgeSpec(kind="rules", checks=[{"op": "contains", "text": "Changelog entry:"}])
    tasks = [replace(t, judge=judge) for t in make_tasks()]
    familiar, new = "Be thorough.", "Mention the changelog when it matters."

    def target(messages: Sequence[Message], seed: int) -> str:
        n = int(re.findall(r"number (\d+)", messages[-1]["content"])[0])
        system = messages[0]["content"]
        chance = n == 4 and (familiar in system or new in system)
        return "I fixed the bug." + ("\nChangelog entry: fixed" if chance else "")

    def decided(line: str, **cfg) -> bool:
        result = run_night(NightInputs(
            tasks=tasks, skill_text="---\nname: fix\ndescription: d\n---\nFix bugs.\n",
            skill_name="fix", target=ScriptedLLM(target), night_id="n1", project="p",
            optimizer=optimizer_reply([{"op": "append", "text": line, "tasks": ["t0", "t1"]}]),
            config=NightConfig(steps=1, slow_update=False, screen="words", **cfg)))
        return next(d for d in result.decisions if d.stage == "gate").accepted

    assert decided(new) and not decided(familiar)
    assert decided(familiar, familiar_alpha=0.05)
