"""One choke point: a distinct canary secret planted in every string field of every record
type of every source, and a password in a model's base URL, reach no surface the tool
writes or prints.

One world is built per module (shared by every test): the four formats' hand-written
sessions (``tests/_canary_world.py``) beside a persona's history with a secret in each
text leaf, harvested, mined and run through a night with the ``simulated`` backends and
one with ``handoff``, staged and reported; then a configuration whose target's base URL
holds a password is planned (``run --dry-run``), checked (``doctor``), refused by the
pre-flight and run into a night that fails. Every surface is read back: the archive with
its compressed columns decoded, every ``--json`` output, the staged files, the handoff
prompts and resume file, the MCP tools' results, logs and stderr.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history
from tests._canary_world import FIELDS, LABELS, Planter, marker, secret, write_all
from tests.fakes.llm_server import FakeLLMServer, Status
from tests.test_secrets_corpus import _archive_text

URL_SECRET = secret("model base URL password")
URL_LABEL = "model base URL password"
TARGET = "anthropic:claude-haiku-4-5"
_TOKEN = re.compile(r"ghp_[0-9a-f]{36}")

SURFACES = (
    "archive", "harvest --json", "tasks --json", "recall --json", "run --json",
    "status --json", "report --json", "report --json --full", "report.html", "report.json",
    "manifest.json", "proposal", "handoff run", "handoff prompts", "handoff resume",
    "mcp sleep_status", "mcp sleep_report", "mcp sleep_harvest_preview", "run --dry-run",
    "run --dry-run --json", "doctor --json", "pre-flight error", "failed night",
    "failed night: nights row", "failed night: manifest.json", "failed night: status --json",
    "failed night: report --json", "logs", "stderr", "every state file",
)


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


def _files(*folders: Path, pattern: str = "*") -> str:
    parts = []
    for folder in folders:
        for path in sorted(folder.rglob(pattern)) if folder.exists() else []:
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
            if path.name.endswith(".sqlite3"):
                parts.append(_archive_text(path))
    return "\n".join(parts)


class _World:
    """The commands run against one state dir, their output kept per surface."""

    def __init__(self, root: Path):
        self.home, self.project, self.state = root / "home", root / "project", root / "state"
        (self.project / ".git").mkdir(parents=True)
        self.roots = [root / "skills-claude", root / "skills-agents"]
        self.env = dict(os.environ, HOME=str(self.home), SKILLOPT_SLEEP_HOME=str(self.state),
                        CLAUDE_CONFIG_DIR=str(self.home / ".claude"),
                        CODEX_HOME=str(self.home / ".codex"),
                        COPILOT_HOME=str(self.home / ".copilot"),
                        XDG_CONFIG_HOME=str(self.home / ".config"))
        self.surfaces: dict[str, str] = dict.fromkeys(SURFACES, "")
        self.stderr: list[str] = []
        self.planted: dict[str, str] = {}
        self.found: dict[str, set[str]] = {}
        """Per surface, every canary-shaped token in it (each test looks one up)."""

    def config(self, target: str, extra: str = "") -> None:
        persona = personas.load("researcher")
        (self.project / ".skillopt-sleep.toml").write_text(
            f'target = "{target}"\noptimizer = "simulated"\npersona = "{persona.path}"\n'
            'embedder = "hashing"\nsources = ["claude-code", "codex", "copilot-cli",'
            ' "copilot-vscode"]\n'
            f"skill_roots = {json.dumps([str(r) for r in self.roots])}\n{extra}",
            encoding="utf-8")

    def run(self, surface: str, *args: str, codes: tuple[int, ...] = (0,)) -> str:
        done = _cli(self.env, self.project, *args)
        assert done.returncode in codes, (args, done.returncode, done.stderr[-2000:])
        self.surfaces[surface] += done.stdout
        self.stderr.append(done.stderr)
        return done.stdout

    def staged(self, surface_prefix: str, night_dir: Path) -> None:
        self.surfaces[surface_prefix + "report.html"] = _files(night_dir, pattern="report.html")
        self.surfaces[surface_prefix + "report.json"] = _files(night_dir, pattern="report.json")
        self.surfaces[surface_prefix + "manifest.json"] = _files(
            night_dir, pattern="manifest.json")


def _plant_persona(world: _World) -> Planter:
    persona = personas.load("researcher")
    write_history(persona, 0, world.home, world.project)
    planter = Planter()
    for path in sorted(world.home.rglob("*.jsonl")):
        planter.plant_file(path, path.parent.name)
    return planter


async def _mcp_calls(world: _World, calls: tuple[tuple[str, dict[str, Any]], ...]) -> None:
    from skillopt_sleep.cli.mcp_server import build_server

    server = build_server()
    for tool, args in calls:
        result = await server.call_tool(tool, args)
        world.surfaces[f"mcp {tool}"] = result.model_dump_json()


def _mcp(world: _World, *calls: tuple[str, dict[str, Any]]) -> None:
    """The MCP tools in this process (each runs the CLI, as a client's call would)."""
    saved, cwd = dict(os.environ), Path.cwd()
    os.environ.update(world.env)
    os.chdir(world.project)
    try:
        anyio.run(_mcp_calls, world, calls)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        os.chdir(cwd)


def _night(world: _World) -> None:
    world.config("simulated")
    world.run("harvest --json", "harvest", "--json")
    tasks = world.run("tasks --json", "tasks", "--json", "--embedder", "hashing")
    first = next(json.loads(line) for line in tasks.splitlines() if line.strip())
    task_id = first.get("id") or first.get("task_id") or ""
    _mcp(world, ("sleep_harvest_preview", {"project": str(world.project)}))
    run = json.loads(world.run("run --json", "run", "--json", "--adopt", "auto"))
    world.run("recall --json", "recall", "--task", task_id, "--embedder", "hashing", "--json")
    world.surfaces["proposal"] = _files(Path(run["staged"]) / "skills")
    world.staged("", Path(run["staged"]))
    world.run("status --json", "status", "--json")
    world.run("report --json", "report", "--json")
    world.run("report --json --full", "report", "--json", "--full")
    _mcp(world, ("sleep_status", {}), ("sleep_report", {"full": True}))
    world.config("handoff")
    world.run("handoff run", "run", "--json", codes=(3,))
    handoff = world.state / "state" / "handoff"
    world.surfaces["handoff prompts"] = _files(handoff, pattern="*.md")
    world.surfaces["handoff resume"] = _files(handoff, pattern="*.json")


def _failed_night(world: _World) -> None:
    """A target whose base URL holds a password, and whose calls fail: the night is
    recorded failed, with the endpoint in its reason."""
    world.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
    with FakeLLMServer(default=Status(404)) as server:
        url = server.url.replace("://", f"://canary:{URL_SECRET}@", 1)
        world.config(TARGET, f'target_base_url = "{url}"\n')
        out = world.run("failed night", "run", "--json", codes=(4,))
    world.surfaces["failed night"] += world.stderr[-1]
    world.staged("failed night: ", Path(json.loads(out)["report"]).parent)
    world.run("failed night: status --json", "status", "--json")
    world.run("failed night: report --json", "report", "--json")
    archive = world.state / "state" / "archive.sqlite3"
    world.surfaces["failed night: nights row"] = _archive_text(archive)


def _endpoint(world: _World) -> None:
    """The same password planned, checked and refused by the pre-flight (a closed port), in
    a state with no history: what is printed does not depend on it."""
    saved = world.env
    world.env = dict(saved, SKILLOPT_SLEEP_HOME=str(world.state.parent / "state-endpoint"),
                     HOME=str(world.state.parent / "home-empty"))
    try:
        world.config(TARGET, f'target_base_url = "http://canary:{URL_SECRET}@127.0.0.1:9"\n')
        world.run("run --dry-run", "run", "--dry-run")
        world.run("run --dry-run --json", "run", "--dry-run", "--json")
        world.run("doctor --json", "doctor", "--json", codes=(0, 1, 2))
        world.run("pre-flight error", "run", "--json", codes=(2,))
        world.surfaces["pre-flight error"] += world.stderr[-1]
    finally:
        world.env = saved


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_World]:
    root = tmp_path_factory.mktemp("canary")
    built = _World(root)
    write_all(built.home, built.project)
    built.planted = _plant_persona(built).secrets
    cwd = Path.cwd()
    try:
        _night(built)
        _failed_night(built)
        _endpoint(built)
    finally:
        os.chdir(cwd)
    built.surfaces["archive"] = _archive_text(built.state / "state" / "archive.sqlite3")
    built.surfaces["logs"] = _files(built.state, pattern="*.log")
    built.surfaces["stderr"] = "\n".join(built.stderr)
    built.surfaces["every state file"] = _files(built.state, built.state.parent / "state-endpoint",
                                                *built.roots)
    built.found = {name: set(_TOKEN.findall(text)) for name, text in built.surfaces.items()}
    yield built
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("label", [*LABELS, URL_LABEL])
def test_no_canary_reaches_the_surface(world: _World, label: str, surface: str) -> None:
    assert secret(label) not in world.found[surface]


@pytest.mark.parametrize("surface", SURFACES)
def test_no_secret_of_the_persona_history_reaches_the_surface(world: _World, surface: str):
    leaked = [label for label, value in world.planted.items() if value in world.found[surface]]
    assert leaked == []


@pytest.mark.parametrize("label", [f.label for f in FIELDS if f.kept])
def test_each_planted_field_is_harvested_redacted(world: _World, label: str) -> None:
    """The marker beside each secret is kept: the field was read, and only its secret went."""
    for surface in ("archive", "harvest --json"):
        assert marker(label) in world.surfaces[surface], surface


def test_the_planted_history_reaches_the_night_surfaces(world: _World) -> None:
    """Otherwise the night surfaces would be clean only because nothing reached them."""
    for surface in ("tasks --json", "report.json", "report --json --full", "handoff prompts",
                    "handoff resume", "mcp sleep_harvest_preview"):
        assert "CANARY-" in world.surfaces[surface], surface
    for surface in ("run --dry-run", "run --dry-run --json", "doctor --json",
                    "pre-flight error", "failed night", "failed night: nights row"):
        assert "canary:" in world.surfaces[surface], surface  # the URL's user, not its password
