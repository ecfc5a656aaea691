"""The Codex skill installer: idempotent install, backups, uninstall, shellcheck, real codex."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests._clis import cli
from tests._require import require
from tests.fakes.llm_server import FakeLLMServer, Text

REPO = Path(__file__).resolve().parents[1]
CODEX = REPO / "plugins" / "codex"
INSTALL = CODEX / "install.sh"
SHIPPED = CODEX / "skills" / "skillopt-sleep" / "SKILL.md"


def _env(home: Path, codex_home: Path | None = None) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C"}
    if codex_home is not None:
        env["CODEX_HOME"] = str(codex_home)
    return env


def _install(home: Path, *args: str, codex_home: Path | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], env=_env(home, codex_home),
                          capture_output=True, text=True, timeout=30)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_shipped_skill_has_the_frontmatter_codex_requires() -> None:
    head = SHIPPED.read_text(encoding="utf-8").split("---\n", 2)[1]
    meta = yaml.safe_load(head)
    assert meta["name"] == "skillopt-sleep" == SHIPPED.parent.name
    assert 0 < len(meta["description"]) <= 1024


def test_install_twice_is_idempotent_then_uninstall_removes_it(tmp_path: Path) -> None:
    first = _install(tmp_path)
    assert first.returncode == 0, first.stderr
    installed = tmp_path / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md"
    assert installed.read_bytes() == SHIPPED.read_bytes()
    assert "+ cp -R" in first.stdout and "installed" in first.stdout
    before = _tree(tmp_path)

    second = _install(tmp_path)
    assert second.returncode == 0, second.stderr
    assert "unchanged" in second.stdout and "+ " not in second.stdout
    assert _tree(tmp_path) == before, "a second install changed files"
    assert not (tmp_path / ".agents" / ".skillopt-sleep-backups").exists()

    gone = _install(tmp_path, "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert "removed" in gone.stdout and not installed.parent.exists()
    again = _install(tmp_path, "--uninstall")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


def test_a_modified_copy_is_backed_up_outside_the_skills_root(tmp_path: Path) -> None:
    assert _install(tmp_path).returncode == 0
    installed = tmp_path / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md"
    installed.write_text(installed.read_text() + "\nmy own note\n")
    result = _install(tmp_path)
    assert result.returncode == 0, result.stderr
    assert installed.read_bytes() == SHIPPED.read_bytes()
    (backup,) = (tmp_path / ".agents" / ".skillopt-sleep-backups").glob("*/skillopt-sleep/SKILL.md")
    assert backup.read_text().endswith("my own note\n")
    assert "backed up" in result.stdout

    installed.write_text("edited again\n")
    assert _install(tmp_path, "--uninstall").returncode == 0
    backups = list((tmp_path / ".agents" / ".skillopt-sleep-backups").glob("*/*/SKILL.md"))
    assert any(b.read_text() == "edited again\n" for b in backups), "uninstall lost an edit"


def test_dry_run_prints_actions_and_writes_nothing(tmp_path: Path) -> None:
    result = _install(tmp_path, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "[dry-run] would: cp -R" in result.stdout
    assert not (tmp_path / ".agents").exists()
    assert _install(tmp_path).returncode == 0
    (tmp_path / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md").write_text("x\n")
    before = _tree(tmp_path)
    for args in (["--dry-run"], ["--dry-run", "--uninstall"]):
        assert _install(tmp_path, *args).returncode == 0
        assert _tree(tmp_path) == before


def test_legacy_copy_is_reported_and_left_alone(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    legacy = codex_home / "skills" / "skillopt-sleep" / "SKILL.md"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("old\n")
    result = _install(tmp_path, codex_home=codex_home)
    assert result.returncode == 0
    assert str(legacy.parent) in result.stderr and "twice" in result.stderr
    assert legacy.read_text() == "old\n"
    assert (tmp_path / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md").is_file()


def test_unknown_option_is_an_error(tmp_path: Path) -> None:
    result = _install(tmp_path, "--force")
    assert result.returncode == 2 and "unknown option --force" in result.stderr
    assert not (tmp_path / ".agents").exists()


def test_installer_warns_when_the_engine_is_missing(tmp_path: Path) -> None:
    result = _install(tmp_path)
    assert "pipx install /path/to/skillopt-sleep" in result.stderr


def test_shellcheck_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    require(shellcheck is not None, "shellcheck is not installed (apt-get install shellcheck)")
    assert shellcheck is not None
    result = subprocess.run([shellcheck, "--severity=style", str(INSTALL)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_powershell_twin_exists_and_says_it_is_untested() -> None:
    text = (CODEX / "install.ps1").read_text(encoding="utf-8")
    assert "UNTESTED" in text and "-Uninstall" in text and "-DryRun" in text


# --- the real codex CLI ---------------------------------------------------------------------


def _codex_config(codex_home: Path, base_url: str) -> None:
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-5"\nmodel_provider = "fake"\napproval_policy = "never"\n'
        'sandbox_mode = "workspace-write"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{base_url}"\nwire_api = "responses"\nenv_key = "FAKE_API_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n",
        encoding="utf-8")


def _announced_skills(codex: Path, home: Path, codex_home: Path, cwd: Path) -> str:
    with FakeLLMServer(default=Text("done")) as server:
        _codex_config(codex_home, server.openai_base_url)
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(codex_home),
               "FAKE_API_KEY": "dummy"}
        result = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "say done"],
                                env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
        bodies = [json.dumps(r.body) for r in server.model_requests()]
    assert bodies, "codex sent no model request"
    return bodies[0]


@pytest.fixture(scope="module")
def codex() -> Path:
    return cli("codex")


def test_real_codex_lists_the_installed_skill(codex: Path, tmp_path: Path) -> None:
    home, codex_home = tmp_path / "home", tmp_path / "codex-home"
    home.mkdir()
    before = _announced_skills(codex, home, codex_home, tmp_path)
    assert "- skillopt-sleep:" not in before

    assert _install(home, codex_home=codex_home).returncode == 0
    after = _announced_skills(codex, home, codex_home, tmp_path)
    assert "- skillopt-sleep: Run a skillopt-sleep night" in after
    assert after.count("- skillopt-sleep:") == 1

    assert _install(home, "--uninstall", codex_home=codex_home).returncode == 0
    assert "- skillopt-sleep:" not in _announced_skills(codex, home, codex_home, tmp_path)
