"""``openai:MODEL`` (Chat Completions) and ``openai-responses:MODEL`` (Responses API).

Through the official ``openai`` SDK. Environment variables it reads: ``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID``; the role's base URL
(``--target-base-url`` …) overrides ``OPENAI_BASE_URL`` and points either kind at any
OpenAI-compatible server (vLLM, Ollama, llama.cpp) or at Azure's ``…/openai/v1/`` endpoint.
A base URL is the ``…/v1`` base the SDK appends ``/chat/completions`` or ``/responses`` to
(a bare ``http://host:port`` gains ``/v1``). A local server that needs no key gets a
placeholder one. The SDK's retries are off: ``retry.call_with_retries`` is the one retry
policy.

The system text (a replay's holds the whole skill) is sent first, the system message of Chat
Completions or the Responses API's ``instructions``, so OpenAI's automatic prefix cache
serves it to every replay of one skill version (from 1,024 tokens; ``models.caching``).
The usage's cached tokens (``prompt_tokens_details.cached_tokens``,
``input_tokens_details.cached_tokens``) are counted apart, at the cached-input price.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import openai

from skillopt_sleep.errors import ModelError
from skillopt_sleep.models import endpoints
from skillopt_sleep.models.base import LLM, Backend, BackendOptions, Finding, Readiness
from skillopt_sleep.models.messages import openai_tools, split_system, tool_call
from skillopt_sleep.models.pricing import FREE
from skillopt_sleep.models.sdk import SdkLLM
from skillopt_sleep.records import Completion, Message, ToolCall, Usage

_REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")


def _reasoning(model: str) -> bool:
    """Reasoning models take ``max_completion_tokens`` and refuse a non-default temperature."""
    return model.split("/")[-1].startswith(_REASONING_PREFIXES)


class _OpenAIBase(SdkLLM[openai.OpenAI]):
    kind = "openai"
    completion_path = "/chat/completions"
    """Where this wire API's calls go (below the ``…/v1`` base)."""
    key_variable = "OPENAI_API_KEY"
    sdk_error = openai.OpenAIError
    transient = (openai.APIConnectionError,)

    def _new_client(self) -> openai.OpenAI:
        key = self._api_key
        if key is None and not os.environ.get("OPENAI_API_KEY") and self._base_url and \
                endpoints.is_local(self._base_url):
            key = "local-server"  # local servers ignore it; the SDK insists on one
        return openai.OpenAI(api_key=key, base_url=self._base_url, max_retries=0,
                             timeout=self.policy.timeout_s)

    def readiness(self, reach: bool) -> Readiness:
        """Credentials present; with ``reach``, the endpoint lists its models (no call)."""
        url = self._base_url or DEFAULT_URL
        found = [credentials(url)]
        if reach and found[0].level == "ok":
            found.append(_reach(self._sdk(), url, self.completion_path))
        return Readiness(tuple(found), unknowable=UNKNOWABLE)


DEFAULT_URL = "https://api.openai.com/v1"
UNKNOWABLE = "whether the model name exists and the account has quota (doctor --live asks)"


def credentials(url: str) -> Finding:
    """Whether a call to ``url`` would carry a key (a local server needs none)."""
    if os.environ.get("OPENAI_API_KEY"):
        return Finding("credentials", "ok", "OPENAI_API_KEY is set")
    if endpoints.is_local(url):
        return Finding("credentials", "ok", "local server: no key needed")
    return Finding("credentials", "error", "no OPENAI_API_KEY in the environment; set it")


def base_url(options: BackendOptions) -> str | None:
    """The role's base URL, else ``OPENAI_BASE_URL``, as a ``…/v1`` base."""
    url = options.base_url or os.environ.get("OPENAI_BASE_URL")
    return endpoints.openai_base(url) if url else None


def probe(url: str, reach: bool) -> list[Finding]:
    """Credentials for an OpenAI-style ``url`` and, with ``reach``, its model list (Codex)."""
    url = endpoints.openai_base(url)
    found = [credentials(url)]
    if reach and found[0].level == "ok":
        llm = OpenAIResponsesLLM("probe", price=FREE, base_url=url)
        found.append(_reach(llm._sdk(), url, llm.completion_path))
    return found


def _reach(sdk_client: openai.OpenAI, url: str, path: str) -> Finding:
    """The endpoint's model list, and on a 404 whether ``path`` answers at all."""
    client = sdk_client.with_options(timeout=endpoints.PROBE_TIMEOUT_S)
    return endpoints.probe(client.models.list, url, openai, "OPENAI_API_KEY",
                           lambda: client.post(path, cast_to=object, body={}))


