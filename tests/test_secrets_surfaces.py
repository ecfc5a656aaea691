"""Secrets planted in a user's history never show up on any surface a night writes: the
archive, staging (proposals, diffs, report.html, report.json, manifest), the live skill
dirs after auto-adoption, ``tasks --json``, the command output, and the handoff prompts."""

from __future__ import annotations

import shutil
from pathlib import Path

from filelock import FileLock

from tests.test_pipeline import PROJECT, _world, cli
from tests.test_secrets_corpus import _archive_text, _plant, _Planter

from ._secret_shapes import shapes

SHAPES = shapes()


def _every_file_text(*folders: Path) -> str:
    parts = []
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
            if path.name.endswith(".sqlite3"):  # compressed columns, decompressed
                parts.append(_archive_text(path))
    return "\n".join(parts)


def _leaks(text: str) -> list[str]:
    return [label for label, _, value in SHAPES if value in text]


def test_no_planted_secret_reaches_any_surface_of_a_night(tmp_path: Path, isolated_home: Path):
    with FileLock(str(PROJECT) + ".lock"):
        shutil.rmtree(PROJECT, ignore_errors=True)
        PROJECT.mkdir()
        try:
            world = _world(tmp_path, isolated_home, PROJECT)
            planter = _Planter(per_field=2)
            for path in world["home"].rglob("*.jsonl"):
                _plant(path, planter)
            assert planter.next >= len(SHAPES)  # every shape was planted somewhere
            outputs = [
                cli(world, "run", "--json", "--adopt", "auto").stdout,
                cli(world, "tasks", "--json").stdout,
                cli(world, "report", "--json").stdout,
                cli(world, "status", "--json").stdout,
            ]
            seen = _every_file_text(isolated_home, *world["roots"]) + "\n".join(outputs)
            assert "CANARY" in seen  # the planted turns did reach the surfaces
            assert _leaks(seen) == []
            # The handoff backend writes prompts for the user's own agent to answer.
            config = PROJECT / ".skillopt-sleep.toml"
            config.write_text(
                config.read_text().replace('target = "simulated"', 'target = "handoff"'))
            handoff = cli(world, "run", "--json", check=False)
            assert handoff.returncode == 3, handoff.stderr
            prompts = _every_file_text(isolated_home / "state" / "handoff")
            assert "CANARY" in prompts
            assert _leaks(prompts + handoff.stdout + handoff.stderr) == []
        finally:
            shutil.rmtree(PROJECT, ignore_errors=True)
