"""Replay through the real agent harnesses: the shared frame, and ``claude-code[:MODEL]``
(``codex[:MODEL]`` is in ``codex_cli.py``).

``claude -p --output-format json --verbose`` and ``codex exec --json`` run once per call in
an isolated temp home and working dir (``agent_home``), with the prompt on stdin tagged
with the engine's sentinel so the replay's own session is never harvested back. Tools
are limited to what the call names (``tools=[{"name": "Bash"}]``); none by default.

The harness's own retries are switched off so ``retry.call_with_retries`` is the one
policy. A refused login ("Not logged in", 401) raises ``AuthError``, never a wrong answer.
``--bare`` is passed to Claude Code only when ``ANTHROPIC_API_KEY`` is set, since it
ignores subscription logins. ``max_tokens``, ``temperature`` and ``seed`` cannot be set
on these CLIs; ``seed`` still names the sample for the cache.

Environment variables read. Claude Code: the login in ``$CLAUDE_CONFIG_DIR`` (default
``~/.claude``) ``/.credentials.json`` (the macOS keychain on a Mac), or ``ANTHROPIC_API_KEY``
/ ``ANTHROPIC_AUTH_TOKEN``, ``CLAUDE_CODE_USE_BEDROCK`` / ``CLAUDE_CODE_USE_VERTEX``, and
``ANTHROPIC_BASE_URL`` (the role's base URL overrides it; the server root, a trailing
``/v1`` dropped). Codex: ``$CODEX_HOME`` (default ``~/.codex``) ``/auth.json`` and
``config.toml``, or ``OPENAI_API_KEY`` / ``CODEX_API_KEY``; with a base URL (an
OpenAI-style ``…/v1`` base) a provider is set on the command line, keyed by
``OPENAI_API_KEY`` (a placeholder for a local server).

``readiness`` checks without a model call: the binary is on ``PATH`` and ``--version``
runs, the CLI's own login status (``claude auth status``, ``codex login status``) in the
same isolated home the replays use, and with a base URL, that the endpoint answers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.errors import AuthError, ModelError, Unreachable
from skillopt_sleep.models import agent_events, agent_home, endpoints
from skillopt_sleep.models.base import Backend, BackendOptions, Finding, Readiness, tag
from skillopt_sleep.models.messages import as_transcript
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import RetryPolicy, timed_call
from skillopt_sleep.records import Completion, Message, ToolCall, Usage

AGENT_POLICY = RetryPolicy(attempts=2, initial_wait_s=5.0, max_wait_s=60.0, timeout_s=900.0)

CHECK_TIMEOUT_S = 20.0
"""``--version`` and a login status answer in well under a second; a hung CLI is an error."""

_AUTH = re.compile(r"not logged in|please run /login|\b401\b|unauthori[sz]ed|authentication|"
                   r"invalid api key|\b403\b|forbidden|codex login", re.IGNORECASE)
_TRANSIENT = re.compile(r"\b(429|500|502|503|504|529)\b|too many requests|rate limit|overloaded|"
                        r"timed? ?out|stream disconnected|connection|exceeded retry limit",
                        re.IGNORECASE)
_REFUSED = re.compile(r"ECONNREFUSED|connection refused", re.IGNORECASE)
_NO_HOST = re.compile(r"ENOTFOUND|name or service not known|nodename nor servname",
                      re.IGNORECASE)


class TransientAgentError(ModelError):
    """A harness run that failed for a reason worth retrying (rate limit, overload, network)."""


def agent_failure(name: str, message: str, status: int | None = None) -> ModelError:
    text = f"{name}: {message.strip()[:500]}"
    if status in (401, 403) or (status is None and _AUTH.search(message)):
        return AuthError(f"{text} (log in to the CLI, or set its API key)")
    # Nothing answers the harness's endpoint: a retry cannot change that.
    why = ("not-found" if status == 404 else "refused" if _REFUSED.search(message)
           else "unknown-host" if _NO_HOST.search(message) else "")
    if why:
        return Unreachable(text, why=why)
    if (status is not None and (status == 429 or status >= 500)) or _TRANSIENT.search(message):
        return TransientAgentError(text)
    return ModelError(text)


class AgentCLI:
    binary = ""
    backend = ""
    config_name = ""
    carried: tuple[str, ...] = ()

    def __init__(self, model: str | None, *, price: Price, base_url: str | None = None,
                 policy: RetryPolicy | None = None, executable: str | Path | None = None):
        self.model = model
        self.name = f"{self.backend}:{model}" if model else self.backend
        self.price = price
        self.base_url = base_url
        self.policy = policy or AGENT_POLICY
        self.executable = str(executable) if executable else None

    def _exe(self) -> str:
        found = self.executable or shutil.which(self.binary)
        if not found:
            raise Unreachable(f"{self.name}: the `{self.binary}` CLI is not on PATH",
                              why="missing-cli", where=self.binary)
        return found

    def _source(self) -> Path:
        raise NotImplementedError

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 seed: int, tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        system, prompt = as_transcript(messages)
        names = [str(t.get("function", t).get("name")) for t in tools or []]
        exe = self._exe()
        self._precheck()

        def attempt() -> Completion:
            with agent_home.sandbox(self.config_name, self._source(), self.carried) as box:
                command = self._command(exe, system, names, box)
                env = self._env(box)
                result = agent_home.run(command, stdin=tag(prompt), env=env, cwd=box.work,
                                        timeout_s=self.policy.timeout_s)
            return self._parse(result)

        return timed_call(attempt, policy=self.policy, what=self.name,
                          transient_types=(TransientAgentError,))

    def _precheck(self) -> None:
        """Fail fast with ``AuthError`` when the CLI plainly has no login to use."""

    install_hint = ""

    def readiness(self, reach: bool) -> Readiness:
        """Installed, logged in and (with a base URL and ``reach``) its endpoint answering."""
        exe = self.executable or shutil.which(self.binary)
        if not exe:
            return Readiness((Finding("installed", "error", f"the `{self.binary}` CLI is not on "
                                      f"PATH; {self.install_hint}"),), unknowable=UNKNOWABLE)
        found = [self._version(exe)]
        if found[0].level == "ok":
            found.append(self._login(exe))
        if reach and self.base_url and found[-1].level == "ok":
            found.append(self._reach(self.base_url))
        return Readiness(tuple(found), unknowable=UNKNOWABLE)

    def _status(self, command: list[str]) -> agent_home.Run:
        """Run ``command`` in the isolated home a replay uses, so it sees what a replay sees."""
        with agent_home.sandbox(self.config_name, self._source(), self.carried) as box:
            return agent_home.run(command, stdin="", env=self._env(box), cwd=box.work,
                                  timeout_s=CHECK_TIMEOUT_S)

    def _version(self, exe: str) -> Finding:
        try:
            done = self._status([exe, "--version"])
        except (OSError, TimeoutError) as exc:
            return Finding("installed", "error", f"`{exe} --version` failed: {exc}")
        if done.returncode != 0:
            return Finding("installed", "error", f"`{exe} --version` exited {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[:200]}")
        return Finding("installed", "ok", f"{done.stdout.strip()[:80]} at {exe}")

    def _login(self, exe: str) -> Finding:
        raise NotImplementedError

    def _reach(self, url: str) -> Finding:
        raise NotImplementedError

    def _command(self, exe: str, system: str, tools: list[str],
                 box: agent_home.Sandbox) -> list[str]:
        raise NotImplementedError

    def _env(self, box: agent_home.Sandbox) -> dict[str, str]:
        raise NotImplementedError

    def _parse(self, result: agent_home.Run) -> Completion:
        raise NotImplementedError

    def _finish(self, text: str, calls: list[ToolCall], usage: Usage,
                reported_usd: float | None) -> Completion:
        if not text.strip():
            raise ModelError(f"{self.name}: the harness returned an empty answer")
        cost = self.price.cost(usage) if reported_usd is None else reported_usd
        return Completion(text=text, tool_calls=calls, usage=usage, cost_usd=cost)


# --- Claude Code --------------------------------------------------------------------------


class ClaudeCodeLLM(AgentCLI):
    """``claude -p`` in an isolated config dir; the login's credentials file is carried."""

    binary = "claude"
    backend = "claude-code"
    config_name = ".claude"
    carried = (".credentials.json",)

    def _source(self) -> Path:
        return paths.claude_home()

    def _precheck(self) -> None:
        has_key = any(os.environ.get(k) for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"))
        # macOS keeps the login in the keychain, which a temp HOME does not hide.
        if has_key or sys.platform == "darwin" or (self._source() / self.carried[0]).is_file():
            return
        if any(os.environ.get(k) for k in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")):
            return
        raise AuthError(f"{self.name}: Claude Code is not logged in (no "
                        f"{self._source() / self.carried[0]}, no ANTHROPIC_API_KEY); "
                        "run `claude` and /login, or set ANTHROPIC_API_KEY")

    install_hint = ("install Claude Code (npm install -g @anthropic-ai/claude-code) or put "
                    "its folder on PATH")

    def _login(self, exe: str) -> Finding:
        if any(os.environ.get(k) for k in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")):
            return Finding("login", "ok", "Bedrock/Vertex credentials (not checked here)")
        try:
            done = self._status([exe, "auth", "status", "--json"])
            state = json.loads(done.stdout)
        except (OSError, TimeoutError, ValueError):
            state = None
        if not isinstance(state, dict) or "loggedIn" not in state:
            # An older CLI without `auth status`: judge by the files a login leaves.
            try:
                self._precheck()
            except AuthError as exc:
                return Finding("login", "error", str(exc))
            return Finding("login", "ok", "credentials found")
        if state.get("loggedIn"):
            how = state.get("apiKeySource") or state.get("authMethod") or "logged in"
            return Finding("login", "ok", f"logged in ({how})")
        hint = ("set ANTHROPIC_API_KEY (any value for a local server)" if self.base_url else
                "run `claude` and /login, or set ANTHROPIC_API_KEY")
        return Finding("login", "error", f"Claude Code is not logged in; {hint}")

    def _reach(self, url: str) -> Finding:
        from skillopt_sleep.models import anthropic as messages_api

        options = BackendOptions(spec="anthropic:probe", model="probe", base_url=url)
        return messages_api.BACKEND.check(options, True).findings[-1]

    def _command(self, exe: str, system: str, tools: list[str],
                 box: agent_home.Sandbox) -> list[str]:
        command = [exe, "-p", "--output-format", "json", "--verbose",
                   "--tools", ",".join(tools)]
        if tools:
            command += ["--allowedTools", ",".join(tools)]
        if os.environ.get("ANTHROPIC_API_KEY"):
            command.append("--bare")
        if self.model:
            command += ["--model", self.model]
        if system:
            command += ["--append-system-prompt", system]
        return command

    def _env(self, box: agent_home.Sandbox) -> dict[str, str]:
        env = agent_home.base_env(box.home)
        env.update(CLAUDE_CONFIG_DIR=str(box.home / self.config_name),
                   CLAUDE_CODE_MAX_RETRIES="0", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1")
        if self.base_url:
            env["ANTHROPIC_BASE_URL"] = self.base_url
        return env

    def _parse(self, result: agent_home.Run) -> Completion:
        events = agent_events.json_events(result.stdout)
        final = next((e for e in reversed(events) if e.get("type") == "result"), None)
        if final is None:
            raise agent_failure(self.name, result.stderr or result.stdout or
                           f"exit {result.returncode}, no result")
        if final.get("is_error"):
            status = final.get("api_error_status")
            raise agent_failure(self.name, str(final.get("result") or final.get("subtype")),
                           status if isinstance(status, int) else None)
        raw = final.get("usage") or {}
        # Claude Code caches its system prompt (the skill is appended to it) on its own.
        usage = Usage(
            input_tokens=int(raw.get("input_tokens", 0)),
            output_tokens=int(raw.get("output_tokens", 0)),
            cache_read_tokens=int(raw.get("cache_read_input_tokens", 0)),
            cache_write_tokens=int(raw.get("cache_creation_input_tokens", 0)))
        reported = final.get("total_cost_usd")
        calls = agent_events.claude_tool_calls(events)
        return self._finish(str(final.get("result") or ""), calls, usage,
                            float(reported) if isinstance(reported, int | float) else None)


UNKNOWABLE = ("whether the login still works at the provider (an expired or revoked one), "
              "the model name and the quota (doctor --live asks)")


def _claude_code(options: BackendOptions) -> ClaudeCodeLLM:
    url = options.base_url or os.environ.get("ANTHROPIC_BASE_URL")
    return ClaudeCodeLLM(options.model or None, price=options.price,
                         base_url=endpoints.anthropic_root(url) if url else None,
                         policy=options.policy)


def _check_claude_code(options: BackendOptions, reach: bool) -> Readiness:
    return _claude_code(options).readiness(reach)


CLAUDE_CODE = Backend(_claude_code, check=_check_claude_code, endpoint="anthropic",
                      concurrency=2)
