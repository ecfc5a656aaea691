"""A two-root write-back world for the kill and concurrency trials, and its driver.

``python -m tests._writeback_world adopt|rollback|recover DIR`` runs one command on the
world built in ``DIR`` (with the state lock, as the CLI does); ``SKILLOPT_SLEEP_CRASH_AT``
kills it at a numbered write point. ``state_of`` reads what the roots and ledger hold.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import versions
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.lock import night_lock
from skillopt_sleep.publish.rollback import rollback_skill
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
# More roots for the trials: a BOM and no final newline; CRLF with a line of its own.
OLD3 = ("\ufeff---\nname: fix\ndescription: d\n---\nFix bugs.\nMine: keep it.".encode(), 0o600)
OLD4 = (b"---\r\nname: fix\r\ndescription: d\r\n---\r\nFix bugs.\r\n\r\nOnly here.\r\n", 0o664)
_REGION = ("<!-- skillopt-sleep:learned:start -->\n- Run pytest -q.\n"
           "<!-- skillopt-sleep:learned:end -->\n")


def adopted(old: bytes) -> bytes:
    """What the night's change makes of one root's own bytes: the learned region appended
    in that root's line endings, every byte before it kept."""
    crlf = b"\r\n" in old
    region = _REGION.replace("\n", "\r\n") if crlf else _REGION
    nl = "\r\n" if crlf else "\n"
    sep = nl if old.endswith(nl.encode()) else nl + nl
    return old + (sep + region).encode()


@dataclass(frozen=True)
class World:
    base: Path
    count: int = 2

    @property
    def roots(self) -> list[Path]:
        found = [self.base / "claude" / "skills", self.base / "agents" / "skills",
                 self.base / "project" / ".claude" / "skills",
                 self.base / "project" / ".github" / "skills"]
        return found[:self.count]

    @property
    def olds(self) -> list[tuple[bytes, int]]:
        return [OLD, OLD2, OLD3, OLD4][:self.count]

    def old_disk(self) -> tuple[tuple[bytes | None, int | None], ...]:
        return tuple((data, mode) for data, mode in self.olds)

    def new_disk(self) -> tuple[tuple[bytes | None, int | None], ...]:
        return tuple((adopted(data), mode) for data, mode in self.olds)

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def night(self) -> Path:
        return self.state / "nights" / NIGHT

    def archive(self) -> Archive:
        return Archive(self.state / "archive.sqlite3")


def build(base: Path, count: int = 2) -> World:
    """``count`` roots with their own copies, and a staged night that read them all."""
    world = World(base, count)
    base.mkdir(parents=True, exist_ok=True)
    (base / "roots").write_text(str(count))
    for root, (data, mode) in zip(world.roots, world.olds, strict=True):
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


def load(base: Path) -> World:
    marker = base / "roots"
    return World(base, int(marker.read_text()) if marker.exists() else 2)


def main(command: str, base: Path, wait: float) -> None:
    """Run ``command``; print one JSON line: what recovery did, and whether a rollback
    found its work already finished by it."""
    world = load(base)
    said: dict[str, object] = {}
    with night_lock(world.state, wait):
        archive = world.archive()
        try:
            if command == "adopt":
                done = adoption.adopt_skill(archive, world.night, SKILL, world.roots)
                said["recovered"] = done.recovered and done.recovered.as_dict()
            elif command == "rollback":
                found = adoption.recover(archive)
                back = rollback_skill(archive, SKILL, roots=world.roots, recovered=found)
                said.update(recovered=found and found.as_dict(), already=back.already)
            else:
                found = adoption.recover(archive)
                said["recovered"] = found and found.as_dict()
        finally:
            archive.close()
    print(json.dumps(said))


if __name__ == "__main__":
    try:
        main(sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]))
    except StoreError as exc:  # a refusal is one line, as the CLI prints it
        print(json.dumps({"error": str(exc)}))
        sys.exit(1)
