"""``codex[:MODEL]``: replay through the real Codex harness (``codex exec --json``).

Runs in the same isolated frame as Claude Code (``agent_cli.AgentCLI``: temp home, sentinel,
one retry policy); what differs is how Codex is logged in, called, pointed at a server and
read. Env vars: ``$CODEX_HOME`` (default ``~/.codex``) ``/auth.json`` and ``config.toml``, or
``OPENAI_API_KEY`` / ``CODEX_API_KEY``; with a base URL a provider is set on the command line.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.errors import AuthError
from skillopt_sleep.models import agent_events, agent_home, endpoints
from skillopt_sleep.models.agent_cli import AgentCLI, agent_failure
from skillopt_sleep.models.base import Backend, BackendOptions, Finding, Readiness
from skillopt_sleep.records import Completion, ToolCall, Usage


class CodexLLM(AgentCLI):
    """``codex exec --json`` with a temp ``CODEX_HOME``; its auth and config are carried."""

    binary = "codex"
    backend = "codex"
    config_name = ".codex"
    carried = ("auth.json", "config.toml")
    key_env = "SKILLOPT_SLEEP_CODEX_KEY"

    def _source(self) -> Path:
        return paths.codex_home()

    def _precheck(self) -> None:
        source = self._source()
        if self.base_url or any(os.environ.get(k) for k in ("OPENAI_API_KEY", "CODEX_API_KEY")):
            return
        config = source / "config.toml"
        custom = config.is_file() and "model_provider" in config.read_text(errors="replace")
        if not custom and not (source / "auth.json").is_file():
            raise AuthError(f"{self.name}: Codex is not logged in (no {source / 'auth.json'}, "
                            "no OPENAI_API_KEY); run `codex login`")

    install_hint = "install Codex (npm install -g @openai/codex) or put its folder on PATH"

    def _login(self, exe: str) -> Finding:
        if self.base_url:
            from skillopt_sleep.models.openai import credentials

            return replace(credentials(self.base_url), what="login")
        for key in ("OPENAI_API_KEY", "CODEX_API_KEY"):
            if os.environ.get(key):
                return Finding("login", "ok", f"{key} is set")
        config = self._source() / "config.toml"
        if config.is_file() and "model_provider" in config.read_text(errors="replace"):
            return Finding("login", "ok", f"a model provider set in {config} (not checked here)")
        try:
            done = self._status([exe, "login", "status"])
        except (OSError, TimeoutError) as exc:
            return Finding("login", "error", f"`codex login status` failed: {exc}")
        said = (done.stdout or done.stderr).strip().splitlines()
        if done.returncode == 0:
            return Finding("login", "ok", said[0] if said else "logged in")
        return Finding("login", "error", f"Codex is not logged in (no {self._source()}/auth.json"
                       "); run `codex login`, or set OPENAI_API_KEY")

    def _reach(self, url: str) -> Finding:
        from skillopt_sleep.models.openai import probe

        return probe(url, True)[-1]

    def _command(self, exe: str, system: str, tools: list[str],
                 box: agent_home.Sandbox) -> list[str]:
        command = [exe, "exec", "--json", "--skip-git-repo-check", "-C", str(box.work),
                   "-s", "workspace-write" if tools else "read-only",
                   "-c", 'approval_policy="never"']
        if self.model:
            command += ["-m", self.model]
        if system:
            command += ["-c", f"developer_instructions={json.dumps(system)}"]
        if self.base_url:
            provider = "model_providers.skillopt"
            command += ["-c", 'model_provider="skillopt"',
                        "-c", f'{provider}.name="skillopt"',
                        "-c", f"{provider}.base_url={json.dumps(self.base_url)}",
                        "-c", f'{provider}.wire_api="responses"',
                        "-c", f'{provider}.env_key="{self.key_env}"',
                        "-c", f"{provider}.request_max_retries=0",
                        "-c", f"{provider}.stream_max_retries=0"]
        return [*command, "-"]

    def _env(self, box: agent_home.Sandbox) -> dict[str, str]:
        env = agent_home.base_env(box.home)
        env["CODEX_HOME"] = str(box.home / self.config_name)
        env[self.key_env] = os.environ.get("OPENAI_API_KEY") or "local-server"
        return env

    def _parse(self, result: agent_home.Run) -> Completion:
        events = agent_events.json_events(result.stdout)
        texts: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        for event in events:
            kind = event.get("type")
            if kind in ("turn.failed", "error"):
                error = event.get("error") or {}
                message = error.get("message") if isinstance(error, dict) else None
                raise agent_failure(self.name, str(message or event.get("message") or event))
            if kind == "turn.completed":
                usage = usage + agent_events.codex_usage(event.get("usage") or {})
            if kind == "item.completed":
                agent_events.codex_item(event.get("item") or {}, texts, calls)
        if not texts and result.returncode != 0:
            raise agent_failure(self.name, result.stderr or f"exit {result.returncode}")
        return self._finish(texts[-1] if texts else "", calls, usage, None)


def _codex(options: BackendOptions) -> CodexLLM:
    url = options.base_url
    return CodexLLM(options.model or None, price=options.price,
                    base_url=endpoints.openai_base(url) if url else None, policy=options.policy)


def _check_codex(options: BackendOptions, reach: bool) -> Readiness:
    return _codex(options).readiness(reach)


CODEX = Backend(_codex, check=_check_codex, endpoint="openai", concurrency=2)
