"""The trigger check in a real pipeline night, and the config key that turns it off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_pipeline import cli, world  # noqa: F401  (the fixture)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_night_runs_the_trigger_check_unless_configured_off(world: dict,  # noqa: F811
                                                               enabled: bool) -> None:
    if not enabled:
        world["env"]["SKILLOPT_SLEEP_TRIGGER_CHECK"] = "false"
    run = json.loads(cli(world, "run", "--json").stdout)
    results = json.loads((Path(run["staged"]) / "report.json").read_text())
    assert results
    for night in results:
        if enabled:
            assert night["trigger"]["skill"] == night["skill"]
            assert {"recall_before", "recall_after", "false_trigger_before",
                    "false_trigger_after"} <= set(night["trigger"])
        else:
            assert night["trigger"] == {}
