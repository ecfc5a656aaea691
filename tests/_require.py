"""Skip a test for a missing tool on a laptop; fail it in CI (SKILLOPT_SLEEP_REQUIRE_ALL=1)."""

from __future__ import annotations

import os

import pytest


def require(condition: bool, why: str) -> None:
    """Skip (or, under ``SKILLOPT_SLEEP_REQUIRE_ALL=1``, fail) unless ``condition`` holds."""
    if condition:
        return
    if os.environ.get("SKILLOPT_SLEEP_REQUIRE_ALL") == "1":
        pytest.fail(f"required for the full suite: {why}")
    pytest.skip(why)