class OpenAIChatLLM(_OpenAIBase):
    """Chat Completions, plain or streaming (with ``include_usage`` for the token count)."""

    kind = "openai"

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
        wire = ([{"role": "system", "content": system}] if system else []) + list(turns)
        request: dict[str, Any] = {"model": self.model, "messages": wire, "seed": seed}
        if _reasoning(self.model):
            request["max_completion_tokens"] = max_tokens
        else:
            request["max_tokens"] = max_tokens
            request["temperature"] = temperature
        if tools:
            request["tools"] = openai_tools(tools, responses=False)
        client = self._sdk()

        def attempt() -> Completion:
            if self.stream:
                return self._from_stream(client.chat.completions.create(
                    **request, stream=True, stream_options={"include_usage": True}))
            return self._from_response(client.chat.completions.create(**request))

        return self._call(attempt)

    def _from_response(self, response: Any) -> Completion:
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise ModelError(f"{self.name}: malformed response, no choices")
        message = choices[0].message
        calls = [tool_call(c.function.name, c.function.arguments)
                 for c in (getattr(message, "tool_calls", None) or [])]
        return self._finish(message.content or "", calls, _chat_usage(response.usage),
                            f"finish_reason={choices[0].finish_reason}")

    def _from_stream(self, chunks: Any) -> Completion:
        text: list[str] = []
        names: dict[int, str] = {}
        arguments: dict[int, str] = {}
        usage, reason = Usage(), None
        for chunk in chunks:
            if getattr(chunk, "usage", None):
                usage = _chat_usage(chunk.usage)
            for choice in getattr(chunk, "choices", None) or []:
                reason = choice.finish_reason or reason
                delta = choice.delta
                text.append(delta.content or "")
                for call in getattr(delta, "tool_calls", None) or []:
                    if call.function and call.function.name:
                        names[call.index] = call.function.name
                    if call.function and call.function.arguments:
                        arguments[call.index] = arguments.get(call.index, "") + \
                            call.function.arguments
        calls = [tool_call(names[i], arguments.get(i)) for i in sorted(names)]
        return self._finish("".join(text), calls, usage, f"finish_reason={reason}")


def _chat_usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    details = getattr(raw, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    prompt = int(getattr(raw, "prompt_tokens", 0) or 0)
    return Usage(input_tokens=max(0, prompt - cached),
                 output_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
                 cache_read_tokens=cached)


class OpenAIResponsesLLM(_OpenAIBase):
    """The Responses API, plain or streaming; system text goes in ``instructions``."""

    kind = "openai-responses"
    completion_path = "/responses"

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
        request: dict[str, Any] = {"model": self.model, "input": turns,
                                   "max_output_tokens": max_tokens, "store": False}
        if system:
            request["instructions"] = system
        if not _reasoning(self.model):
            request["temperature"] = temperature
        if tools:
            request["tools"] = openai_tools(tools, responses=True)
        client = self._sdk()

        def attempt() -> Completion:
            if self.stream:
                with client.responses.stream(**request) as events:
                    return self._from_response(events.get_final_response())
            return self._from_response(client.responses.create(**request))

        return self._call(attempt)

    def _from_response(self, response: Any) -> Completion:
        output = getattr(response, "output", None)
        if not isinstance(output, list):
            raise ModelError(f"{self.name}: malformed response, no output list")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for item in output:
            kind = getattr(item, "type", None)
            if kind == "message":
                texts += [getattr(part, "text", "") or "" for part in item.content or []
                          if getattr(part, "type", None) == "output_text"]
            elif kind == "function_call":
                calls.append(tool_call(item.name, item.arguments))
        return self._finish("".join(texts), calls, _responses_usage(response.usage),
                            f"status={getattr(response, 'status', None)}")


def _responses_usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    details = getattr(raw, "input_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    total_in = int(getattr(raw, "input_tokens", 0) or 0)
    return Usage(input_tokens=max(0, total_in - cached),
                 output_tokens=int(getattr(raw, "output_tokens", 0) or 0),
                 cache_read_tokens=cached)


def _chat(options: BackendOptions) -> LLM:
    return OpenAIChatLLM(options.model, price=options.price, base_url=base_url(options),
                         policy=options.policy, stream=options.stream)


def _responses(options: BackendOptions) -> LLM:
    return OpenAIResponsesLLM(options.model, price=options.price, base_url=base_url(options),
                              policy=options.policy, stream=options.stream)


def _check(options: BackendOptions, reach: bool) -> Readiness:
    return OpenAIChatLLM(options.model, price=FREE, base_url=base_url(options)).readiness(reach)


CHAT_BACKEND = Backend(_chat, check=_check, endpoint="openai")
RESPONSES_BACKEND = Backend(_responses, check=_check, endpoint="openai")
