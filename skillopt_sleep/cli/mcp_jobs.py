"""The nights an MCP server starts: each a child process running the CLI, its output in
files under the state dir, followed by ``sleep_job`` (``cli.mcp_server``)."""

from __future__ import annotations

import atexit
import json
import logging
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from skillopt_sleep import paths
from skillopt_sleep.errors import RoleUnavailable

__all__ = ["HANDOFF_PENDING", "NIGHT_FAILED", "OUTPUT_TAIL", "Job", "Jobs", "cli_argv",
           "parse_output"]

log = logging.getLogger("skillopt_sleep.mcp")

HANDOFF_PENDING = 3
NIGHT_FAILED = RoleUnavailable.exit_code
OUTPUT_TAIL = 4000


def cli_argv(*args: str) -> list[str]:
    """The command line of one CLI call, with this server's interpreter (no shell)."""
    return [sys.executable, "-m", "skillopt_sleep", *args]


def parse_output(stdout: str) -> dict[str, Any]:
    """One JSON object, or JSON Lines as ``{"items": [...], "summary": {...}}``."""
    text = stdout.strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        pass
    else:
        return value if isinstance(value, dict) else {"items": value}
    items: list[Any] = []
    summary: Any = None
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            return {"text": text[-OUTPUT_TAIL:]}
        if isinstance(item, dict) and set(item) == {"summary"}:
            summary = item["summary"]
        else:
            items.append(item)
    return {"items": items, "summary": summary}


@dataclass
class Job:
    """A night running as a child process; its output goes to files in the state dir."""

    job_id: str
    argv: list[str]
    folder: Path
    process: subprocess.Popen[bytes]
    started: float = field(default_factory=time.time)
    project: str | None = None

    @property
    def stdout_path(self) -> Path:
        return self.folder / "stdout.jsonl"

    @property
    def stderr_path(self) -> Path:
        return self.folder / "stderr.log"

    def state(self) -> str:
        code = self.process.poll()
        if code is None:
            return "running"
        return "succeeded" if code in (0, HANDOFF_PENDING) else "failed"

    def describe(self) -> dict[str, Any]:
        code = self.process.poll()
        info: dict[str, Any] = {
            "job_id": self.job_id, "state": self.state(), "exit_code": code,
            "elapsed_seconds": round(time.time() - self.started, 1),
            "progress": _tail(self.stderr_path, 20), "command": self.argv[3:],
        }
        if code is not None:
            info["result"] = parse_output(self.stdout_path.read_text("utf-8", "replace"))
            if code == HANDOFF_PENDING:
                info["status"] = info["result"].get("status", "handoff_pending")
            elif code == NIGHT_FAILED:  # a model could not answer: the night is recorded failed
                info["status"] = "night_failed"
                info["why"] = info["result"].get("failed") or _tail(self.stderr_path, 1)
        return info


def _tail(path: Path, lines: int) -> list[str]:
    try:
        return path.read_text("utf-8", "replace").splitlines()[-lines:]
    except OSError:
        return []


class Jobs:
    """The nights this server started, by id."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        atexit.register(self.stop_all)

    def start(self, args: list[str], project: str | None) -> Job:
        for job in self._jobs.values():
            if job.state() == "running" and job.project == project:
                raise ToolError(f"a night for this project is already running as job "
                                f"{job.job_id}; follow it with sleep_job")
        job_id = uuid.uuid4().hex[:12]
        folder = paths.ensure(paths.state_dir() / "mcp-jobs" / job_id)
        argv = cli_argv(*args)
        with open(folder / "stdout.jsonl", "wb") as out, open(folder / "stderr.log", "wb") as err:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        job = Job(job_id, argv, folder, process, project=project)
        self._jobs[job_id] = job
        log.info("job %s started: %s", job_id, " ".join(args))
        return job

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise ToolError(f"no job {job_id!r} in this server (jobs: {known})")
        return job

    def stop_all(self) -> None:
        for job in self._jobs.values():
            if job.process.poll() is None:
                job.process.terminate()
