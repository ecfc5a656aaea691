"""The records every stage shares, from harvest to adoption.

All are frozen-ish dataclasses with a JSON round-trip (``to_dict`` / ``from_dict`` in
``_codec``). Data flows down the pipeline: a harvester produces ``Session``s, the miner
``Task``s, the night ``Rollout``s, ``Edit``s and ``GateDecision``s, all summed up in a
``NightResult``. Nothing here knows about transcript formats or model providers.
"""

from __future__ import annotations

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
