"""``status`` runs without typer (``cli.status``), and says what the typer app would say:
the same bytes, the same colours on a terminal, the same exit codes and failures."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.cli import status as plain
from skillopt_sleep.cli.entry import PLAIN, main
from skillopt_sleep.records import NightResult

REPO = Path(__file__).resolve().parents[1]


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def state(isolated_home: Path, tmp_path: Path) -> dict[str, Any]:
    """Nights of every kind (failed three times: an alert; staged with a warning; a
    colour code inside a reason), a skipped run, and an enrolled project."""
    archive = Archive(isolated_home / "state" / "archive.sqlite3")
    try:
        for i in range(3):
            archive.record_night(NightResult(
                night_id=f"2026112{i}-030000-aaaaaaa{i}", skill="fix", project="/q",
                failed="target unreachable: \x1b[31mconnection refused\x1b[0m"), "failed")
        archive.record_night(NightResult(
            night_id="20261125-030000-bbbbbbbb", skill="tidy", project="/p",
            warnings=["the judge failed 3 of 9 calls"], stopped="budget"), "staged")
    finally:
        archive.close()
    project = tmp_path / "enrolled"
    project.mkdir()
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[projects."{project}"]\nhour = 4\nminute = 30\nadopt = "review"\n',
                      encoding="utf-8")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), HOME=str(tmp_path),
               PYTHONPATH=str(REPO))
    return {"env": env, "cwd": tmp_path}


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_the_plain_path_prints_what_the_typer_app_prints(state: dict[str, Any],
                                                         json_flag: list[str]) -> None:
    fast = _cli(state["env"], state["cwd"], "status", *json_flag)
    # "--" ends the options: the same command line, but not one the entry point runs plain.
    assert ["status", *json_flag, "--"] not in PLAIN
    app = _cli(state["env"], state["cwd"], "status", *json_flag, "--")
    assert fast.returncode == app.returncode == 0, (fast.stderr, app.stderr)
    assert fast.stdout == app.stdout and fast.stderr == app.stderr
    assert "\x1b" not in fast.stdout  # to a pipe: no colour, the reason's own code stripped
    if not json_flag:
        assert fast.stdout.startswith("ALERT: 3 nights in a row failed for /q")
        assert "nightly at 04:30" in fast.stdout and "  warning: the judge" in fast.stdout


@pytest.mark.parametrize("fg", ["red", "yellow"])
def test_the_colours_are_typers(fg: str) -> None:
    assert plain.style("word", fg) == typer.style("word", fg=fg)
    assert plain.style("word", fg, bold=True) == typer.style("word", fg=fg, bold=True)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_lines_keep_their_colour_and_wrap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = {"alert": [], "enrolled": [], "skipped": [], "pending": [], "adopted": [],
             "journal": [], "night": [{"night_id": "n1", "skill": "fix", "failed": "x " * 60,
                                       "status": "failed"}]}
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "50")
    plain.print_lines(found)
    lines = terminal.getvalue().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("night n1"))
    assert lines[at].startswith(f"night n1 fix: {typer.style('failed', fg='red')} (x x")
    assert lines[at + 1].startswith("    x") and len(lines[at + 1]) <= 50  # wrapped


def test_without_typer_click_or_rich(isolated_home: Path) -> None:
    probe = ("import sys, runpy\nsys.argv = ['skillopt-sleep', 'status']\n"
             "try:\n    runpy.run_module('skillopt_sleep', run_name='__main__')\n"
             "finally:\n    print(sorted({m.split('.')[0] for m in sys.modules} & "
             "{'typer', 'click', 'rich', 'detect_secrets'}), file=sys.stderr)\n")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO))
    for _ in range(2):  # the second run reads the vendor rules the first one kept
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_a_bad_config_stops_the_plain_path_as_it_stops_run(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".skillopt-sleep.toml").write_text("max_usd_per_night = -1\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["status"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "max_usd_per_night" in err


def test_ctrl_c_exits_130_as_typer_does(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(as_json: bool) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(plain, "show", interrupted)
    for args in (["status"], ["status", "--json"]):
        with pytest.raises(SystemExit) as stop:
            main(list(args))
        assert stop.value.code == 130
    assert '"code": 130' in capsys.readouterr().out  # --json: one error object


def test_run_json_plain_and_through_typer_print_the_same(isolated_home: Path,
                                                          tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text(
        'target = "simulated"\noptimizer = "simulated"\npersona = "programmer"\n'
        'embedder = "hashing"\n'
        f'sources = ["claude-code"]\nskill_roots = ["{tmp_path / "skills"}"]\n',
        encoding="utf-8")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), HOME=str(tmp_path),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), PYTHONPATH=str(REPO))
    first = _cli(env, project, "run", "--json")  # no session yet: a night with no work
    assert first.returncode == 0, first.stderr
    assert ["run", "--json"] in PLAIN and ["run", "--json", "--"] not in PLAIN
    fast, app = (_cli(env, project, "run", "--json", *end) for end in ([], ["--"]))
    assert fast.returncode == app.returncode == 0, (fast.stderr, app.stderr)
    assert fast.stdout == app.stdout and '"skipped": "nothing new since' in fast.stdout
