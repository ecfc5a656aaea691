"""``anthropic:MODEL``: the Messages API through the official ``anthropic`` SDK.

Environment variables it reads: ``ANTHROPIC_API_KEY`` (sent as ``x-api-key``) or
``ANTHROPIC_AUTH_TOKEN`` (sent as a bearer token), and ``ANTHROPIC_BASE_URL``; the role's
base URL (``--target-base-url`` …) overrides the latter. A base URL is the server root (a
trailing ``/v1`` is dropped, so requests go to ``…/v1/messages``, never ``/v1/v1``); a
local server that ignores keys still needs one set (any value). The SDK's
retries are off: ``retry.call_with_retries`` is the one retry policy. Anthropic has no
sampling seed, so ``seed`` only names the sample (the cache keeps samples apart).

The system text (a replay's holds the whole skill, before the task) goes as its own block
marked ``cache_control: {"type": "ephemeral"}``: the calls that replay one skill version
within five minutes read it from Anthropic's prompt cache at a tenth of the input price
(``models.caching``). The usage's ``cache_creation_input_tokens`` and
``cache_read_input_tokens`` are counted apart from the plain input, each at its price.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import anthropic

from skillopt_sleep.errors import AuthError, ModelError
from skillopt_sleep.models import endpoints
from skillopt_sleep.models.base import LLM, Backend, BackendOptions, Finding, Readiness
from skillopt_sleep.models.messages import anthropic_tools, split_system, tool_call
from skillopt_sleep.models.sdk import SdkLLM
from skillopt_sleep.records import Completion, Message, ToolCall, Usage

_TAKES_TEMPERATURE = re.compile(
    r"^claude-(3|instant|2|haiku-4-5|sonnet-4(-5)?|opus-4(-[15])?)(-|$)")


class AnthropicLLM(SdkLLM[anthropic.Anthropic]):
    """A Claude model over the Messages API, plain or streaming (``stream=True``)."""

    kind = "anthropic"
    key_variable = "ANTHROPIC_API_KEY"
    sdk_error = anthropic.AnthropicError
    transient = (anthropic.APIConnectionError,)

    def _new_client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key=self._api_key, base_url=self._base_url,
                                   max_retries=0, timeout=self.policy.timeout_s)

    def readiness(self, reach: bool) -> Readiness:
        """Credentials present; with ``reach``, the endpoint lists its models (no call)."""
        url = self._base_url or DEFAULT_URL
        found = [_credentials(url)]
        if reach and found[0].level == "ok":
            client = self._sdk().with_options(timeout=endpoints.PROBE_TIMEOUT_S)
            found.append(endpoints.probe(
                lambda: client.models.list(limit=1), url, anthropic, "ANTHROPIC_API_KEY",
                lambda: client.post("/v1/messages", cast_to=object, body={})))
        return Readiness(tuple(found), unknowable=UNKNOWABLE)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        system, turns = split_system(messages)
        request: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                   "messages": turns}
        if _TAKES_TEMPERATURE.match(self.model):
            # The current SDK dropped the parameter; the models that honour it still do.
            request["extra_body"] = {"temperature": temperature}
        if system:
            request["system"] = system_blocks(system)
        if tools:
            request["tools"] = anthropic_tools(tools)
        client = self._sdk()

        def attempt() -> Completion:
            try:
                if self.stream:
                    with client.messages.stream(**request) as events:
                        message = events.get_final_message()
                else:
                    message = client.messages.create(**request)
            except TypeError as exc:
                # The SDK finds out it has no credentials only when it builds the request.
                if "authentication" in str(exc):
                    raise AuthError(f"{self.name}: no credentials ({exc}); "
                                    "set ANTHROPIC_API_KEY") from exc
                raise
            return self._completion(message)

        return self._call(attempt)

    def _completion(self, message: Any) -> Completion:
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise ModelError(f"{self.name}: malformed response, no content list")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(str(block.text))
            elif kind == "tool_use":
                calls.append(tool_call(str(block.name), dict(block.input or {})))
        return self._finish("".join(texts), calls, _usage(getattr(message, "usage", None)),
                            f"stop_reason={getattr(message, 'stop_reason', None)}")


def system_blocks(system: str) -> list[dict[str, Any]]:
    """The system text as one cached block: the prefix every replay of a skill shares."""
    return [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    return Usage(
        input_tokens=int(getattr(raw, "input_tokens", 0) or 0),
        output_tokens=int(getattr(raw, "output_tokens", 0) or 0),
        cache_read_tokens=int(getattr(raw, "cache_read_input_tokens", 0) or 0),
        cache_write_tokens=int(getattr(raw, "cache_creation_input_tokens", 0) or 0),
    )


DEFAULT_URL = "https://api.anthropic.com"
UNKNOWABLE = "whether the model name exists and the account has quota (doctor --live asks)"
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def _has_key() -> bool:
    return any(os.environ.get(k) for k in KEY_VARIABLES)


def _credentials(url: str) -> Finding:
    if _has_key():
        name = next(k for k in KEY_VARIABLES if os.environ.get(k))
        return Finding("credentials", "ok", f"{name} is set")
    hint = " (any value for a local server)" if endpoints.is_local(url) else ""
    return Finding("credentials", "error", "no ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in "
                   f"the environment; set it{hint}")


def base_url(options: BackendOptions) -> str | None:
    """The role's base URL, else ``ANTHROPIC_BASE_URL``, as the server root."""
    url = options.base_url or os.environ.get("ANTHROPIC_BASE_URL")
    return endpoints.anthropic_root(url) if url else None


def _build(options: BackendOptions) -> LLM:
    return AnthropicLLM(options.model, price=options.price, base_url=base_url(options),
                        policy=options.policy, stream=options.stream)


def _check(options: BackendOptions, reach: bool) -> Readiness:
    llm = AnthropicLLM(options.model, price=options.price, base_url=base_url(options))
    return llm.readiness(reach)


BACKEND = Backend(_build, check=_check, endpoint="anthropic")
