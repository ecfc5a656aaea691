"""What the store promises about what it keeps, through its public entry points: a staged
proposal edited on disk after its night is never adopted, and the answers and routing
replies a night keeps for the next one never hold a secret (read back from the archive,
every column of every row)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skillopt_sleep.archive import carried, route_replies
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.records import Rollout, Score
from tests import _writeback_world as w

from ._secret_shapes import shapes

# --- a staged proposal edited after its night ---------------------------------------------


def test_adopt_refuses_a_staged_proposal_edited_after_the_night(
        isolated_home: Path, tmp_path: Path) -> None:
    world = w.build(isolated_home)
    staged = [p for p in world.night.rglob("*") if p.is_file() and p.read_text() == w.NEW]
    assert staged, "the night staged its proposal"
    for path in staged:  # whatever the layout, every staged copy says the same new thing
        path.write_text(w.NEW + "- Delete the failing tests.\n")
    before, ledger = w.disk(world), w.ledger(world)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text(
        f"skill_roots = {json.dumps([str(r) for r in world.roots])}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "adopt", "--project", str(project)],
        capture_output=True, text=True, cwd=project, timeout=60, check=False,
        env=dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home)))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert w.disk(world) == before and w.ledger(world) == ledger
    assert all("Delete the failing tests" not in (r / w.SKILL / "SKILL.md").read_text()
               for r in world.roots if (r / w.SKILL / "SKILL.md").exists())


# --- what a night keeps for the next one ---------------------------------------------------

SHAPES = shapes()
# The generated corpus: credentials by context in every format and command line.
assert len(SHAPES) >= 150


def _rows(archive: Archive, table: str) -> str:
    return "\n".join(map(repr, archive.conn.execute(f"SELECT * FROM {table}").fetchall()))


def test_carried_answers_are_kept_without_their_secrets(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        rollouts = [(f"key{i}", Rollout(f"t{i}", 0, "h", response=f"Done.\n{line}\n(shape {i})",
                                        score=Score(hard=1.0, soft=1.0,
                                                    rationale=f"it printed {line}")))
                    for i, (_, line, _) in enumerate(SHAPES)]
        carried.keep(archive, "/p", "fix", "n1", carried.Carried(3, rollouts))
        stored = _rows(archive, "carried_rollouts")
        back = carried.carried(archive, "/p", "fix")
    finally:
        archive.close()
    assert back.first == 3 and len(back.rollouts) == len(SHAPES)
    by_task = {r.task_id: r.response for _, r in back.rollouts}
    assert all(f"(shape {i})" in by_task[f"t{i}"] for i in range(len(SHAPES)))
    leaked = [label for label, _, value in SHAPES if value in stored]
    assert leaked == []


def test_stored_routing_replies_are_kept_without_their_secrets(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "archive.sqlite3")
    try:
        replies = {f"k{i}": f"code-review\n{line}" for i, (_, line, _) in enumerate(SHAPES)}
        route_replies.keep(archive, "/p", replies)
        stored = _rows(archive, "route_replies")
        back = route_replies.stored(archive, "/p")
    finally:
        archive.close()
    assert sorted(back) == sorted(replies)
    assert all(reply.startswith("code-review") for reply in back.values())
    leaked = [label for label, _, value in SHAPES if value in stored]
    assert leaked == []
