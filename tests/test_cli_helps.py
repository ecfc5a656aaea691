"""The CLI as a new user meets it: output that pipes intact, honest exit codes, messages that
say what happened (versions, rollback, report --open), and a status that follows adoption."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.records import NightResult
from tests import _writeback_world as w
from tests._require import require

REPO = Path(__file__).resolve().parents[1]
NEWER = "20261123-030000-abcdef12"


@pytest.fixture
def world(isolated_home: Path, tmp_path: Path) -> dict:
    """The two-root world under a long path (so a line is wider than 80 columns), one
    night recorded in the archive as the pipeline records it, and a project naming the roots."""
    base = isolated_home / ("a-folder-name-long-enough-to-push-lines-past-eighty-columns" * 2)
    built = w.build(base)
    archive = built.archive()
    try:
        archive.record_night(NightResult(night_id=w.NIGHT, skill=w.SKILL, project="/p",
                                         skill_after=w.NEW), "staged")
    finally:
        archive.close()
    project = tmp_path / "project"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text(
        f"skill_roots = {json.dumps([str(r) for r in built.roots])}\n", encoding="utf-8")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(base), PYTHONPATH=str(REPO))
    return {"world": built, "project": project, "env": env}


def cli(world: dict, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], capture_output=True,
                          text=True, env=env or world["env"], cwd=world["project"], timeout=60,
                          check=False)


def _stage_newer_fix(world: w.World) -> None:
    """A newer night with another proposal for the same skill."""
    _, live = adoption.read_live(world.roots, w.SKILL)
    result = NightResult(night_id=NEWER, skill=w.SKILL, skill_before="",
                         skill_after=w.NEW.replace("- Run pytest -q.\n",
                                                   "- Run pytest -q.\n- Keep it short.\n"))
    staging.stage(world.state / "nights", NEWER, "/p", [result], {w.SKILL: live}, "")


def _status(world: dict) -> list[dict]:
    done = cli(world, "status", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_piped_output_keeps_paths_and_ids_on_one_line(world: dict) -> None:
    assert cli(world, "adopt", "--project", str(world["project"])).returncode == 0
    done = cli(world, "status")
    assert done.returncode == 0, done.stderr
    target = str(world["world"].roots[0] / w.SKILL / "SKILL.md")
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("adopted ")]
    assert target in line and len(line) > 200


def test_on_a_terminal_lines_fit_its_width(world: dict) -> None:
    script = shutil.which("script")
    require(script is not None, "script(1) is not installed")
    assert script is not None
    assert cli(world, "adopt", "--project", str(world["project"])).returncode == 0
    command = f"stty cols 70; {sys.executable} -m skillopt_sleep status"
    done = subprocess.run([script, "-q", "-c", command, "/dev/null"], capture_output=True,
                          text=True, env=world["env"], cwd=world["project"], timeout=60)
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout.replace("\r", ""))
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) > 2 and max(len(x) for x in lines) <= 70


def test_help_shows_no_placeholder_for_flags(world: dict) -> None:
    done = cli(world, "versions", "--help")
    assert "--json" in done.stdout and "<bool>" not in done.stdout
    assert "<str>" in done.stdout  # options that take a value still say what kind


def test_versions_of_an_unknown_skill_is_an_error_naming_the_known_ones(world: dict) -> None:
    assert cli(world, "adopt", "--project", str(world["project"])).returncode == 0
    done = cli(world, "versions", "--skill", "nope")
    assert done.returncode == 1 and done.stdout == ""
    assert "no recorded versions of skill 'nope'" in done.stderr and "fix" in done.stderr


def test_rollback_says_which_version_each_root_went_back_to(world: dict) -> None:
    project = ["--project", str(world["project"])]
    assert cli(world, "adopt", *project).returncode == 0
    done = cli(world, "rollback", *project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # Two roots held different copies: v1 and v2 recorded them before the adoption, which
    # wrote each root its own text (v3, v4).
    assert lines[0].startswith("restored fix to v1 (recorded as v5) in ")
    assert lines[1].startswith("restored fix to v2 (recorded as v6) in ")
    again = json.loads(cli(world, "rollback", *project, "--to", "3", "--json").stdout)
    assert [r["reason"] for r in again["rows"]] == ["rollback to v3"]
    assert again["version"] == 7


def test_status_says_adopted_after_adoption(world: dict) -> None:
    (night,) = [r for r in _status(world) if r.get("kind") == "night"]
    assert night["status"] == "staged"
    assert cli(world, "adopt", "--project", str(world["project"])).returncode == 0
    rows = _status(world)
    (night,) = [r for r in rows if r.get("kind") == "night"]
    assert night["status"] == "adopted"
    assert not [r for r in rows if r.get("kind") == "pending"]
    assert "adopted, 0 accepted" in cli(world, "status").stdout


def test_an_older_proposal_is_superseded_not_pending_forever(world: dict) -> None:
    _stage_newer_fix(world["world"])
    rows = _status(world)
    (waiting,) = [r for r in rows if r.get("kind") == "pending"]
    assert waiting["night_id"] == NEWER
    (older,) = [r for r in rows if r.get("kind") == "night"]
    assert older["night_id"] == w.NIGHT and older["status"] == "superseded"
    # Adopting the newer one leaves nothing pending; the older can still be named.
    assert cli(world, "adopt", "--project", str(world["project"])).returncode == 0
    assert not [r for r in _status(world) if r.get("kind") == "pending"]
    named = cli(world, "adopt", w.NIGHT, "--project", str(world["project"]))
    assert named.returncode != 0 and "changed since" in named.stderr


def test_report_open_without_a_browser_exits_non_zero(world: dict, tmp_path: Path) -> None:
    # Only $BROWSER, a command that fails, and no other browser on PATH.
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in world["env"].items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PATH=str(empty), BROWSER="false")
    done = cli(world, "report", "--open", env=env)
    assert done.returncode == 1
    report = str(world["world"].night / "report.html")
    assert done.stdout.strip() == report
    assert "no browser could be opened" in done.stderr and report in done.stderr


def test_harvest_says_why_headless_sessions_are_not_listed(tmp_path: Path,
                                                           isolated_home: Path) -> None:
    from tests._harvest_layout import claude_tree

    claude_tree(tmp_path / "claude", "cli-2.1.330_print.jsonl")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), HOME=str(tmp_path))

    def harvest(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "skillopt_sleep", "harvest",
                               "--source", "claude-code", *args], capture_output=True,
                              text=True, env=env, timeout=120, check=True)

    first = harvest()
    assert first.stdout == ""
    assert "1 headless session(s)" in first.stderr and "--include-headless" in first.stderr
    # The file is archived now: a second pass lists nothing new, and says where to look.
    again = harvest("--include-headless")
    assert again.stdout == "" and "--next-night" in again.stderr
    listed = harvest("--include-headless", "--next-night")
    assert listed.stdout.startswith("claude-code") and len(listed.stdout.splitlines()) == 1


def test_a_night_with_only_headless_sessions_says_they_were_left_out(
        tmp_path: Path, isolated_home: Path) -> None:
    from tests._harvest_layout import claude_tree

    claude_tree(tmp_path / "claude", "cli-2.1.330_print.jsonl")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), HOME=str(tmp_path))
    command = [sys.executable, "-m", "skillopt_sleep", "run", "--project", "/path/to/repo",
               "--target", "simulated", "--optimizer", "simulated", "--persona", "researcher"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "nothing to train tonight" in done.stdout
    assert "1 headless session(s)" in done.stdout and "include_headless = true" in done.stdout
    # With them included, the hint is gone (one session still makes no recurring task).
    included = subprocess.run([*command, "--force"], capture_output=True, text=True,
                              env=env | {"SKILLOPT_SLEEP_INCLUDE_HEADLESS": "true"}, timeout=300)
    assert included.returncode == 0, included.stderr
    assert "nothing to train tonight" in included.stdout
    assert "headless" not in included.stdout


def test_slow_steps_show_progress_on_a_terminal_and_nothing_when_piped(
        tmp_path: Path, isolated_home: Path) -> None:
    script = shutil.which("script")
    require(script is not None, "script(1) is not installed")
    assert script is not None
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO),
               HOME=str(tmp_path), CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    command = [sys.executable, "-m", "skillopt_sleep", "tasks", "--embedder", "hashing"]
    tty = subprocess.run([script, "-q", "-c", " ".join(command), "/dev/null"],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert "mining the archived sessions (hashing embeddings)" in tty.stdout
    piped = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120,
                           cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert "mining the archived sessions" not in piped.stderr
    assert "\x1b[" not in piped.stderr + piped.stdout  # no control characters in logs


def test_rollback_of_a_new_skill_says_the_file_was_removed(world: dict) -> None:
    built: w.World = world["world"]
    _, live = adoption.read_live(built.roots, "docs")
    new = "---\nname: docs\ndescription: d\n---\nWrite docs.\n"
    staging.stage(built.state / "nights", NEWER, "/p",
                  [NightResult(night_id=NEWER, skill="docs", skill_after=new)], {"docs": live},
                  "")
    project = ["--project", str(world["project"])]
    assert cli(world, "adopt", NEWER, "--skill", "docs", *project).returncode == 0
    done = cli(world, "rollback", "--skill", "docs", *project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("restored docs to v1 (no skill file: removed) (recorded as v3)")
    assert not any((r / "docs" / "SKILL.md").exists() for r in built.roots)
