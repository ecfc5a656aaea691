"""Installing the daemon as a user service, in a temporary home, and removing it exactly."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.daemon import install as inst

from ._require import require

FLAGS = ["--hour", "4", "--minute", "5", "--target", "anthropic:claude-x", "--adopt",
         "review", "--min-new-sessions", "3", "--require-ac-power", "--debounce", "90"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user / ".config"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-do-not-copy")
    return user


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def _no_systemctl(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(argv, 1, "", "Failed to connect to bus: No medium found")


def _verify(analyze: str, unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                          timeout=60)


def test_systemd_unit_written_verified_and_removed(home: Path) -> None:
    before = _files(home)
    done = inst.install("systemd", FLAGS, run=_no_systemctl)
    unit = home / ".config" / "systemd" / "user" / inst.UNIT_NAME
    assert done.path == str(unit) and unit.read_text() == done.content
    text = unit.read_text()
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert f'"{os.path.abspath(sys.executable)}" "-m" "skillopt_sleep" "daemon" "run"' \
        in exec_line
    for flag in FLAGS:  # every flag the user gave is kept
        assert f'"{flag}"' in exec_line
    assert "sk-ant-do-not-copy" not in text and "ANTHROPIC_API_KEY" not in text
    assert "SKILLOPT_SLEEP_HOME=" in text  # where its state lives goes with it
    assert not done.enabled and any("systemctl --user enable --now" in h for h in done.hints)
    analyze = shutil.which("systemd-analyze")
    require(analyze is not None, "systemd-analyze is not installed")
    assert analyze is not None
    # System mode: a user manager is not needed to parse a unit (and is absent in CI).
    broken = unit.with_name("broken.service")
    broken.write_text(text.replace(f"ExecStart={exec_line[10:]}", "ExecStart=relative/python"))
    assert _verify(analyze, broken).returncode != 0  # the check can fail
    broken.unlink()
    verify = _verify(analyze, unit)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    removed = inst.uninstall(run=_no_systemctl)
    assert removed[0] == str(unit) and str(unit.parent) in removed  # and the folders it made
    assert _files(home) == before
    assert not unit.exists() and not (home / ".config").exists()


def test_launchd_plist_is_valid_and_removed(home: Path) -> None:
    done = inst.install("launchd", FLAGS, run=_no_systemctl)
    path = home / "Library" / "LaunchAgents" / f"{inst.LABEL}.plist"
    data = plistlib.loads(path.read_bytes())
    assert data["Label"] == inst.LABEL and data["RunAtLoad"] is True
    assert data["KeepAlive"] == {"SuccessfulExit": False}
    assert data["ProgramArguments"] == [os.path.abspath(sys.executable), "-m", "skillopt_sleep",
                                        "daemon", "run", *FLAGS]
    assert "ANTHROPIC_API_KEY" not in data["EnvironmentVariables"]
    assert any("launchctl" in h for h in done.hints)
    removed = inst.uninstall(run=_no_systemctl)
    assert removed[0] == str(path) and str(home / "Library") in removed
    assert not path.exists() and not (home / "Library").exists()


@pytest.fixture
def fake_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``crontab`` on PATH that keeps the table in a file, like the real one per user."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    table = tmp_path / "crontab.txt"
    script = bin_dir / "crontab"
    script.write_text(f"""#!/bin/sh
if [ "$1" = "-l" ]; then
  [ -f {table} ] || {{ echo "no crontab for user" >&2; exit 1; }}
  cat {table}
elif [ "$1" = "-" ]; then
  cat > {table}
else
  exit 2
fi
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return table


def test_cron_line_added_and_removed_leaving_other_lines(home: Path, fake_crontab: Path) -> None:
    fake_crontab.write_text("MAILTO=me\n0 5 * * * backup --all\n")
    done = inst.install("cron", FLAGS)
    lines = fake_crontab.read_text().splitlines()
    assert lines[:2] == ["MAILTO=me", "0 5 * * * backup --all"]
    assert lines[2] == done.content and done.content.startswith("@reboot ")
    assert "-m skillopt_sleep daemon run --hour 4" in done.content
    inst.install("cron", FLAGS)  # installing twice keeps one line
    assert fake_crontab.read_text().count("@reboot") == 1
    assert inst.uninstall() == [f"crontab line: {done.content}"]
    assert fake_crontab.read_text() == "MAILTO=me\n0 5 * * * backup --all\n"
    assert inst.uninstall() == []


