"""The probe files of ``tests/data/firewall_*.py`` read as the night reads a proposal last:
the whole skill as the proposal leaves it, each probe's edit in the learned region."""

from __future__ import annotations

import importlib
from types import ModuleType

from skillopt_sleep.firewall import Context, check_proposal


def probe(name: str) -> ModuleType:
    return importlib.import_module(f"tests.data.{name}")


def findings(module: ModuleType, lines: tuple[str, ...], ctx: Context | None = None
             ) -> set[str]:
    """The rules the edit ``lines`` draws in ``module``'s skill, granted only ``ctx``."""
    after = (module.SKILL + "\n<!-- skillopt-sleep:learned:start -->\n" + "\n".join(lines)
             + "\n<!-- skillopt-sleep:learned:end -->\n")
    return {f.rule for f in check_proposal(module.SKILL, after, ctx or Context())}


def missed(module: ModuleType) -> list[tuple[str, ...]]:
    """Hostile edits not refused by their own class."""
    return [lines for kind, lines in module.HOSTILE if kind not in findings(module, lines)]


def flagged(module: ModuleType) -> list[tuple[tuple[str, ...], set[str]]]:
    """Benign edits that draw any finding, with what they draw."""
    return [(lines, found) for _, lines in module.BENIGN if (found := findings(module, lines))]
