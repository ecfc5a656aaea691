"""A two-root write-back world for the kill and concurrency trials, and its driver.

``python -m tests._writeback_world adopt|rollback|recover DIR`` runs one command on the
world built in ``DIR`` (with the state lock, as the CLI does); ``SKILLOPT_SLEEP_CRASH_AT``
kills it at a numbered write point. ``state_of`` reads what the roots and ledger hold.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import versions
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.records import NightResult

SKILL = "fix"
NIGHT = "20261121-030000-abcdef12"
# Two roots holding different copies, one with CRLF line endings, with different modes.
OLD = (b"---\r\nname: fix\r\ndescription: d\r\n---\r\nFix bugs.\r\n", 0o644)
OLD2 = (b"---\nname: fix\ndescription: d\n---\nFix bugs, my copy.\n", 0o640)
NEW = (
    "---\nname: fix\ndescription: d\n---\nFix bugs.\n\n<!-- skillopt-sleep:learned:start -->\n"
    "- Run pytest -q.\n<!-- skillopt-sleep:learned:end -->\n"
)


@dataclass(frozen=True)
class World:
    base: Path

    @property
    def roots(self) -> list[Path]:
        return [self.base / "claude" / "skills", self.base / "agents" / "skills"]

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def night(self) -> Path:
        return self.state / "nights" / NIGHT

    def archive(self) -> Archive:
        return Archive(self.state / "archive.sqlite3")


def build(base: Path) -> World:
    """Two roots with their own copies, and a staged night that read both."""
    world = World(base)
    for root, (data, mode) in zip(world.roots, (OLD, OLD2), strict=True):
        path = root / SKILL / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        path.chmod(mode)
    _, live = adoption.read_live(world.roots, SKILL)
    result = NightResult(night_id=NIGHT, skill=SKILL, skill_before="", skill_after=NEW)
    staging.stage(world.state / "nights", NIGHT, "/p", [result], {SKILL: live}, "")
    return world


def disk(world: World) -> tuple[tuple[bytes | None, int | None], ...]:
    """Each root's bytes and mode (None, None: no file)."""
    found = []
    for root in world.roots:
        path = root / SKILL / "SKILL.md"
        found.append(
            (path.read_bytes(), stat.S_IMODE(path.stat().st_mode)) if path.exists()
            else (None, None)
        )
    return tuple(found)


def temps(world: World) -> list[Path]:
    """Every temp file left anywhere in the world."""
    return [p for p in world.base.rglob("*") if p.name.endswith(".tmp")]


def ledger(world: World) -> list[str]:
    archive = world.archive()
    try:
        return [v.reason for v in versions(archive, SKILL)]
    finally:
        archive.close()


def run(world: World, command: str, crash_at: int | None = None,
        wait: float = 0.0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SKILLOPT_SLEEP_CRASH_AT"}
    if crash_at is not None:
        env["SKILLOPT_SLEEP_CRASH_AT"] = str(crash_at)
    return subprocess.run(
        [sys.executable, "-m", "tests._writeback_world", command, str(world.base), str(wait)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )


def main(command: str, base: Path, wait: float) -> None:
    world = World(base)
    with night_lock(world.state, wait):
        archive = world.archive()
        try:
            if command == "adopt":
                adoption.adopt(archive, world.night, SKILL, world.roots)
            elif command == "rollback":
                adoption.rollback(archive, SKILL, world.roots)
            else:
                adoption.recover(archive)
        finally:
            archive.close()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]))
