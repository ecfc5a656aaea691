"""``doctor`` reads like a check-up: no Python ``None`` in what it prints, each problem
once, and a last line that counts them (``1 error`` / ``all good``), in the terminal
output and in ``--json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.cli.entry import main


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "user").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    # No agent CLI on PATH: the interpreter's folder only.
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    where = tmp_path / "project"
    where.mkdir()
    (where / ".skillopt-sleep.toml").write_text(
        'target = "simulated"\noptimizer = "simulated"\npersona = "programmer"\n'
        'embedder = "hashing"\n',
        encoding="utf-8")
    monkeypatch.chdir(where)
    return where


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        main(["doctor", *args])
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    return code, capsys.readouterr().out


def test_a_clean_check_up_says_all_good_and_prints_no_none(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = doctor(capsys)
    assert code == 0
    assert "None" not in out
    assert "lock: not held" in out and "(no schema yet," in out
    assert out.rstrip().splitlines()[-1] == "all good"
    code, raw = doctor(capsys, "--json")
    found: dict[str, Any] = json.loads(raw)
    assert code == 0 and found["summary"] == "all good" and found["problems"] == []
    assert found["ok"] is True


def test_each_problem_is_printed_once_and_counted(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text().replace('target = "simulated"', 'target = "claude-code"'))
    code, out = doctor(capsys)
    assert code == 1
    assert out.count("the `claude` CLI is not on PATH") == 1, out
    assert "None" not in out
    assert out.rstrip().splitlines()[-1] == "1 error"
    code, raw = doctor(capsys, "--json")
    found = json.loads(raw)
    assert code == 1 and found["ok"] is False and found["summary"] == "1 error"
    assert [p["about"].split(":")[0] for p in found["problems"]] == ["target"]
    assert sum("the `claude` CLI is not on PATH" in p["detail"] for p in found["problems"]) == 1


def test_an_error_that_stopped_a_check_is_counted_once(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text().replace('target = "simulated"', 'target = "openai:no-such"'))
    code, out = doctor(capsys)
    assert code == 1 and out.count("no price for") == 1, out
    assert out.rstrip().splitlines()[-1] == "1 error"
