"""skillopt-sleep: nightly, offline, validation-gated self-evolution of coding-agent skills.

The public API is ``__all__`` below (a test pins it); every submodule is internal and may
change without notice. Names load on first use, so ``import skillopt_sleep`` stays cheap
for the CLI and the idle daemon: the night's numeric stack (numpy, faiss, scipy, the SDKs)
is imported only by what needs it.

- Run a night: ``run_once(project, settings=load_settings())`` -> ``RunOutcome``.
- The proof: ``prove(ProofSpec(persona="researcher"))`` -> the ``prove --json`` summary.
- Models: ``build_llm("anthropic:claude-haiku-4-5")`` -> ``LLM``; ``ScriptedLLM`` is its mock.
- Extension points, each a name table: ``MODELS`` (``Backend``), ``SOURCES`` (``Source``,
  mock ``MockSource``), ``JUDGES`` (``Judge``, mock ``ScriptedJudge``), ``EMBEDDERS``
  (``Embedder``, mock ``MockEmbedder``), ``GATE_TESTS``, ``BUDGET_SCHEDULES``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillopt_sleep.config import Settings
    from skillopt_sleep.config import load as load_settings
    from skillopt_sleep.errors import (
        AuthError,
        BudgetExceeded,
        ConfigError,
        HandoffPending,
        JudgeError,
        ModelError,
        RoleUnavailable,
        SkillDocError,
        SkillOptError,
        StoreError,
        UnknownModelError,
    )
    from skillopt_sleep.harvest.base import Source
    from skillopt_sleep.harvest.mock import MockSource
    from skillopt_sleep.judges.base import Judge, ScriptedJudge
    from skillopt_sleep.mine.embed import Embedder, MockEmbedder
    from skillopt_sleep.models.base import LLM, Backend, BackendOptions, ScriptedLLM
    from skillopt_sleep.models.registry import build_llm
    from skillopt_sleep.night.config import NightConfig
    from skillopt_sleep.pipeline.run import RunOutcome, run_once
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
    from skillopt_sleep.sim.prove import ProofSpec, prove
    from skillopt_sleep.tables import (
        BUDGET_SCHEDULES,
        EMBEDDERS,
        GATE_TESTS,
        JUDGES,
        MODELS,
        SOURCES,
        Table,
    )

__version__ = "0.1.0"

_LAZY = {
    "AuthError": "skillopt_sleep.errors:AuthError",
    "BudgetExceeded": "skillopt_sleep.errors:BudgetExceeded",
    "ConfigError": "skillopt_sleep.errors:ConfigError",
    "HandoffPending": "skillopt_sleep.errors:HandoffPending",
    "JudgeError": "skillopt_sleep.errors:JudgeError",
    "ModelError": "skillopt_sleep.errors:ModelError",
    "RoleUnavailable": "skillopt_sleep.errors:RoleUnavailable",
    "SkillDocError": "skillopt_sleep.errors:SkillDocError",
    "SkillOptError": "skillopt_sleep.errors:SkillOptError",
    "StoreError": "skillopt_sleep.errors:StoreError",
    "UnknownModelError": "skillopt_sleep.errors:UnknownModelError",
    "Completion": "skillopt_sleep.records:Completion",
    "Edit": "skillopt_sleep.records:Edit",
    "EditOutcome": "skillopt_sleep.records:EditOutcome",
    "GateDecision": "skillopt_sleep.records:GateDecision",
    "JudgeSpec": "skillopt_sleep.records:JudgeSpec",
    "NightResult": "skillopt_sleep.records:NightResult",
    "Rollout": "skillopt_sleep.records:Rollout",
    "Score": "skillopt_sleep.records:Score",
    "Session": "skillopt_sleep.records:Session",
    "Task": "skillopt_sleep.records:Task",
    "ToolCall": "skillopt_sleep.records:ToolCall",
    "Turn": "skillopt_sleep.records:Turn",
    "Usage": "skillopt_sleep.records:Usage",
    "BUDGET_SCHEDULES": "skillopt_sleep.tables:BUDGET_SCHEDULES",
    "EMBEDDERS": "skillopt_sleep.tables:EMBEDDERS",
    "GATE_TESTS": "skillopt_sleep.tables:GATE_TESTS",
    "JUDGES": "skillopt_sleep.tables:JUDGES",
    "MODELS": "skillopt_sleep.tables:MODELS",
    "SOURCES": "skillopt_sleep.tables:SOURCES",
    "Table": "skillopt_sleep.tables:Table",
    "Settings": "skillopt_sleep.config:Settings",
    "load_settings": "skillopt_sleep.config:load",
    "Source": "skillopt_sleep.harvest.base:Source",
    "MockSource": "skillopt_sleep.harvest.mock:MockSource",
    "Judge": "skillopt_sleep.judges.base:Judge",
    "ScriptedJudge": "skillopt_sleep.judges.base:ScriptedJudge",
    "Embedder": "skillopt_sleep.mine.embed:Embedder",
    "MockEmbedder": "skillopt_sleep.mine.embed:MockEmbedder",
    "LLM": "skillopt_sleep.models.base:LLM",
    "Backend": "skillopt_sleep.models.base:Backend",
    "BackendOptions": "skillopt_sleep.models.base:BackendOptions",
    "ScriptedLLM": "skillopt_sleep.models.base:ScriptedLLM",
    "build_llm": "skillopt_sleep.models.registry:build_llm",
    "NightConfig": "skillopt_sleep.night.config:NightConfig",
    "RunOutcome": "skillopt_sleep.pipeline.run:RunOutcome",
    "run_once": "skillopt_sleep.pipeline.run:run_once",
    "ProofSpec": "skillopt_sleep.sim.prove:ProofSpec",
    "prove": "skillopt_sleep.sim.prove:prove",
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'skillopt_sleep' has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "BUDGET_SCHEDULES",
    "EMBEDDERS",
    "GATE_TESTS",
    "JUDGES",
    "LLM",
    "MODELS",
    "SOURCES",
    "AuthError",
    "Backend",
    "BackendOptions",
    "BudgetExceeded",
    "Completion",
    "ConfigError",
    "Edit",
    "EditOutcome",
    "Embedder",
    "GateDecision",
    "HandoffPending",
    "Judge",
    "JudgeError",
    "JudgeSpec",
    "MockEmbedder",
    "MockSource",
    "ModelError",
    "NightConfig",
    "NightResult",
    "ProofSpec",
    "RoleUnavailable",
    "Rollout",
    "RunOutcome",
    "Score",
    "ScriptedJudge",
    "ScriptedLLM",
    "Session",
    "Settings",
    "SkillDocError",
    "SkillOptError",
    "Source",
    "StoreError",
    "Table",
    "Task",
    "ToolCall",
    "Turn",
    "UnknownModelError",
    "Usage",
    "__version__",
    "build_llm",
    "load_settings",
    "prove",
    "run_once",
]
