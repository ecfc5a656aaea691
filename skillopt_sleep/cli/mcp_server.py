"""The MCP server (``skillopt-sleep mcp``): the CLI's commands as tools, over stdio.

A thin shell, like the agent plugins: every tool runs ``python -m skillopt_sleep <command>
--json`` and returns what the command printed, so the server holds no logic and every
rule the CLI enforces (adopt and rollback write only to the configured skill roots, ids
and versions exist, policy) holds here too. Arguments are validated before a command runs
(skill names, night ids, versions), so a tool cannot smuggle an option into the CLI.

A night takes minutes, longer than MCP clients wait for a tool call, so ``sleep_run``
starts it as a background process and returns a job id at once; ``sleep_job`` reports its
progress and, when it has ended, its result. Jobs end with the server (stopping a client
stops its nights). Nothing but protocol goes to stdout: children never inherit the
server's stdin or stdout, and logs go to stderr.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from skillopt_sleep import skill_names as names
from skillopt_sleep.cli._text import plain_help
from skillopt_sleep.cli.mcp_jobs import (
    HANDOFF_PENDING,
    OUTPUT_TAIL,
    Jobs,
    cli_argv,
    parse_output,
)
from skillopt_sleep.secrets import redact, redact_tree

log = logging.getLogger("skillopt_sleep.mcp")

# A skill's folder as adopt writes it: one path component, capitals, spaces and unicode
# allowed, no separator, ':' (plugin skills are read-only), leading '.' or '-'.
SKILL_NAME = re.compile(r"^[^/\\:.\-\s\x00-\x1f][^/\\:\x00-\x1f]{0,254}$")
NIGHT_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}$")
COMMAND_TIMEOUT = 600.0
SUMMARY_BYTES = 8192
"""What a tool returns by default: a summary an agent's context can hold."""

SkillName = Annotated[str, Field(pattern=SKILL_NAME.pattern,
                                 description="A skill's folder name, e.g. skillopt-sleep-learned "
                                             "or Research-Notes")]
NightId = Annotated[str, Field(pattern=NIGHT_ID.pattern,
                               description="A night id, YYYYMMDD-HHMMSS-<8 hex>")]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)
STARTS_NIGHT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                               open_world_hint=True)
WRITES_SKILLS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                open_world_hint=False)
RECORDS_SESSIONS = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                   idempotent_hint=True, open_world_hint=False)


# --- running the CLI ------------------------------------------------------------------------


def failure_message(command: str, code: int, stderr: str) -> str:
    """What a failed command tells the model; a command this install lacks says so plainly."""
    detail = stderr.strip()[-OUTPUT_TAIL:] or "(no message)"
    if code == 2 and "No such command" in detail:
        return (f"`skillopt-sleep {command}` is not available in this installation of "
                f"skillopt-sleep; update it. ({detail.splitlines()[-1]})")
    return f"`skillopt-sleep {command}` failed with exit code {code}: {detail}"


