"""Provider wire formats for the fake server: scripted replies and the JSON/SSE they become.

Anthropic Messages (a message, and its SSE events), OpenAI Chat Completions (a completion
and its chunks) and OpenAI Responses (a response and its typed stream events), shaped as
the real SDKs and the real agent CLIs (claude, codex, copilot) parse them.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Text:
    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    """Anthropic's ``cache_creation_input_tokens`` (the other wires have no such count)."""


@dataclass
class ToolUse:
    name: str
    args: dict[str, Any]


@dataclass
class ToolThenText:
    name: str
    args: dict[str, Any]
    text: str


@dataclass
class Status:
    code: int
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Hang:
    seconds: float
    then: Reply | None = None


@dataclass
class Malformed:
    body: str = '{"this is": not json'
    content_type: str = "application/json"


Reply = Text | ToolUse | ToolThenText | Status | Hang | Malformed


def uid(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def _tokens(reply: Text, body: Any) -> tuple[int, int]:
    given_in, given_out = reply.input_tokens, reply.output_tokens
    inp = given_in if given_in is not None else max(1, len(json.dumps(body)) // 4)
    out = given_out if given_out is not None else max(1, len(reply.text) // 4)
    return inp, out


def _text_of(reply: Text | ToolUse) -> tuple[str, ToolUse | None]:
    return (reply.text, None) if isinstance(reply, Text) else ("", reply)


def anthropic_message(reply: Text | ToolUse, body: Any) -> dict[str, Any]:
    text, tool = _text_of(reply)
    usage_src = reply if isinstance(reply, Text) else Text("")
    inp, out = _tokens(usage_src, body)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if tool is None else [
        {"type": "tool_use", "id": uid("toolu"), "name": tool.name, "input": tool.args}]
    return {
        "id": uid("msg"), "type": "message", "role": "assistant",
        "model": body.get("model", "fake"), "content": content,
        "stop_reason": "end_turn" if tool is None else "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": out,
                  "cache_read_input_tokens": usage_src.cache_read_tokens,
                  "cache_creation_input_tokens": usage_src.cache_write_tokens},
    }


def anthropic_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": opening}
        yield "ping", {"type": "ping"}
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": message["usage"]["output_tokens"]},
    }
    yield "message_stop", {"type": "message_stop"}


def chat_completion(reply: Text | ToolUse, body: Any) -> dict[str, Any]:
    text, tool = _text_of(reply)
    usage_src = reply if isinstance(reply, Text) else Text("")
    inp, out = _tokens(usage_src, body)
    message: dict[str, Any] = {"role": "assistant", "content": text if tool is None else None}
    if tool is not None:
        message["tool_calls"] = [{"id": uid("call"), "type": "function", "function": {
            "name": tool.name, "arguments": json.dumps(tool.args)}}]
    return {
        "id": uid("chatcmpl"), "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "stop" if tool is None else "tool_calls"}],
        "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out,
                  "prompt_tokens_details": {"cached_tokens": usage_src.cache_read_tokens}},
    }


def chat_chunks(completion: dict[str, Any]) -> Iterator[dict[str, Any]]:
    choice = completion["choices"][0]
    base = {k: completion[k] for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    delta = {k: v for k, v in choice["message"].items() if v is not None}
    if "tool_calls" in delta:
        delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(delta["tool_calls"])]
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    yield {**base, "choices": [], "usage": completion["usage"]}


def response_object(reply: Text | ToolUse, body: Any) -> dict[str, Any]:
    text, tool = _text_of(reply)
    usage_src = reply if isinstance(reply, Text) else Text("")
    inp, out = _tokens(usage_src, body)
    if tool is None:
        item: dict[str, Any] = {"type": "message", "id": uid("msg"), "status": "completed",
                                "role": "assistant", "content": [
                                    {"type": "output_text", "text": text, "annotations": []}]}
    else:
        item = {"type": "function_call", "id": uid("fc"), "call_id": uid("call"),
                "name": tool.name, "arguments": json.dumps(tool.args), "status": "completed"}
    return {
        "id": uid("resp"), "object": "response", "created_at": int(time.time()),
        "status": "completed", "model": body.get("model", "fake"), "output": [item],
        "error": None, "incomplete_details": None, "instructions": body.get("instructions"),
        "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0, "top_p": 1.0,
        "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out,
                  "input_tokens_details": {"cached_tokens": usage_src.cache_read_tokens},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def response_events(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    yield {"type": "response.created", "response": pending}
    yield {"type": "response.in_progress", "response": pending}
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            yield from _message_item_events(index, item)
        else:
            yield {"type": "response.output_item.added", "output_index": index,
                   "item": {**item, "arguments": "", "status": "in_progress"}}
            yield {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                   "output_index": index, "delta": item["arguments"]}
            yield {"type": "response.function_call_arguments.done", "item_id": item["id"],
                   "output_index": index, "arguments": item["arguments"]}
            yield {"type": "response.output_item.done", "output_index": index, "item": item}
    yield {"type": "response.completed", "response": response}


def _message_item_events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    part = item["content"][0]
    where = {"item_id": item["id"], "output_index": index, "content_index": 0}
    yield {"type": "response.output_item.added", "output_index": index,
           "item": {**item, "content": [], "status": "in_progress"}}
    yield {"type": "response.content_part.added", **where, "part": {**part, "text": ""}}
    yield {"type": "response.output_text.delta", **where, "delta": part["text"], "logprobs": []}
    yield {"type": "response.output_text.done", **where, "text": part["text"], "logprobs": []}
    yield {"type": "response.content_part.done", **where, "part": part}
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


