"""Install the daemon as a user service: a systemd user unit, a launchd agent, or cron.

The service runs the absolute path of the current interpreter with ``-m skillopt_sleep
daemon run`` and every flag the user gave, plus the environment that decides where
things are (``SKILLOPT_SLEEP_*``, the agents' homes, ``PATH`` for the agent CLIs); a
variable that looks like a secret is never written into a unit file — it belongs in the
optional environment file the unit reads. A manifest records exactly what was written, so
``uninstall`` removes that and nothing else (for cron: only its own marked line).
"""

from __future__ import annotations

import json
import os
import plistlib
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import ConfigError

__all__ = ["KINDS", "LABEL", "UNIT_NAME", "Installed", "default_kind", "install",
           "service_argv", "service_env", "uninstall"]

KINDS = ("systemd", "launchd", "cron")
UNIT_NAME = "skillopt-sleep.service"
LABEL = "dev.skillopt-sleep.daemon"
CRON_MARK = "# skillopt-sleep daemon"
_PASSED = ("PATH", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "XDG_CONFIG_HOME",
           "XDG_STATE_HOME", "XDG_CACHE_HOME", "VSCODE_PORTABLE")
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.I)

Runner = Callable[..., "subprocess.CompletedProcess[str]"]
"""``run(argv, stdin=None)``: how commands are run (tests pass a recorder)."""


