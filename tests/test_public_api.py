"""The public API is what ``skillopt_sleep.__all__`` says; changing it is a deliberate act."""

from __future__ import annotations

import subprocess
import sys

import skillopt_sleep

PUBLIC = [
    # records and errors
    "AuthError", "BudgetExceeded", "Completion", "ConfigError", "Edit", "EditOutcome",
    "GateDecision", "HandoffPending", "JudgeError", "JudgeSpec", "ModelError", "NightResult",
    "RoleUnavailable",
    "Rollout", "Score", "Session", "SkillDocError", "SkillOptError", "StoreError", "Task",
    "ToolCall", "Turn", "UnknownModelError", "Usage", "__version__",
    # running it
    "run_once", "RunOutcome", "Settings", "load_settings", "NightConfig", "prove", "ProofSpec",
    # extension points, their protocols and mocks
    "Table", "MODELS", "SOURCES", "JUDGES", "EMBEDDERS", "GATE_TESTS", "BUDGET_SCHEDULES",
    "build_llm", "LLM", "ScriptedLLM", "Backend", "BackendOptions", "Source", "MockSource",
    "Judge", "ScriptedJudge", "Embedder", "MockEmbedder",
]


def test_all_is_pinned_and_every_name_exists():
    assert sorted(skillopt_sleep.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert hasattr(skillopt_sleep, name), name
    assert sorted(dir(skillopt_sleep)) == sorted(PUBLIC)


def test_every_error_is_a_skilloptError_with_an_exit_code():
    for name in PUBLIC:
        obj = getattr(skillopt_sleep, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, skillopt_sleep.SkillOptError)
            assert isinstance(obj.exit_code, int)
    assert skillopt_sleep.HandoffPending.exit_code == 3


def test_each_protocol_has_its_mock():
    s = skillopt_sleep
    assert isinstance(s.ScriptedLLM("hi"), s.LLM)
    assert isinstance(s.MockSource([]), s.Source)
    assert isinstance(s.ScriptedJudge(s.Score(hard=1.0, soft=1.0)), s.Judge)
    assert isinstance(s.MockEmbedder(), s.Embedder)


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, skillopt_sleep; heavy = {'numpy', 'faiss', 'torch', 'scipy', "
            "'anthropic', 'openai'} & set(sys.modules); print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_attributes_are_attribute_errors():
    try:
        skillopt_sleep.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("no AttributeError")
