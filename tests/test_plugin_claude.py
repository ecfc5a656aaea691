"""The Claude Code plugin: manifests, a real install from a local marketplace copy, the hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillopt_sleep import paths
from tests._clis import cli
from tests._harvest_layout import fixture
from tests._require import require
from tests.fakes.llm_server import FakeLLMServer, Text

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "plugins" / "claude-code"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
HOOK = PLUGIN / "hooks" / "session_end.py"
LAUNCHER = PLUGIN / "bin" / "skillopt-sleep-launcher"
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# A SessionEnd payload as Claude Code 2.1.330 sends it on stdin.
PAYLOAD = {
    "session_id": "6f1c2a8e-3b7d-4c59-9e0a-2d4b8f1e7a63",
    "transcript_path": "/path/to/home/.claude/projects/-path-to-app/"
                       "6f1c2a8e-3b7d-4c59-9e0a-2d4b8f1e7a63.jsonl",
    "cwd": "/path/to/app",
    "hook_event_name": "SessionEnd",
    "reason": "prompt_input_exit",
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _frontmatter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path} has no frontmatter"
    head = text.split("---\n", 2)[1]
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


# --- manifests, checked against the documented plugin/marketplace contract ------------------


def test_plugin_manifest_follows_the_documented_schema() -> None:
    manifest = _json(PLUGIN / ".claude-plugin" / "plugin.json")
    assert NAME_RE.match(manifest["name"]) and manifest["name"] == "skillopt-sleep"
    assert re.match(r"^\d+\.\d+\.\d+$", manifest["version"]), "the cache is keyed by version"
    assert isinstance(manifest["author"], dict) and manifest["author"]["name"]
    for key in ("commands", "skills", "hooks", "mcpServers"):
        value = manifest.get(key)
        if isinstance(value, str):
            assert value.startswith("./") and ".." not in value


def test_marketplace_points_at_the_plugin_folder_with_a_relative_source() -> None:
    market = _json(MARKETPLACE)
    assert NAME_RE.match(market["name"])
    assert not market["name"].startswith("anthropic-")
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == "skillopt-sleep"
    assert entry["source"] == "./plugins/claude-code"
    assert (REPO / entry["source"] / ".claude-plugin" / "plugin.json").is_file()
    plugin = _json(PLUGIN / ".claude-plugin" / "plugin.json")
    assert entry.get("version", plugin["version"]) == plugin["version"]


def test_command_and_skill_have_distinct_names_and_valid_frontmatter() -> None:
    command = _frontmatter(PLUGIN / "commands" / "skillopt-sleep.md")
    assert command["description"] and command["argument-hint"]
    skill_file = PLUGIN / "skills" / "skillopt-sleep-review" / "SKILL.md"
    skill = _frontmatter(skill_file)
    assert skill["name"] == skill_file.parent.name == "skillopt-sleep-review"
    assert NAME_RE.match(skill["name"]) and len(skill["name"]) <= 64
    assert 0 < len(skill["description"]) <= 1024


def test_hooks_file_registers_session_end_inside_the_plugin() -> None:
    hooks = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    (group,) = hooks["SessionEnd"]
    (hook,) = group["hooks"]
    assert hook["type"] == "command"
    assert "${CLAUDE_PLUGIN_ROOT}/hooks/session_end.py" in hook["command"]


def test_nothing_in_the_plugin_reaches_outside_its_folder() -> None:
    for path in PLUGIN.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "../" not in text, f"{path} refers outside the plugin"
            assert "SKILLOPT_SLEEP_REPO" not in text


def test_model_run_commands_do_not_depend_on_plugin_root() -> None:
    # The variable is often empty in the Bash tool; only hooks may use it.
    for md in [PLUGIN / "commands" / "skillopt-sleep.md",
               PLUGIN / "skills" / "skillopt-sleep-review" / "SKILL.md"]:
        assert "CLAUDE_PLUGIN_ROOT" not in md.read_text(encoding="utf-8")
        assert "skillopt-sleep-launcher" in md.read_text(encoding="utf-8")


# --- the real claude CLI --------------------------------------------------------------------


def _claude_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(HOME=str(home), DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
               DISABLE_ERROR_REPORTING="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def _marketplace_copy(tmp_path: Path) -> Path:
    """Only the marketplace file and the plugin folder: proves the plugin is self-contained."""
    root = tmp_path / "market"
    shutil.copytree(REPO / ".claude-plugin", root / ".claude-plugin")
    shutil.copytree(PLUGIN, root / "plugins" / "claude-code")
    return root


def _run(args: list[str], env: dict[str, str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture(scope="module")
def claude() -> Path:
    return cli("claude")


@pytest.mark.parametrize("target", ["plugin", "marketplace"])
def test_claude_plugin_validate_strict(claude: Path, tmp_path: Path, target: str) -> None:
    root = _marketplace_copy(tmp_path)
    path = root / "plugins" / "claude-code" if target == "plugin" else root
    result = _run([str(claude), "plugin", "validate", "--strict", str(path)],
                  _claude_env(tmp_path / "home"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation passed" in result.stdout


def _install(claude: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    env = _claude_env(home)
    added = _run([str(claude), "plugin", "marketplace", "add", str(_marketplace_copy(tmp_path))],
                 env)
    assert added.returncode == 0, added.stdout + added.stderr
    installed = _run([str(claude), "plugin", "install", "skillopt-sleep@skillopt-sleep",
                      "--json"], env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert json.loads(installed.stdout.splitlines()[-1])["outcome"] == "ok"
    return home, env


def test_install_from_a_local_marketplace_copy(claude: Path, tmp_path: Path) -> None:
    home, env = _install(claude, tmp_path)
    listed = _run([str(claude), "plugin", "list", "--json"], env)
    (entry,) = [p for p in json.loads(listed.stdout) if p["id"] == "skillopt-sleep@skillopt-sleep"]
    assert entry["enabled"] and entry["version"] == "0.1.1"
    cached = Path(entry["installPath"])
    assert cached.is_relative_to(home)
    for rel in ["commands/skillopt-sleep.md", "skills/skillopt-sleep-review/SKILL.md",
                "hooks/hooks.json", "hooks/session_end.py", "bin/skillopt-sleep-launcher"]:
        assert (cached / rel).is_file(), rel
    assert os.access(cached / "bin" / "skillopt-sleep-launcher", os.X_OK)


def test_real_session_end_queues_the_transcript(claude: Path, tmp_path: Path,
                                                isolated_home: Path) -> None:
    home, env = _install(claude, tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    env["SKILLOPT_SLEEP_HOME"] = str(isolated_home)
    with FakeLLMServer(default=Text("done")) as server:
        env.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="dummy")
        result = _run([str(claude), "-p", "say done"], env, cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = paths.queue_file().read_text(encoding="utf-8").splitlines()
    (record,) = [json.loads(line) for line in lines]
    assert record["source"] == "claude-code"
    transcript = Path(record["transcript_path"])
    assert transcript.is_file() and transcript.is_relative_to(home)
    assert transcript.stem == record["session_id"]


# --- the hook script, run as Claude Code runs it --------------------------------------------


def _hook(stdin: bytes | None, env: dict[str, str] | None = None,
          **kw: Any) -> tuple[subprocess.CompletedProcess[bytes], float]:
    start = time.monotonic()
    result = subprocess.run([sys.executable, str(HOOK)], input=stdin, capture_output=True,
                            timeout=10, env=env, **kw)
    return result, time.monotonic() - start


def test_hook_appends_one_queue_line_per_session_within_a_second() -> None:
    for _ in range(2):
        result, seconds = _hook(json.dumps(PAYLOAD).encode())
        assert result.returncode == 0, result.stderr
        assert seconds < 1.0
    lines = paths.queue_file().read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    record = json.loads(lines[0])
    assert set(record) == {"session_id", "transcript_path", "ended_at", "source"}
    assert record["session_id"] == PAYLOAD["session_id"]
    assert record["transcript_path"] == PAYLOAD["transcript_path"]
    assert record["source"] == "claude-code"
    assert record["ended_at"].endswith("+00:00")


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"session_id": "x"}',
                                   b"\xff\xfe{"])
def test_hook_bad_payload_exits_zero_with_a_message_and_queues_nothing(stdin: bytes) -> None:
    result, _ = _hook(stdin)
    assert result.returncode == 0
    assert b"session not queued" in result.stderr
    assert not paths.queue_file().exists()


def test_hook_returns_within_a_second_when_stdin_never_closes() -> None:
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(HOOK)], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(PAYLOAD).encode())
    proc.stdin.flush()
    try:
        proc.wait(timeout=5)
        assert proc.returncode == 0
        assert time.monotonic() - start < 1.0
    finally:
        proc.stdin.close()
        proc.kill() if proc.poll() is None else None
    # A payload never terminated by EOF is read up to the time bound, then queued.
    assert len(paths.queue_file().read_text(encoding="utf-8").splitlines()) == 1


def test_hook_state_dir_matches_the_engine_without_the_override(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SKILLOPT_SLEEP_HOME"}
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "xdg-state"))
    # The system python3 (as in the hooks file), which need not have platformdirs.
    python = shutil.which("python3") or sys.executable
    subprocess.run([python, str(HOOK)], input=json.dumps(PAYLOAD).encode(), env=env,
                   check=True, timeout=10)
    engine = subprocess.run([sys.executable, "-c",
                             "from skillopt_sleep.paths import queue_file; print(queue_file())"],
                            env=env, capture_output=True, text=True, check=True)
    assert Path(engine.stdout.strip()).is_file()


# --- the launcher ---------------------------------------------------------------------------


def test_launcher_prints_the_install_command_when_the_engine_is_missing(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run([str(LAUNCHER), "status"], env=env, capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 127
    assert "pipx install /path/to/skillopt-sleep" in result.stderr


def test_launcher_runs_the_configured_interpreter(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "SKILLOPT_SLEEP_PYTHON": sys.executable,
           "SKILLOPT_SLEEP_HOME": str(tmp_path / "state")}
    result = subprocess.run([str(LAUNCHER), "--help"], env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "harvest" in result.stdout


def test_launcher_finds_skillopt_sleep_on_path(tmp_path: Path) -> None:
    bindir = Path(sys.executable).parent
    require_script = bindir / "skillopt-sleep"
    assert require_script.is_file(), "the venv installs the console script"
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path),
           "SKILLOPT_SLEEP_HOME": str(tmp_path / "state")}
    result = subprocess.run([str(LAUNCHER), "lint", "--help"], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_launcher_is_shellcheck_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    require(shellcheck is not None, "shellcheck is not installed (apt-get install shellcheck)")
    assert shellcheck is not None
    result = subprocess.run([shellcheck, "--severity=style", str(LAUNCHER)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_the_pipeline_reads_what_the_hook_queued(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    shutil.copy(fixture("claude-code/bugfix_snapshots.jsonl"), transcript)
    payload = {**PAYLOAD, "transcript_path": str(transcript)}
    assert _hook(json.dumps(payload).encode())[0].returncode == 0
    env = {**os.environ, "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "skillopt_sleep", "run", "--dry-run",
                             "--json", "--project", str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["counts"]["harvest"]["queued"] == 1


# --- a bare /skillopt-sleep: the opt-in personal command ------------------------------------


def _alias(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", "claude-alias", *args],
                          env=env, capture_output=True, text=True, timeout=60, input=stdin)


def test_the_packaged_command_is_the_plugins_own() -> None:
    # The wheel carries a copy (the plugin folder is not in it); they must never drift.
    packaged = REPO / "skillopt_sleep" / "cli" / "claude_command.md"
    assert packaged.read_bytes() == (PLUGIN / "commands" / "skillopt-sleep.md").read_bytes()


def test_alias_install_and_uninstall(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "commands" / "skillopt-sleep.md"
    done = _alias(tmp_path, "install")
    assert done.returncode == 0, done.stderr
    assert str(path) in done.stdout
    text = path.read_text(encoding="utf-8")
    command = (PLUGIN / "commands" / "skillopt-sleep.md").read_text(encoding="utf-8")
    assert text.replace("<!-- written by `skillopt-sleep claude-alias install`; "
                        "`skillopt-sleep claude-alias uninstall` removes it -->\n", "") == command
    assert _frontmatter(path)["allowed-tools"] == _frontmatter(
        PLUGIN / "commands" / "skillopt-sleep.md")["allowed-tools"]
    assert "already installed" in _alias(tmp_path, "install").stdout
    done = _alias(tmp_path, "uninstall")
    assert done.returncode == 0 and not path.exists() and path.parent.is_dir()
    assert "nothing to remove" in _alias(tmp_path, "uninstall").stdout


def test_alias_never_replaces_the_users_own_file_unasked(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "commands" / "skillopt-sleep.md"
    path.parent.mkdir(parents=True)
    path.write_text("my own command\n", encoding="utf-8")
    refused = _alias(tmp_path, "install")
    assert refused.returncode != 0 and "--force" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert path.read_text(encoding="utf-8") == "my own command\n"
    refused = _alias(tmp_path, "uninstall")
    assert refused.returncode != 0 and "not written by skillopt-sleep" in refused.stderr
    assert path.read_text(encoding="utf-8") == "my own command\n"
    assert "would write" in _alias(tmp_path, "install", "--force", "--dry-run").stdout
    assert path.read_text(encoding="utf-8") == "my own command\n"
    done = _alias(tmp_path, "install", "--force")
    assert done.returncode == 0, done.stderr
    (backup,) = path.parent.glob("skillopt-sleep.md.*.bak")
    assert backup.read_text(encoding="utf-8") == "my own command\n"
    assert "skillopt-sleep-launcher status --json" in path.read_text(encoding="utf-8")


def test_alias_follows_claude_config_dir(tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path / "home"), CLAUDE_CONFIG_DIR=str(tmp_path / "cc"),
               PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "skillopt_sleep", "claude-alias", "install"], env=env,
                   check=True, capture_output=True, timeout=60)
    assert (tmp_path / "cc" / "commands" / "skillopt-sleep.md").is_file()
    assert not (tmp_path / "home" / ".claude").exists()


def _slash(claude: Path, env: dict[str, str], project: Path, prompt: str) -> str:
    """What the model received for ``prompt`` typed as a session's first message."""
    with FakeLLMServer(default=Text("ok")) as server:
        run_env = dict(env, ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="dummy")
        result = _run([str(claude), "-p", prompt], run_env, cwd=project)
        requests = server.model_requests()
    assert result.returncode == 0, result.stdout + result.stderr
    (request,) = requests
    return json.dumps(request.body["messages"])


COMMAND_REACHED = "skillopt-sleep-launcher status --json"


@pytest.mark.realcli
def test_real_claude_resolves_the_namespaced_command_and_the_bare_alias(
        claude: Path, tmp_path: Path) -> None:
    home, env = _install(claude, tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    # The plugin's own command is namespaced; a bare name is plain text to the model.
    assert COMMAND_REACHED in _slash(claude, env, project, "/skillopt-sleep:skillopt-sleep status")
    bare = _slash(claude, env, project, "/skillopt-sleep status")
    assert COMMAND_REACHED not in bare and "/skillopt-sleep status" in bare
    assert _alias(home, "install").returncode == 0
    sent = _slash(claude, env, project, "/skillopt-sleep status")
    assert COMMAND_REACHED in sent and "Arguments: `status`" in sent
    assert _alias(home, "uninstall").returncode == 0
    assert COMMAND_REACHED not in _slash(claude, env, project, "/skillopt-sleep status")
