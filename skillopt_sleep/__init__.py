"""skillopt-sleep: nightly, offline, validation-gated self-evolution of coding-agent skills."""

from __future__ import annotations

from skillopt_sleep.errors import (
    AuthError,
    BudgetExceeded,
    ConfigError,
    HandoffPending,
    ModelError,
    SkillDocError,
    SkillOptError,
    StoreError,
    UnknownModelError,
)
from skillopt_sleep.records import (
    Completion,
    Edit,
    EditOutcome,
    GateDecision,
    JudgeSpec,
    NightResult,
    Rollout,
    Score,
    Session,
    Task,
    ToolCall,
    Turn,
    Usage,
)

__version__ = "0.1.0"

__all__ = [
    "AuthError",
    "BudgetExceeded",
    "Completion",
    "ConfigError",
    "Edit",
    "EditOutcome",
    "GateDecision",
    "HandoffPending",
    "JudgeSpec",
    "ModelError",
    "NightResult",
    "Rollout",
    "Score",
    "Session",
    "SkillDocError",
    "SkillOptError",
    "StoreError",
    "Task",
    "ToolCall",
    "Turn",
    "UnknownModelError",
    "Usage",
    "__version__",
]
