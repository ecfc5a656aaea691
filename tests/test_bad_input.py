"""Bad input gets one clear line and a non-zero exit through the console command, never a
traceback, and nothing on disk changes: non-UTF-8 config and persona files, an unreadable
live SKILL.md, a state dir that cannot be written, a damaged archive, an archive newer
than the code, settings out of range. ``doctor`` checks the archive's pages and schema.

Permissions are real: as root the command runs without the capabilities that bypass file
modes (``setpriv``), so a mode of 000 means what it says.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from skillopt_sleep import config
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.migrations import migrations
from skillopt_sleep.config import RANGES, Settings
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history

from . import _writeback_world as wb
from ._require import require

LEARNED = "skillopt-sleep-learned"
_NO_OVERRIDE = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                "--bounding-set=-dac_override,-dac_read_search"]


@dataclass
class World:
    """A developer's machine: transcripts, a project, two skill roots with ``fix`` adopted
    into both, and the state dir (``SKILLOPT_SLEEP_HOME`` is ``base``)."""

    base: Path
    project: Path
    env: dict[str, str]

    @property
    def wb(self) -> wb.World:
        return wb.World(self.base)

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def archive(self) -> Path:
        return self.state / "archive.sqlite3"

    @property
    def config(self) -> Path:
        return self.project / ".skillopt-sleep.toml"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    base = tmp_path / "w"
    built = wb.build(base)
    archive = built.archive()
    try:
        adoption.adopt(archive, built.night, wb.SKILL, built.roots)
    finally:
        archive.close()
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    persona = personas.load("researcher")
    write_history(persona, 0, home, project)
    roots = ", ".join(f'"{r}"' for r in built.roots)
    (project / ".skillopt-sleep.toml").write_text(
        f'target = "simulated"\noptimizer = "simulated"\npersona = "{persona.path}"\n'
        f'embedder = "hashing"\nsources = ["claude-code", "codex"]\nskill_roots = [{roots}]\n',
        encoding="utf-8")
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), SKILLOPT_SLEEP_HOME=str(base))
    yield World(base, project, env)
    for path in [tmp_path, *tmp_path.rglob("*")]:  # give back what a test took away
        if not path.is_symlink():
            path.chmod(stat.S_IMODE(path.stat().st_mode) | stat.S_IRWXU)


def cli(world: World, *args: str, home: Path | None = None, confined: bool = False
        ) -> subprocess.CompletedProcess[str]:
    """The console command as a user runs it; ``confined``: file modes bind even as root."""
    env = dict(world.env, SKILLOPT_SLEEP_HOME=str(home)) if home else world.env
    prefix: list[str] = []
    if confined and os.geteuid() == 0:
        require(shutil.which("setpriv") is not None, "setpriv is needed to drop root's "
                                                     "file-permission override")
        prefix = _NO_OVERRIDE
    return subprocess.run([*prefix, sys.executable, "-m", "skillopt_sleep", *args],
                          capture_output=True, text=True, env=env, cwd=world.project,
                          timeout=300, check=False)


def one_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The error line, after checking the exit and that nothing but that line went wrong."""
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, done.stderr
    line = errors[0]
    assert line.startswith("skillopt-sleep: error: "), line
    for word in words:
        assert word in line, line
    return line


def disk(world: World, harvest: bool = True) -> dict[str, object]:
    """Every file a command could change: skills, staged nights, config, the archive. With
    ``harvest=False`` the archive's harvested sessions and the mining index may have grown
    (a night harvests before it reads the skills) and only the versions ledger counts."""
    found: dict[str, object] = {}
    for top in (*world.wb.roots, world.state, world.project):
        for path in sorted(top.rglob("*")) if top.exists() else []:
            # SQLite's own empty side files hold nothing: a reader may leave them behind.
            if not path.is_file() or path.name.endswith((".lock", "-shm")) or (
                    path.name.endswith("-wal") and not path.stat().st_size):
                continue
            if not harvest and (path.name.startswith("archive.sqlite3")
                                or path.parent.name == "index"):
                continue
            found[str(path)] = path.read_bytes()
    if not harvest:
        found["ledger"] = wb.ledger(world.wb)
    return found


# --- files that are not UTF-8 ---------------------------------------------------------------


@pytest.mark.parametrize("which, command", [("user", ["run"]), ("user", ["doctor"]),
                                            ("project", ["adopt"]), ("project", ["tasks"])])
def test_config_file_that_is_not_utf8(world: World, which: str, command: list[str]) -> None:
    path = world.base / "config" / "config.toml" if which == "user" else world.config
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as fh:
        fh.write(b'\n# caf\xe9 in Latin-1\n')
    before = disk(world)
    line = one_line(cli(world, *command), str(path), "not UTF-8", "0xe9")
    assert line.count("\n") == 0
    assert disk(world) == before