def test_cron_into_an_empty_crontab(home: Path, fake_crontab: Path) -> None:
    inst.install("cron")
    assert fake_crontab.read_text().count("\n") == 1
    inst.uninstall()
    assert fake_crontab.read_text().strip() == ""


def test_cli_dry_run_writes_nothing_and_unknown_kind_is_an_error(home: Path,
                                                                 isolated_home: Path) -> None:
    env = os.environ | {"HOME": str(home)}
    before = _files(home)
    dry = _cli("daemon", "install", "--kind", "systemd", "--dry-run", "--hour", "2",
               "--max-load", "0.5", env=env)
    assert dry.returncode == 0, dry.stderr
    assert "would write systemd" in dry.stdout and '"--hour" "2"' in dry.stdout
    assert '"--max-load" "0.5"' in dry.stdout  # the idle condition is kept too
    assert _files(home) == before
    no_load = _cli("daemon", "install", "--dry-run", "--max-load", "0", env=env)
    assert no_load.returncode == 2 and "must be above 0" in no_load.stderr
    bad = _cli("daemon", "install", "--kind", "upstart", env=env)
    assert bad.returncode == 2 and "choose one of systemd, launchd, cron" in bad.stderr
    # Not on macOS: the plist is written but cannot be loaded here, and the exit code says so.
    real = _cli("daemon", "install", "--kind", "launchd", env=env)
    assert real.returncode == 1 and "launchctl print" in real.stdout
    assert "written but not enabled" in real.stderr
    gone = _cli("daemon", "uninstall", env=env)
    assert gone.returncode == 0 and "removed" in gone.stdout
    assert _files(home) == before


def _tree(root: Path) -> set[str]:
    """Every file and folder under ``root``."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _fake_systemctl(tmp_path: Path, code: int) -> dict[str, str]:
    """``PATH`` with a ``systemctl`` that records its calls and exits ``code``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    tool = bindir / "systemctl"
    tool.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'calls'}\n"
                    f"[ {code} = 0 ] || echo 'Failed to connect to bus: No medium found' >&2\n"
                    f"exit {code}\n")
    tool.chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


def test_install_exits_non_zero_when_enabling_fails(home: Path, tmp_path: Path,
                                                     isolated_home: Path) -> None:
    env = os.environ | {"HOME": str(home)} | _fake_systemctl(tmp_path, 1)
    done = _cli("daemon", "install", "--kind", "systemd", env=env)
    assert done.returncode == 1, done.stderr
    assert "could not enable it (Failed to connect to bus" in done.stdout
    assert "systemctl --user enable --now" in done.stdout
    assert (home / ".config" / "systemd" / "user" / inst.UNIT_NAME).is_file()
    assert _cli("daemon", "uninstall", env=env).returncode == 0


def test_install_then_uninstall_leaves_no_folder_behind(home: Path, tmp_path: Path,
                                                        isolated_home: Path) -> None:
    env = os.environ | {"HOME": str(home)} | _fake_systemctl(tmp_path, 0)
    before_home, before_state = _tree(home), _tree(isolated_home)
    done = _cli("daemon", "install", "--kind", "systemd", env=env)
    assert done.returncode == 0, done.stderr
    assert "enable --now skillopt-sleep.service" in (tmp_path / "calls").read_text()
    assert _tree(home) != before_home
    gone = _cli("daemon", "uninstall", env=env)
    assert gone.returncode == 0, gone.stderr
    assert f"removed {home / '.config' / 'systemd'}" in gone.stdout
    # The CLI's own cache (detect-secrets' vendor rules, ``secrets.rule_file``) is not the
    # install's: any command that prints a long token run keeps it.
    kept = {"cache", "cache/vendor-rules.json"}
    assert _tree(home) == before_home and _tree(isolated_home) - kept == before_state
    assert "disable --now skillopt-sleep.service" in (tmp_path / "calls").read_text()


def test_uninstall_keeps_a_folder_the_user_put_something_in(home: Path) -> None:
    inst.install("systemd", [], run=_no_systemctl)
    mine = home / ".config" / "systemd" / "user" / "my-own.service"
    mine.write_text("[Unit]\n")
    removed = inst.uninstall(run=_no_systemctl)
    assert mine.is_file() and str(home / ".config" / "systemd" / "user") not in removed
