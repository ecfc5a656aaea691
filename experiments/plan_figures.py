"""What ``run --dry-run`` plans on the demo's history, with the default settings.

    .venv/bin/python experiments/plan_figures.py [--skill PATH] [--set KEY=VALUE ...]

The history is the one ``make demo`` proves on (the ``researcher`` persona, seed 0, as
real Claude Code and Codex transcripts in a sandboxed home); ``--skill`` installs a file as
the skill its tasks route to (e.g. a big real skill from ``tests/fixtures/skills-public``);
``--set`` adds a config line (``--set 'max_usd_per_skill = 100'`` shows the unfitted night).
Prints the plan's figures: the estimate, the caps, what fitting left out, the skill's tokens
and what they cost, the answers' size and source, and what caching saves. No model is called.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history

SKILL = "skillopt-sleep-learned"
"""The skill the demo's tasks route to (its sessions load none)."""


def plan(skill: Path | None, lines: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="plan-figures-") as tmp:
        base = Path(tmp)
        home, project, root = base / "home", base / "project", base / "skills"
        home.mkdir()
        project.mkdir()
        write_history(personas.load("researcher"), 0, home, project)
        if skill is not None:
            (root / SKILL).mkdir(parents=True)
            shutil.copyfile(skill, root / SKILL / "SKILL.md")
        (project / ".skillopt-sleep.toml").write_text(
            'embedder = "hashing"\nsources = ["claude-code", "codex"]\n'
            f"skill_roots = {json.dumps([str(root)])}\n" + "".join(f"{x}\n" for x in lines),
            encoding="utf-8")
        env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                   CODEX_HOME=str(home / ".codex"), SKILLOPT_SLEEP_HOME=str(base / "state"))
        done = subprocess.run([sys.executable, "-m", "skillopt_sleep", "run", "--dry-run",
                               "--json"], env=env, cwd=project, capture_output=True,
                              text=True, check=True, timeout=600)
        return dict(json.loads(done.stdout)["plan"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skill", type=Path)
    parser.add_argument("--set", action="append", default=[], dest="lines")
    args = parser.parse_args(argv)
    p = plan(args.skill, args.lines)
    for row in p["skills"]:
        size = row["sizes"]
        print(f"{row['skill']}: ${row['estimated_usd']:.4f} (at most "
              f"${row['estimated_usd_max']:.4f}); target {row['calls']['target']} calls "
              f"({row['check_calls']['trigger_routing']} routing), optimizer "
              f"{row['calls']['optimizer']}; test scored {row['test_scored']}")
        print(f"  skill {size['skill_tokens']} tokens, ${row['skill_usd']:.4f} of it; answers "
              f"{size['answer_tokens']} tokens ({size['answer_source']}); cached prefix "
              f"{size['cached_prefix_tokens']} tokens, caching saves "
              f"${row['caching_saves_usd']:.4f}")
    print(f"total ${p['estimated_usd']:.4f}; caps ${p['caps']['skill']:.2f} a skill, "
          f"${p['caps']['night']:.2f} a night; within: {p['within_caps']}; steps "
          f"{p['config']['steps']}, val_repeats {p['config']['val_repeats']}")
    print("fitted: " + ("; ".join(p.get("fitted") or []) or "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