def test_persona_file_that_is_not_utf8(world: World, tmp_path: Path) -> None:
    bad = tmp_path / "team.toml"
    bad.write_bytes(b'name = "caf\xe9"\n')
    world.config.write_text(world.config.read_text().replace(
        str(personas.load("researcher").path), str(bad)))
    # ``run`` harvests before it checks its models (a night with nothing new never loads
    # one), so the sessions are archived first, as the daemon would: after that, nothing.
    cli(world, "harvest", "--source", "claude-code")
    cli(world, "harvest", "--source", "codex")
    before = disk(world)
    one_line(cli(world, "run"), "persona", str(bad), "not UTF-8")
    one_line(cli(world, "prove", "--persona", str(bad)), "persona", str(bad), "not UTF-8")
    assert disk(world) == before


# --- files the machine will not let us read or write --------------------------------------


@pytest.mark.parametrize("command", [["run"], ["status"], ["rollback", "--skill", wb.SKILL]])
def test_unreadable_live_skill(world: World, command: list[str]) -> None:
    learned = world.wb.roots[0] / LEARNED / "SKILL.md"  # the skill a night trains
    learned.parent.mkdir()
    learned.write_text("---\nname: skillopt-sleep-learned\ndescription: d\n---\n")
    for path in (learned, world.wb.roots[0] / wb.SKILL / "SKILL.md"):
        path.chmod(0)
    before = disk(world)  # the run checks the skills before it harvests: nothing changes
    one_line(cli(world, *command, confined=True), "cannot read", "SKILL.md",
             "Permission denied")
    assert disk(world) == before


@pytest.mark.parametrize("command", [["run"], ["status"], ["harvest"], ["adopt"],
                                     ["rollback", "--skill", wb.SKILL], ["tasks"]])
def test_state_dir_that_cannot_be_created(world: World, tmp_path: Path,
                                          command: list[str]) -> None:
    locked = tmp_path / "read-only-home"
    locked.mkdir()
    locked.chmod(0o555)
    one_line(cli(world, *command, home=locked, confined=True), str(locked / "state"),
             "Permission denied")
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("command", [["run"], ["status"], ["harvest"], ["adopt"],
                                     ["rollback", "--skill", wb.SKILL]])
def test_state_dir_that_is_read_only(world: World, command: list[str]) -> None:
    before = disk(world)
    for path in [world.state, *world.state.rglob("*")]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    one_line(cli(world, *command, confined=True), str(world.state))
    assert disk(world) == before


# --- a damaged archive, an archive newer than the code --------------------------------------

EVERY = [["run"], ["status"], ["harvest"], ["tasks"], ["adopt"],
         ["rollback", "--skill", wb.SKILL], ["versions", "--skill", wb.SKILL]]
WRITERS = [["run"], ["harvest"], ["adopt"], ["rollback", "--skill", wb.SKILL]]


def _checkpointed(world: World) -> bytes:
    """The archive as one file (its write-ahead log folded in)."""
    conn = sqlite3.connect(world.archive)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return world.archive.read_bytes()


