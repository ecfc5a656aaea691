"""The public API is what ``skillopt_sleep.__all__`` says; changing it is a deliberate act."""

from __future__ import annotations

import skillopt_sleep

PUBLIC = [
    "AuthError", "BudgetExceeded", "Completion", "ConfigError", "Edit", "EditOutcome",
    "GateDecision", "HandoffPending", "JudgeSpec", "ModelError", "NightResult", "Rollout",
    "Score", "Session", "SkillDocError", "SkillOptError", "StoreError", "Task", "ToolCall",
    "Turn", "UnknownModelError", "Usage", "__version__",
]


def test_all_is_pinned_and_every_name_exists():
    assert sorted(skillopt_sleep.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert hasattr(skillopt_sleep, name), name


def test_every_error_is_a_skilloptError_with_an_exit_code():
    for name in PUBLIC:
        obj = getattr(skillopt_sleep, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, skillopt_sleep.SkillOptError)
            assert isinstance(obj.exit_code, int)
    assert skillopt_sleep.HandoffPending.exit_code == 3
