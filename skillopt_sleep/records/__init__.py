"""The records every stage shares, from harvest to adoption.

All are frozen-ish dataclasses with a JSON round-trip (``to_dict`` / ``from_dict`` in
``_codec``). Data flows down the pipeline: a harvester produces ``Session``s, the miner
``Task``s, the night ``Rollout``s, ``Edit``s and ``GateDecision``s, all summed up in a
``NightResult``. Nothing here knows about transcript formats or model providers.

Names load on first use, as the package's own ``__init__`` does: ``status`` needs
``utcnow`` and ``sha256_text`` before, and often without, the night's dataclasses, which
cost more to create than the rest of what it imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillopt_sleep._codec import from_dict, to_dict
    from skillopt_sleep.records.common import SENTINEL, Message, sha256_text, utcnow
    from skillopt_sleep.records.night import (
        Completion,
        Contradiction,
        Edit,
        EditOp,
        EditOutcome,
        FirewallFinding,
        GateDecision,
        JudgeSpec,
        NightResult,
        Rollout,
        Score,
        Split,
        StepResult,
        Task,
        Usage,
    )
    from skillopt_sleep.records.sessions import (
        FAILURE_REACTIONS,
        FAILURE_SIGNALS,
        Checkpoint,
        Reaction,
        Request,
        Session,
        Signal,
        ToolCall,
        Turn,
    )

_LAZY = {
    "from_dict": "skillopt_sleep._codec",
    "to_dict": "skillopt_sleep._codec",
    "SENTINEL": "skillopt_sleep.records.common",
    "Message": "skillopt_sleep.records.common",
    "sha256_text": "skillopt_sleep.records.common",
    "utcnow": "skillopt_sleep.records.common",
    "Completion": "skillopt_sleep.records.night",
    "Contradiction": "skillopt_sleep.records.night",
    "Edit": "skillopt_sleep.records.night",
    "EditOp": "skillopt_sleep.records.night",
    "EditOutcome": "skillopt_sleep.records.night",
    "FirewallFinding": "skillopt_sleep.records.night",
    "GateDecision": "skillopt_sleep.records.night",
    "JudgeSpec": "skillopt_sleep.records.night",
    "NightResult": "skillopt_sleep.records.night",
    "Rollout": "skillopt_sleep.records.night",
    "Score": "skillopt_sleep.records.night",
    "Split": "skillopt_sleep.records.night",
    "StepResult": "skillopt_sleep.records.night",
    "Task": "skillopt_sleep.records.night",
    "Usage": "skillopt_sleep.records.night",
    "FAILURE_REACTIONS": "skillopt_sleep.records.sessions",
    "FAILURE_SIGNALS": "skillopt_sleep.records.sessions",
    "Checkpoint": "skillopt_sleep.records.sessions",
    "Reaction": "skillopt_sleep.records.sessions",
    "Request": "skillopt_sleep.records.sessions",
    "Session": "skillopt_sleep.records.sessions",
    "Signal": "skillopt_sleep.records.sessions",
    "ToolCall": "skillopt_sleep.records.sessions",
    "Turn": "skillopt_sleep.records.sessions",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'skillopt_sleep.records' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "FAILURE_REACTIONS",
    "FAILURE_SIGNALS",
    "SENTINEL",
    "Checkpoint",
    "Completion",
    "Contradiction",
    "Edit",
    "EditOp",
    "EditOutcome",
    "FirewallFinding",
    "GateDecision",
    "JudgeSpec",
    "Message",
    "NightResult",
    "Reaction",
    "Request",
    "Rollout",
    "Score",
    "Session",
    "Signal",
    "Split",
    "StepResult",
    "Task",
    "ToolCall",
    "Turn",
    "Usage",
    "from_dict",
    "sha256_text",
    "to_dict",
    "utcnow",
]