def _run(argv: Sequence[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(argv), input=stdin, capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(list(argv), 127, "", str(exc))


@dataclass
class Installed:
    """What an install wrote (also the manifest ``uninstall`` reads back)."""

    kind: str
    path: str
    content: str
    enabled: bool = False
    hints: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    """Folders the install made (deepest first): ``uninstall`` removes those left empty."""


def default_kind() -> str:
    return "launchd" if sys.platform == "darwin" else "systemd"


def service_argv(flags: Sequence[str] = ()) -> list[str]:
    return [os.path.abspath(sys.executable), "-m", "skillopt_sleep", "daemon", "run", *flags]


def service_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    environ = dict(os.environ if environ is None else environ)
    keep = {k: v for k, v in environ.items()
            if (k in _PASSED or k.startswith("SKILLOPT_SLEEP_")) and not _SECRET.search(k)}
    return dict(sorted(keep.items()))


def _manifest() -> Path:
    return paths.config_dir() / "daemon-install.json"


def env_file() -> Path:
    """Optional ``KEY=VALUE`` lines (API keys) the systemd unit reads; never written by us."""
    return paths.config_dir() / "daemon.env"


# --- systemd ----------------------------------------------------------------------------


def systemd_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def _sd_quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return f'"{escaped}"'


def systemd_unit(argv: Sequence[str], env: dict[str, str]) -> str:
    exec_start = " ".join(_sd_quote(a).replace("$", "$$") for a in argv)
    lines = ["[Unit]", "Description=skillopt-sleep: nightly, validation-gated skill optimisation",
             "", "[Service]", "Type=simple", f"ExecStart={exec_start}"]
    lines += [f"Environment={_sd_quote(f'{k}={v}')}" for k, v in env.items()]
    lines += [f"EnvironmentFile=-{env_file()}", "Restart=on-failure", "RestartSec=30",
              "TimeoutStopSec=120", "Nice=10", "", "[Install]", "WantedBy=default.target", ""]
    return "\n".join(lines)


def _enable_systemd(run: Runner) -> tuple[bool, list[str]]:
    how = f"systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}"
    for argv in (["systemctl", "--user", "daemon-reload"],
                 ["systemctl", "--user", "enable", "--now", UNIT_NAME]):
        done = run(argv)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()
            return False, [f"could not enable it ({why[0] if why else 'systemctl failed'});"
                           f" enable it yourself: {how}"]
    return True, [f"inspect: systemctl --user status {UNIT_NAME}",
                  f"logs: journalctl --user -u {UNIT_NAME}"]


# --- launchd ----------------------------------------------------------------------------


def launchd_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def launchd_plist(argv: Sequence[str], env: dict[str, str]) -> str:
    log = paths.log_dir()
    data = {"Label": LABEL, "ProgramArguments": list(argv), "EnvironmentVariables": env,
            "RunAtLoad": True, "KeepAlive": {"SuccessfulExit": False},
            "ProcessType": "Background", "LowPriorityIO": True,
            "StandardOutPath": str(log / "launchd.out.log"),
            "StandardErrorPath": str(log / "launchd.err.log")}
    return plistlib.dumps(data).decode("utf-8")


def _enable_launchd(run: Runner, path: Path) -> tuple[bool, list[str]]:
    domain = f"gui/{os.getuid()}"
    inspect = f"inspect: launchctl print {domain}/{LABEL}"
    if sys.platform != "darwin":
        return False, [f"load it on macOS with: launchctl bootstrap {domain} {path}", inspect]
    done = run(["launchctl", "bootstrap", domain, str(path)])
    if done.returncode != 0:
        return False, [f"could not load it; run: launchctl bootstrap {domain} {path}", inspect]
    return True, [inspect]


# --- cron -------------------------------------------------------------------------------


def cron_line(argv: Sequence[str], env: dict[str, str]) -> str:
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    logfile = shlex.quote(str(paths.log_dir() / "cron.log"))
    prefix = f"env {assignments} " if assignments else ""
    return f"@reboot {prefix}{shlex.join(argv)} >> {logfile} 2>&1 {CRON_MARK}"


def _crontab(run: Runner) -> list[str]:
    done = run(["crontab", "-l"])
    if done.returncode != 0:
        if "no crontab" in (done.stderr or "").lower():
            return []
        raise ConfigError(f"crontab -l failed: {(done.stderr or '').strip() or 'not found'}")
    return done.stdout.splitlines()


def _write_crontab(lines: list[str], run: Runner
                   ) -> None:
    done = run(["crontab", "-"], "\n".join(lines) + "\n")
    if done.returncode != 0:
        raise ConfigError(f"crontab - failed: {(done.stderr or '').strip()}")


# --- install / uninstall ----------------------------------------------------------------


def install(kind: str | None = None, flags: Sequence[str] = (), *, dry_run: bool = False,
            run: Runner = _run) -> Installed:
    """Write (unless ``dry_run``) and enable the user service of ``kind``."""
    kind = kind or default_kind()
    if kind not in KINDS:
        raise ConfigError(f"--kind {kind!r}: choose one of {', '.join(KINDS)}")
    argv, env = service_argv(flags), service_env()
    if kind == "systemd":
        done = Installed(kind, str(systemd_dir() / UNIT_NAME), systemd_unit(argv, env))
    elif kind == "launchd":
        done = Installed(kind, str(launchd_path()), launchd_plist(argv, env))
    else:
        done = Installed(kind, "crontab", cron_line(argv, env))
    if dry_run:
        done.hints = ["dry run: nothing written"]
        return done
    _write(done, run)
    _make_dirs(_manifest().parent, done.created)
    write_atomic(_manifest(), json.dumps(asdict(done), indent=1).encode("utf-8"))
    return done


def _make_dirs(folder: Path, created: list[str]) -> None:
    """``mkdir -p folder``, noting in ``created`` each folder that did not exist."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
    created[:0] = [str(path) for path in missing]  # deepest first, before older entries


def _remove_dirs(created: list[str]) -> list[str]:
    """Remove the folders an install made, deepest first, where nothing else lives now."""
    removed = []
    for folder in sorted(created, key=lambda f: -len(Path(f).parts)):
        try:
            Path(folder).rmdir()
        except OSError:  # gone already, or the user keeps something there now
            continue
        removed.append(folder)
    return removed


def _write(done: Installed, run: Runner) -> None:
    if done.kind == "cron":
        lines = [line for line in _crontab(run) if not line.endswith(CRON_MARK)]
        _write_crontab([*lines, done.content], run)
        done.enabled = True  # the crontab is the schedule: nothing more to enable
        done.hints = ["inspect: crontab -l", "it starts at the next boot; start it now with:"
                      " skillopt-sleep daemon run &"]
        return
    path = Path(done.path)
    _make_dirs(path.parent, done.created)
    write_atomic(path, done.content.encode("utf-8"))
    if done.kind == "systemd":
        done.enabled, done.hints = _enable_systemd(run)
    else:
        done.enabled, done.hints = _enable_launchd(run, path)


def uninstall(*, run: Runner = _run) -> list[str]:
    """Disable and remove what ``install`` wrote; returns what was removed."""
    try:
        done = Installed(**json.loads(_manifest().read_text(encoding="utf-8")))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"{_manifest()} is unreadable ({exc}); remove it by hand") from exc
    removed: list[str] = []
    if done.kind == "cron":
        lines = _crontab(run)
        kept = [line for line in lines if line != done.content]
        if len(kept) != len(lines):
            _write_crontab(kept, run)
            removed.append(f"crontab line: {done.content}")
    else:
        if done.kind == "systemd":
            run(["systemctl", "--user", "disable", "--now", UNIT_NAME])
        elif sys.platform == "darwin":
            run(["launchctl", "bootout", f"gui/{os.getuid()}/{LABEL}"])
        path = Path(done.path)
        if path.exists():
            path.unlink()
            removed.append(str(path))
        if done.kind == "systemd":
            run(["systemctl", "--user", "daemon-reload"])
    _manifest().unlink(missing_ok=True)
    return removed + _remove_dirs(done.created)
