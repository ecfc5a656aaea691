"""The plan counts no routing call an earlier run already asked: a trigger check whose picks
are all stored and right costs nothing, else its upper bound less the stored calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.pipeline.plan import plan
from tests.fakes import FakeLLMServer
from tests.test_pipeline import cli, world  # noqa: F401  (the fixture)
from tests.test_route_answers import DESCRIPTIONS, _llm, _pipeline_run, _tasks, _wire_target


@pytest.fixture
def server() -> Any:
    with FakeLLMServer() as s:
        yield s


def _plan(archive: Archive, target: str, descriptions: dict[str, str]) -> dict[str, Any]:
    by_skill = {s: _tasks(s, ("train", "validation", "test")) for s in descriptions}
    return plan(Settings(target=target, optimizer="simulated"), [], by_skill, [], archive, "p",
                descriptions)


def test_a_settled_trigger_check_is_planned_at_no_call(server: FakeLLMServer,
                                                       tmp_path: Path) -> None:
    server.default = _wire_target
    name = _llm(server).name
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        first = _plan(archive, name, DESCRIPTIONS)
        asked = _pipeline_run(server, archive, "n1", DESCRIPTIONS)  # every pick right
        # The run's second night asks none of the incumbent's picks the first one asked
        # (the same installed cards, tasks and samples); the bound counts them for each.
        one, two = (s["check_calls"] for s in first["skills"])
        assert two["trigger_routing"] < one["trigger_routing"]
        assert two["trigger_routing_max"] == one["trigger_routing_max"]
        settled = _plan(archive, name, DESCRIPTIONS)
        for before, after in zip(first["skills"], settled["skills"], strict=True):
            routing = before["check_calls"]["trigger_routing"]
            assert routing > 0 and before["check_calls"]["trigger_routing_stored"] == 0
            assert after["check_calls"]["trigger_routing"] == 0
            assert after["calls"]["target"] == before["calls"]["target"] - routing
            assert after["calls"]["optimizer"] < before["calls"]["optimizer"]
        # Both skills' nights route every task with the same cards: the run's calls, each.
        assert [s["check_calls"]["trigger_routing_stored"] for s in settled["skills"]] == \
            [asked, asked]
        # A description that misses its own tasks is asked about again: the bound stands,
        # less nothing (its cards differ, so no stored reply answers them).
        missing = {**DESCRIPTIONS, "code-review": "Reviews code."}
        unsettled = _plan(archive, name, missing)
        assert [s["check_calls"]["trigger_routing_stored"] for s in unsettled["skills"]] == [0, 0]
        # A night that would abstain routes nothing: nothing stored is said to be reused.
        few = {s: _tasks(s, ("train", "test")) for s in DESCRIPTIONS}
        abstains = plan(Settings(target=name, optimizer="simulated"), [], few, [], archive, "p",
                        DESCRIPTIONS)
        assert all(r["abstains"] and r["check_calls"]["trigger_routing_stored"] == 0
                   for r in abstains["skills"])
        # Another target's replies answer nothing.
        other = _plan(archive, "openai:another-model", DESCRIPTIONS)
        assert other["calls"] == first["calls"]
    finally:
        archive.close()


def test_a_dry_run_after_a_night_counts_the_routing_it_reuses(world: dict) -> None:  # noqa: F811
    first = json.loads(cli(world, "run", "--json").stdout)["counts"]["routing"]
    dry = json.loads(cli(world, "run", "--dry-run", "--force", "--json").stdout)
    (row,) = dry["plan"]["skills"]
    stored = row["check_calls"]["trigger_routing_stored"]
    assert 0 < stored <= first["asked"]
    assert "answered by earlier runs" in cli(world, "run", "--dry-run", "--force").stdout
    # The next night asks none of them again: it reuses at least what the plan found stored.
    second = json.loads(cli(world, "run", "--force", "--json").stdout)["counts"]["routing"]
    assert second["reused"] - first["reused"] >= stored
