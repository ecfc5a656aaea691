"""A scripted model server on 127.0.0.1 that speaks the providers' wire formats.

Serves Anthropic Messages (``/v1/messages``, ``?beta=true`` accepted, streaming SSE,
``/v1/messages/count_tokens``), OpenAI Chat Completions (``/v1/chat/completions``) and
OpenAI Responses (``/v1/responses``), each plain or streaming, so the real SDKs and the
real agent CLIs (claude, codex, copilot) can run against it with no network.

Each model request takes the next reply from the script (``default`` once it is empty):
``Text``, ``ToolUse`` (a tool call), ``ToolThenText`` (a tool call until the request
carries a tool result, then text), ``Status`` (an HTTP error), ``Hang`` (sleep, then a
reply) or ``Malformed`` (a broken body). A callable ``(RecordedRequest) -> Reply`` works
too. Every request is recorded in ``requests``.

    with FakeLLMServer([Status(429), Text("hi")]) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="dummy")
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Text:
    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0


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
Script = Reply | Callable[["RecordedRequest"], "Reply"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any

    @property
    def wire(self) -> str:
        return _wire(self.path)


def _wire(path: str) -> str:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    return ""


class FakeLLMServer:
    """Context manager: binds a free port on 127.0.0.1, serves in a thread, stops on exit."""

    def __init__(self, script: list[Script] | None = None, default: Reply | None = None):
        self._script: list[Script] = list(script or [])
        self.default: Reply = default or Text("ok")
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for Anthropic clients (they append ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for OpenAI clients (they append ``/chat/completions``, ``/responses``)."""
        return f"{self.url}/v1"

    def push(self, *replies: Script) -> None:
        with self._lock:
            self._script.extend(replies)

    def model_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.wire]

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def next_reply(self, request: RecordedRequest) -> Reply:
        """Take the reply for a model request; ``ToolThenText`` stays until a result arrives."""
        with self._lock:
            head = self._script[0] if self._script else None
            if head is None:
                return self.default
            if isinstance(head, ToolThenText):
                if not _has_tool_result(request):
                    return ToolUse(head.name, head.args)
                self._script.pop(0)
                return Text(head.text)
            self._script.pop(0)
        return head(request) if callable(head) else head

    def sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)


def _has_tool_result(request: RecordedRequest) -> bool:
    body = request.body if isinstance(request.body, dict) else {}
    if request.wire == "anthropic":
        messages = body.get("messages") or [{}]
        content = messages[-1].get("content")
        return isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )
    if request.wire == "chat":
        messages = body.get("messages") or [{}]
        return messages[-1].get("role") == "tool"
    items = body.get("input")
    if not isinstance(items, list):
        return False
    turns = [i for i in items if isinstance(i, dict)
             and (i.get("type") == "function_call_output" or i.get("role") == "user")]
    return bool(turns) and turns[-1].get("type") == "function_call_output"


# --- wire formats ---------------------------------------------------------------------------


def _uid(prefix: str) -> str:
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
        {"type": "tool_use", "id": _uid("toolu"), "name": tool.name, "input": tool.args}]
    return {
        "id": _uid("msg"), "type": "message", "role": "assistant",
        "model": body.get("model", "fake"), "content": content,
        "stop_reason": "end_turn" if tool is None else "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": out,
                  "cache_read_input_tokens": usage_src.cache_read_tokens,
                  "cache_creation_input_tokens": 0},
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
        message["tool_calls"] = [{"id": _uid("call"), "type": "function", "function": {
            "name": tool.name, "arguments": json.dumps(tool.args)}}]
    return {
        "id": _uid("chatcmpl"), "object": "chat.completion", "created": int(time.time()),
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
        item: dict[str, Any] = {"type": "message", "id": _uid("msg"), "status": "completed",
                                "role": "assistant", "content": [
                                    {"type": "output_text", "text": text, "annotations": []}]}
    else:
        item = {"type": "function_call", "id": _uid("fc"), "call_id": _uid("call"),
                "name": tool.name, "arguments": json.dumps(tool.args), "status": "completed"}
    return {
        "id": _uid("resp"), "object": "response", "created_at": int(time.time()),
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


_BUILDERS = {"anthropic": anthropic_message, "chat": chat_completion,
             "responses": response_object}


# --- HTTP -------------------------------------------------------------------------------------


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        request = self._record(None)
        if request.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [
                {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]})
        else:
            self._json(404, {"error": {"type": "not_found", "message": request.path}})

    def do_HEAD(self) -> None:
        self._json(200, {})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else {}
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = self._record(body)
        if request.path.endswith("/count_tokens"):
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
        elif request.wire:
            self._serve(request, self.fake.next_reply(request))
        else:
            self._json(404, {"error": {"type": "not_found", "message": request.path}})

    def _record(self, body: Any) -> RecordedRequest:
        parts = urlsplit(self.path)
        request = RecordedRequest(self.command, parts.path, parse_qs(parts.query),
                                  {k.lower(): v for k, v in self.headers.items()}, body)
        with self.fake._lock:
            self.fake.requests.append(request)
        return request

    def _serve(self, request: RecordedRequest, reply: Reply) -> None:
        if isinstance(reply, Hang):
            self.fake.sleep(reply.seconds)
            if reply.then is None:
                self.close_connection = True
                return
            reply = reply.then
        if isinstance(reply, Status):
            self._status(request.wire, reply)
        elif isinstance(reply, Malformed):
            self._raw(200, reply.body.encode(), reply.content_type)
        elif isinstance(reply, Text | ToolUse):
            body = request.body if isinstance(request.body, dict) else {}
            payload = _BUILDERS[request.wire](reply, body)
            if body.get("stream"):
                self._stream(request.wire, payload)
            else:
                self._json(200, payload)
        else:
            raise TypeError(f"cannot serve {reply!r}")

    def _status(self, wire: str, reply: Status) -> None:
        body = reply.body
        if body is None:
            kind = {401: "authentication_error", 429: "rate_limit_error",
                    529: "overloaded_error"}.get(reply.code, "api_error")
            body = ({"type": "error", "error": {"type": kind, "message": f"fake {reply.code}"}}
                    if wire == "anthropic" else
                    {"error": {"type": kind, "message": f"fake {reply.code}", "code": kind}})
        raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self._raw(reply.code, raw, "application/json", reply.headers)

    def _stream(self, wire: str, payload: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if wire == "anthropic":
            for name, data in anthropic_events(payload):
                self._event(name, data)
        elif wire == "chat":
            for chunk in chat_chunks(payload):
                self._event(None, chunk)
            self.wfile.write(b"data: [DONE]\n\n")
        else:
            for number, data in enumerate(response_events(payload)):
                self._event(data["type"], {**data, "sequence_number": number})
        self.wfile.flush()

    def _event(self, name: str | None, data: dict[str, Any]) -> None:
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _json(self, code: int, payload: Any) -> None:
        self._raw(code, json.dumps(payload).encode(), "application/json")

    def _raw(self, code: int, raw: bytes, content_type: str,
             headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("request-id", _uid("req"))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)
