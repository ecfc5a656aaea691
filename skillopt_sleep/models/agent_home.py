"""Isolated homes for the agent CLIs, and running them as a killable process group.

Each replay runs in a fresh temporary home (``HOME``, ``CLAUDE_CONFIG_DIR`` /
``CODEX_HOME``) and working directory, so the user's other skills, hooks, memory and MCP
servers stay out of the measurement, and the replay's own transcript lands in the temp
dir rather than where the harvester looks. Only the login is carried over: the
credentials file is copied in and, if the CLI refreshed it during the run (OAuth tokens
rotate), copied back, so a replay never logs the user out.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock


@dataclass
class Sandbox:
    root: Path
    home: Path
    work: Path


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


@contextmanager
def sandbox(config_name: str, source: Path, carried: Sequence[str]) -> Iterator[Sandbox]:
    """A temp home whose ``config_name`` dir holds copies of ``carried`` files from ``source``.

    Files the CLI changed in place (a refreshed token) are written back to ``source``
    under a lock, so concurrent replays do not clobber each other's refresh.
    """
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-replay-") as raw:
        root = Path(raw)
        box = Sandbox(root, root / "home", root / "work")
        config = box.home / config_name
        config.mkdir(parents=True)
        box.work.mkdir()
        before: dict[str, str] = {}
        for name in carried:
            if (source / name).is_file():
                shutil.copy2(source / name, config / name)
                before[name] = _digest(config / name)
        try:
            yield box
        finally:
            _write_back(config, source, before)


def _write_back(config: Path, source: Path, before: dict[str, str]) -> None:
    for name, digest in before.items():
        copy = config / name
        if copy.is_file() and _digest(copy) != digest:
            with FileLock(str(source / f".{name}.skillopt-sleep.lock")):
                tmp = source / f".{name}.skillopt-sleep.tmp"
                shutil.copy2(copy, tmp)
                os.replace(tmp, source / name)


def run(command: Sequence[str], *, stdin: str, env: dict[str, str], cwd: Path,
        timeout_s: float) -> Run:
    """Run ``command`` in its own process group; on timeout kill the whole group."""
    process = subprocess.Popen(
        list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, cwd=cwd, text=True, encoding="utf-8", errors="replace",
        start_new_session=True,
    )
    try:
        out, err = process.communicate(stdin, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise TimeoutError(f"{Path(command[0]).name} did not finish in {timeout_s:g}s") from None
    return Run(process.returncode, out, err)


def _kill_group(process: subprocess.Popen[str]) -> None:
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def base_env(home: Path) -> dict[str, str]:
    """The user's environment with ``HOME`` moved to the sandbox (keys and proxies kept)."""
    env = dict(os.environ)
    env["HOME"] = str(home)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env.pop(name, None)
    return env