async def run_cli(*args: str, timeout: float = COMMAND_TIMEOUT,
                  limit: int | None = SUMMARY_BYTES) -> dict[str, Any]:
    """Run one CLI command to completion; a failure becomes a ``ToolError`` for the model.
    The result is cut to ``limit`` bytes (None: whole), see ``fit``."""
    proc = await asyncio.create_subprocess_exec(
        *cli_argv(*args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise ToolError(f"`skillopt-sleep {args[0]}` took longer than {timeout:.0f} s") from None
    except asyncio.CancelledError:
        # The client cancelled the call: the command must not outlive it.
        proc.kill()
        raise
    code = proc.returncode or 0
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    log.info("skillopt-sleep %s exited %s", " ".join(args), code)
    if code not in (0, HANDOFF_PENDING):
        raise ToolError(failure_message(args[0], code, stderr))
    result = parse_output(stdout)
    result["exit_code"] = code
    if code == HANDOFF_PENDING:  # ``run`` says so itself (waiting_for_answers, pending)
        result.setdefault("status", "handoff_pending")
    return fit(result, limit)


def fit(result: dict[str, Any], limit: int | None = SUMMARY_BYTES) -> dict[str, Any]:
    """At most ``limit`` bytes of JSON for an agent's context: list items are dropped from
    the end (oldest last, as the commands print them) and counted in ``omitted``."""
    items = result.get("items")
    if limit is None or not isinstance(items, list):
        return result
    while items and _size(result) > limit:
        items.pop()
        result["omitted"] = result.get("omitted", 0) + 1
    return result


def _size(value: Any) -> int:
    return len(json.dumps(value, default=str).encode("utf-8"))


# --- background nights ----------------------------------------------------------------------


# --- the tools ------------------------------------------------------------------------------


def _project(project: str | None) -> str | None:
    if project is None:
        return None
    path = Path(project).expanduser()
    if not path.is_absolute() or not path.is_dir():
        raise ToolError(f"project must be an existing folder given by its absolute path: "
                        f"{project!r}")
    return str(path.resolve())


def _skill(name: str | None) -> str | None:
    if name is not None and not (SKILL_NAME.match(name) and names.is_folder_name(name)):
        raise ToolError(f"invalid skill name {name!r}: one folder name, no '/', '\\', ':' "
                        "or leading '.' or '-'")
    return name


def _night(night: str | None) -> list[str]:
    if night is None:
        return []
    if not NIGHT_ID.match(night):
        raise ToolError(f"invalid night id {night!r}: expected YYYYMMDD-HHMMSS-<8 hex>")
    return [night]


class _RedactingServer(MCPServer):
    """Every tool's result and error redacted, whatever the tool read it from: what a tool
    returns lands in a model's context."""

    def tool(self, *args: Any, **kwargs: Any) -> Any:
        def wrap(fn: Any) -> Any:
            @functools.wraps(fn)
            async def redacted(*a: Any, **k: Any) -> Any:
                try:
                    return redact_tree(await fn(*a, **k))
                except ToolError as exc:
                    raise ToolError(redact(str(exc))[0]) from None

            # What the client shows: the docstring's sentences, without reST backticks
            # and without the line breaks that would cut them in two.
            described = {"description": plain_help(fn.__doc__), **kwargs}
            return MCPServer.tool(self, *args, **described)(redacted)

        return wrap


def build_server(jobs: Jobs | None = None) -> MCPServer:
    """The server with its seven tools; ``jobs`` holds the background nights."""
    jobs = jobs or Jobs()
    server = _RedactingServer("skillopt-sleep", instructions=(
        "Nightly, validation-gated improvement of coding-agent skills. Start a night with "
        "sleep_run and follow it with sleep_job; review with sleep_report; adopt only when "
        "the user asks; sleep_rollback undoes an adoption."))
    _night_tools(server, jobs)
    _harvest_tools(server)
    _skill_tools(server)
    return server


def _night_tools(server: MCPServer, jobs: Jobs) -> None:
    """Tools that read state or start nights: status, run, job, report."""

    @server.tool(annotations=READ_ONLY)
    async def sleep_status() -> dict[str, Any]:
        """What the last night changed and why, staged proposals, and the schedule; failed
        nights carry ``failed`` (the reason), and three in a row an alert in the summary."""
        return await run_cli("status", "--json")

    @server.tool(annotations=STARTS_NIGHT)
    async def sleep_run(
        project: Annotated[str | None, Field(description="Absolute path of the project")] = None,
        dry_run: Annotated[bool, Field(description="Plan only: no model calls")] = False,
        adopt: Annotated[Literal["review", "auto"], Field(
            description="review: stage proposals; auto: write validated skills back")] = "review",
    ) -> dict[str, Any]:
        """Start a night in the background and return its job id at once (see sleep_job)."""
        folder = _project(project)
        args = ["run", "--json", "--adopt", adopt]
        args += ["--project", folder] if folder else []
        args += ["--dry-run"] if dry_run else []
        job = jobs.start(args, folder)
        return {"job_id": job.job_id, "state": "running",
                "hint": "call sleep_job with this job_id for progress and the result"}

    @server.tool(annotations=READ_ONLY)
    async def sleep_job(
        job_id: Annotated[str, Field(pattern=r"^[0-9a-f]{12}$",
                                     description="The id sleep_run returned")],
    ) -> dict[str, Any]:
        """Progress of a background night (state, last log lines) and, once ended, its result."""
        return jobs.get(job_id).describe()

    @server.tool(annotations=READ_ONLY)
    async def sleep_report(
        night: NightId | None = None,
        full: Annotated[bool, Field(description="Every decision and task answer (100 KB and "
                                                "more) instead of the summary")] = False,
    ) -> dict[str, Any]:
        """A night's summary per skill (scores before → after, accepted edits with their
        evidence, at most 8 KB) and where its full report is (default: the last night)."""
        return await run_cli("report", *_night(night), "--json", *(["--full"] if full else []),
                             limit=None if full else SUMMARY_BYTES)


def _harvest_tools(server: MCPServer) -> None:
    """The tool that records new sessions: the harvest preview of what the next night learns."""

    @server.tool(annotations=RECORDS_SESSIONS)
    async def sleep_harvest_preview(
        source: Literal["all", "claude-code", "codex", "copilot-vscode", "copilot-cli"] = "all",
        project: Annotated[str | None, Field(description="Absolute path of the project")] = None,
        since: Annotated[str | None, Field(description="ISO time with a zone")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="Sessions to list")] = 20,
    ) -> dict[str, Any]:
        """The sessions the next night will learn from: those archived since the project's
        last night, by this call (it records new ones) or earlier by the daemon or a harvest."""
        args = ["harvest", "--source", source, "--next-night", "--json"]
        folder = _project(project)
        args += ["--project", folder] if folder else []
        args += ["--since", since] if since else []
        result = await run_cli(*args, limit=None)  # each session whole, turns and all
        items = result.get("items") or []
        shown = fit({"items": [_session_line(s) for s in items[:limit]]})
        return {"sessions": shown["items"], "shown": len(shown["items"]), "total": len(items),
                "summary": result.get("summary")}


def _skill_tools(server: MCPServer) -> None:
    """Tools that write skills (versioned, undoable): adopt and rollback."""

    @server.tool(annotations=WRITES_SKILLS)
    async def sleep_adopt(
        night: NightId | None = None,
        skill: SkillName | None = None,
        all_skills: Annotated[bool, Field(description="Adopt every staged skill")] = False,
    ) -> dict[str, Any]:
        """Write validated proposals into the configured skill roots (versioned; undoable)."""
        if (skill is None) == (not all_skills):
            raise ToolError("give exactly one of skill or all_skills=true")
        target = ["--skill", _skill(skill) or ""] if skill else ["--all"]
        return await run_cli("adopt", *_night(night), *target, "--json")

    @server.tool(annotations=WRITES_SKILLS)
    async def sleep_rollback(
        skill: SkillName | None = None,
        to_version: Annotated[int | None, Field(ge=1, description="Version to return to")] = None,
    ) -> dict[str, Any]:
        """Undo an adoption: the skill goes back to its previous (or the given) version."""
        args = ["rollback"] + (["--skill", _skill(skill) or ""] if skill else [])
        args += ["--to", str(to_version)] if to_version is not None else []
        return await run_cli(*args, "--json")


def _session_line(session: Any) -> dict[str, Any]:
    if not isinstance(session, dict):
        return {"value": session}
    turns = session.get("turns") or []
    first = turns[0].get("request", "") if turns and isinstance(turns[0], dict) else ""
    keys = ("source", "session_id", "project", "started_at", "ended_at")
    return {**{k: session.get(k) for k in keys}, "turns": len(turns),
            "first_request": first.splitlines()[0][:160] if first else ""}


def serve() -> None:
    """Run on stdio until the client disconnects."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    build_server().run("stdio")
