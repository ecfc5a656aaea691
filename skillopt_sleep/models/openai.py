"""``openai:MODEL`` (Chat Completions) and ``openai-responses:MODEL`` (Responses API).

Through the official ``openai`` SDK, so its environment variables work (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``); ``base_url`` points either kind at any OpenAI-compatible server
(vLLM, Ollama, llama.cpp) or at Azure's ``…/openai/v1/`` endpoint. A local server that
needs no key gets a placeholder one. The SDK's retries are off: ``retry.call_with_retries``
is the one retry policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import openai

from skillopt_sleep.errors import ModelError
from skillopt_sleep.models.base import LLM, Backend, BackendOptions
from skillopt_sleep.models.messages import openai_tools, split_system, tool_call
from skillopt_sleep.models.sdk import SdkLLM
from skillopt_sleep.records import Completion, Message, ToolCall, Usage

_REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")


def _reasoning(model: str) -> bool:
    """Reasoning models take ``max_completion_tokens`` and refuse a non-default temperature."""
    return model.split("/")[-1].startswith(_REASONING_PREFIXES)


class _OpenAIBase(SdkLLM[openai.OpenAI]):
    kind = "openai"
    key_variable = "OPENAI_API_KEY"
    sdk_error = openai.OpenAIError
    transient = (openai.APIConnectionError,)

    def _new_client(self) -> openai.OpenAI:
        key = self._api_key
        if key is None and self._base_url and _is_local(self._base_url):
            key = "local-server"  # local servers ignore it; the SDK insists on one
        return openai.OpenAI(api_key=key, base_url=self._base_url, max_retries=0,
                             timeout=self.policy.timeout_s)


def _is_local(url: str) -> bool:
    return any(host in url for host in ("://127.0.0.1", "://localhost", "://[::1]", "://0.0.0.0"))


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
    return OpenAIChatLLM(options.model, price=options.price, base_url=options.base_url,
                         policy=options.policy, stream=options.stream)


def _responses(options: BackendOptions) -> LLM:
    return OpenAIResponsesLLM(options.model, price=options.price, base_url=options.base_url,
                              policy=options.policy, stream=options.stream)


CHAT_BACKEND = Backend(_chat)
RESPONSES_BACKEND = Backend(_responses)
