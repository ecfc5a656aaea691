"""A persona with several skills writes a history in which Claude Code loads each task's own
skill (and, every other session, the others beside it), so a real night trains each skill on
its own work and checks it against the others; a one-skill history loads none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history


def _loads(home: Path) -> dict[str, set[str]]:
    """Per Claude Code session, the skills its ``Skill`` tool calls load."""
    found: dict[str, set[str]] = {}
    for path in (home / ".claude" / "projects").rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        found[path.stem] = {block["input"]["skill"] for line in lines
                            if isinstance(line["message"]["content"], list)
                            for block in line["message"]["content"]
                            if block.get("type") == "tool_use" and block.get("name") == "Skill"}
    return found


def test_a_one_skill_history_loads_no_skill(tmp_path: Path) -> None:
    write_history(personas.load("programmer"), 0, tmp_path / "home", tmp_path / "project")
    loads = _loads(tmp_path / "home")
    assert loads and not any(loads.values())


def test_a_night_trains_each_skill_its_sessions_loaded(tmp_path: Path,
                                                       isolated_home: Path) -> None:
    p = personas.load("maintainer")
    home, project, root = tmp_path / "home", tmp_path / "project", tmp_path / "skills"
    project.mkdir()
    write_history(p, 0, home, project)
    loads = _loads(home)
    names = {s.name for s in p.skills}
    # Each session loads its task's own skill; every other one all the others beside it.
    assert {len(skills) for skills in loads.values()} == {1, len(names)}
    assert set().union(*loads.values()) == names
    # Codex reads the own skill's SKILL.md alone, so the own skill is each family's most
    # frequent load even where every Claude Code member loaded all three.
    reads = [json.loads(line)["payload"] for path in (home / ".codex").rglob("*.jsonl")
             for line in path.read_text(encoding="utf-8").splitlines()
             if '"function_call"' in line]
    assert len(reads) == len(loads) and all("SKILL.md" in r["arguments"] for r in reads)
    for spec in p.skills:
        (root / spec.name).mkdir(parents=True)
        (root / spec.name / "SKILL.md").write_text(spec.initial_text(), encoding="utf-8")
    (project / ".skillopt-sleep.toml").write_text(
        f'target = "simulated"\noptimizer = "simulated"\npersona = "{p.path}"\n'
        f'embedder = "hashing"\nsources = ["claude-code", "codex"]\n'
        f"skill_roots = {json.dumps([str(root)])}\n", encoding="utf-8")
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), SKILLOPT_SLEEP_HOME=str(isolated_home))
    done = subprocess.run([sys.executable, "-m", "skillopt_sleep", "run", "--dry-run", "--json"],
                          capture_output=True, text=True, env=env, cwd=project, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["plan"]["skills"]
    # Every family trains the skill its sessions loaded: none is left to the catch-all; and
    # skills loaded together are each other's neighbours, so the cross check runs.
    assert {r["skill"] for r in rows} == names
    assert all(sum(r["tasks"].values()) > 0 for r in rows)
    assert all(r["check_calls"]["neighbours"] == len(names) - 1 for r in rows)