@pytest.mark.parametrize("damage", ["not a database", "truncated"])
def test_archive_that_cannot_be_opened(world: World, damage: str) -> None:
    data = _checkpointed(world)
    world.archive.write_bytes(os.urandom(len(data)) if damage == "not a database"
                              else data[: len(data) // 3])
    before = disk(world)
    for command in EVERY:
        one_line(cli(world, *command), str(world.archive), "is damaged",
                 "not a database" if damage == "not a database" else "malformed")
    assert disk(world) == before
    doctor = cli(world, "doctor")
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    assert "archive:" in doctor.stdout and "error: damaged" in doctor.stdout


def _damage_pages(world: World) -> None:
    """Scribble over the pages of two tables: the file still opens and its schema reads,
    but not every page is sound."""
    data = bytearray(_checkpointed(world))
    conn = sqlite3.connect(world.archive)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [row[0] for row in conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name IN ('turns', 'nights')")]
    conn.close()
    assert len(pages) == 2
    for page in pages:
        start = (page - 1) * size
        data[start : start + size] = os.urandom(size)
    world.archive.write_bytes(bytes(data))
    Archive(world.archive).close()  # opens: only a full read of the pages finds the damage
    _checkpointed(world)


@pytest.mark.parametrize("command", WRITERS)
def test_archive_with_damaged_pages_is_refused_before_a_write(world: World,
                                                              command: list[str]) -> None:
    _damage_pages(world)
    before = disk(world)
    one_line(cli(world, *command), str(world.archive), "is damaged", "doctor")
    assert disk(world) == before


def test_damage_found_by_a_read_is_one_line(world: World) -> None:
    _damage_pages(world)
    before = disk(world)
    stopped = []
    for command in EVERY:
        done = cli(world, *command)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        if done.returncode:
            line = one_line(done, str(world.archive), "damaged")
            if "the command stopped there" in line:
                stopped.append(command[0])
    assert "status" in stopped  # it reads the damaged nights table: stopped mid-command
    assert disk(world) == before


def test_doctor_runs_the_integrity_check(world: World) -> None:
    healthy = cli(world, "doctor", "--json")
    assert healthy.returncode == 0, healthy.stdout
    assert json.loads(healthy.stdout)["archive"] == {
        "path": str(world.archive), "status": "ok", "schema": max(
            n for n, _, _ in migrations()), "known_schema": max(n for n, _, _ in migrations())}
    _damage_pages(world)
    done = cli(world, "doctor", "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    found = json.loads(done.stdout)
    assert found["ok"] is False and found["archive"]["path"] == str(world.archive)
    assert found["archive"]["status"].startswith("error: damaged")
    text = cli(world, "doctor")  # the human form says it too
    assert text.returncode == 1 and "error: damaged" in text.stdout


def _from_the_future(world: World) -> None:
    archive = Archive(world.archive)
    archive.conn.execute("INSERT INTO schema_version VALUES (99, 'm0099_from_a_newer_version')")
    archive.close()
    _checkpointed(world)


def test_archive_newer_than_the_code_is_refused_and_left_alone(world: World) -> None:
    _from_the_future(world)
    before = disk(world)
    for command in EVERY:
        one_line(cli(world, *command), str(world.archive), "schema version 99", "newer",
                 "m0099_from_a_newer_version", "upgrade")
    done = cli(world, "doctor")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "newer than this skillopt-sleep" in done.stdout.replace("\n", " ")
    assert disk(world) == before  # never migrated down, never written


# --- settings out of range ------------------------------------------------------------------


@pytest.mark.parametrize("setting, allowed", [
    ("steps = -5", "1 or more"), ("val_repeats = 0", "1 or more"),
    ("max_usd_per_night = -1", "0 or more"), ("concurrency = -1", "0 or more"),
    ("alpha = 1.5", "(0, 1)"), ("hour = 24", "[0, 23]")])
def test_setting_out_of_range(world: World, setting: str, allowed: str) -> None:
    with world.config.open("a", encoding="utf-8") as fh:
        fh.write(setting + "\n")
    before = disk(world)
    key, value = (part.strip() for part in setting.split("="))
    line = one_line(cli(world, "run"), str(world.config), f"{key} = {value}", "out of range",
                    f"allowed: {allowed}")
    assert line
    assert disk(world) == before


def test_setting_out_of_range_from_env_and_flag_names_where(world: World) -> None:
    world.env["SKILLOPT_SLEEP_STEPS"] = "0"
    one_line(cli(world, "run"), "env SKILLOPT_SLEEP_STEPS", "steps = 0", "1 or more")
    del world.env["SKILLOPT_SLEEP_STEPS"]
    one_line(cli(world, "run", "--max-usd-per-night", "-1"), "flag --max-usd-per-night",
             "max_usd_per_night = -1.0", "0 or more")


def test_every_numeric_setting_has_a_range() -> None:
    numeric = {f.name for f in fields(Settings)
               if isinstance(f.default, int | float) and not isinstance(f.default, bool)}
    assert numeric == set(RANGES)


@pytest.mark.parametrize("key", sorted(RANGES))
def test_each_range_holds_at_its_bounds(key: str, tmp_path: Path) -> None:
    limits = RANGES[key]
    step = 1 if isinstance(getattr(Settings(), key), int) else 0.01
    cases = []  # (value, allowed)
    for bound, is_open, sign in ((limits.low, limits.open_low, -1),
                                 (limits.high, limits.open_high, 1)):
        if bound is not None:
            edge = type(getattr(Settings(), key))(bound)
            cases += [(edge, not is_open), (edge + sign * step, False),
                      (edge - sign * step, True)]
    assert cases
    for value, allowed in cases:
        if allowed:
            assert getattr(config.load(tmp_path, flags={key: value}, env={}), key) == value
        else:
            with pytest.raises(ConfigError, match=rf"flag --{key.replace('_', '-')}: {key} = "
                                                  rf".* is out of range \(allowed: "):
                config.load(tmp_path, flags={key: value}, env={})
