from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.errors import AssertionFailed
from skillopt_sleep.night.config import NightConfig
from skillopt_sleep.sim.prove import ProofSpec, check, prove

FIELDS = {"persona", "seed", "nights", "baseline_test", "after_test", "ungated_after_test",
          "edits_proposed", "edits_accepted", "harmful_proposed", "harmful_accepted",
          "overfit_proposed", "overfit_accepted", "neutral_proposed", "neutral_accepted",
          "firewall_rejected", "model_calls", "seconds", "target_calls", "optimizer_calls",
          "judge_calls", "ungated_calls", "abstained_nights", "failed_calls", "test_calls",
          "cross_skill_rejected", "retired", "own_look_rejected", "own_look_rejected_harmful"}


def test_proof_is_deterministic_for_a_seed():
    a, b = prove(ProofSpec(seed=5)), prove(ProofSpec(seed=5))
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_proof_improves_and_gate_beats_no_gate():
    # A seed whose optimizer proposes hostile text as well as harmful edits.
    s = prove(ProofSpec(seed=4))
    check(s)
    assert s["after_test"] > s["ungated_after_test"]
    assert s["harmful_proposed"] > 0 and s["harmful_accepted"] == 0
    assert s["firewall_rejected"] > 0


def test_check_fails_when_the_gate_is_off():
    s = prove(ProofSpec(seed=1, gate=False))
    with pytest.raises(AssertionFailed):
        check(s)


def test_check_fails_when_a_cross_skill_harmful_edit_was_accepted():
    s = prove(ProofSpec(seed=1))
    check(s)
    with pytest.raises(AssertionFailed, match="1 cross-skill harmful edit"):
        check(s | {"cross_accepted": 1})


def test_prove_assert_improves_exits_1_when_the_cross_rule_got_in():
    """duo without the gate (the cross check goes with it) accepts its cross rule."""
    duo = str(Path(__file__).parent / "fixtures" / "personas" / "duo.toml")
    cmd = [sys.executable, "-m", "skillopt_sleep", "prove", "--persona", duo, "--no-gate",
           "--assert-improves", "--json", "--seed", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout)["cross_accepted"] >= 1
    assert done.returncode == 1 and "cross-skill harmful edit(s) accepted" in done.stderr


def test_prove_cli_json_contract_and_exit_codes():
    cmd = [sys.executable, "-m", "skillopt_sleep", "prove", "--persona", "researcher",
           "--assert-improves", "--json", "--seed", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= FIELDS and data["persona"] == "researcher"
    bad = subprocess.run([*cmd, "--no-gate"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "proof failed" in bad.stderr
    typo = subprocess.run([*cmd, "--nigths", "2"], capture_output=True, text=True, timeout=60)
    assert typo.returncode == 2


def test_run_experiment_script_is_the_proof_run():
    import pathlib

    script = pathlib.Path(__file__).resolve().parent.parent / "experiments" / "run_experiment.py"
    done = subprocess.run([sys.executable, str(script), "--persona", "researcher", "--json",
                           "--assert-improves", "--seed", "3", "--nights", "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nights"] == 2


def test_gate_options_reach_the_night():
    # A level no comparison can reach (the sign test needs about 100 straight wins): at 1e-9,
    # a lead the noise probe deepens can hold the 30 it takes for a clear rule.
    strict = prove(ProofSpec(seed=4, config=NightConfig(alpha=1e-30)))
    assert strict["edits_accepted"] == 0 and strict["after_test"] == strict["baseline_test"]
    perm = prove(ProofSpec(seed=4, config=NightConfig(gate_test="permutation", no_regression=True)))
    assert perm["harmful_accepted"] == 0


def test_calls_are_counted_per_arm_and_role_and_do_not_depend_on_concurrency():
    one = prove(ProofSpec(seed=1, nights=2, concurrency=1))
    many = prove(ProofSpec(seed=1, nights=2, concurrency=8))
    drop = ("seconds",)
    assert {k: v for k, v in one.items() if k not in drop} == {
        k: v for k, v in many.items() if k not in drop}
    gated = one["target_calls"] + one["optimizer_calls"] + one["judge_calls"]
    assert one["model_calls"] == gated + one["ungated_calls"]
    assert one["optimizer_calls"] > 0 and one["failed_calls"] == 0 and one["judge_calls"] == 0
    assert one["abstained_nights"] == 0
    # The test sample is scored once for the first skill and once for the last: 2 × its size.
    from skillopt_sleep.night.measure import measured
    from skillopt_sleep.sim import persona as personas

    test_tasks = [t for t in personas.tasks(personas.load("researcher"), 1) if t.split == "test"]
    assert one["test_tasks"] == len(measured(test_tasks, 48)) < len(test_tasks)
    assert one["test_calls"] == 2 * one["test_tasks"]
    solo = prove(ProofSpec(seed=1, nights=2, gate=False))
    assert solo["ungated_calls"] == 0 and solo["target_calls"] > 0


def test_failed_calls_are_counted():
    from skillopt_sleep.errors import ModelError
    from skillopt_sleep.sim import persona as personas
    from skillopt_sleep.sim.models import build

    p = personas.load("researcher")

    class Flaky:
        name = "flaky"

        def __init__(self, inner):
            self.inner, self.n = inner, 0

        def complete(self, messages, **kw):
            self.n += 1
            if self.n % 10 == 0:
                raise ModelError("server said 503")
            return self.inner.complete(messages, **kw)

    summary = prove(ProofSpec(seed=0, nights=1, gate=False),
                    models=lambda spec, role, seed: Flaky(build(p, seed, role)))
    assert summary["failed_calls"] > 0
