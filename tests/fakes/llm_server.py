"""A scripted model server on 127.0.0.1 that speaks the providers' wire formats.

Serves Anthropic Messages (``/v1/messages``, ``?beta=true`` accepted, streaming SSE,
``/v1/messages/count_tokens``), OpenAI Chat Completions (``/v1/chat/completions``) and
OpenAI Responses (``/v1/responses``), each plain or streaming, so the real SDKs and the
real agent CLIs (claude, codex, copilot) can run against it with no network.

Each model request takes the next reply from the script (``default`` once it is empty):
``Text``, ``ToolUse`` (a tool call), ``ToolThenText`` (a tool call until the request
carries a tool result, then text), ``Status`` (an HTTP error), ``Hang`` (sleep, then a
reply) or ``Malformed`` (a broken body). A callable ``(RecordedRequest) -> Reply`` works
too. Every request is recorded in ``requests``. By default any path ending in a known
endpoint is served; ``strict=True`` serves only the real ones (``/v1/messages``,
``/v1/chat/completions``, ``/v1/responses``, ``/v1/models``…) and answers 404 elsewhere, as
a real server does for a wrong base URL.
The ``default`` may also be a callable (``experiments/real_night_bench.py`` answers every
request that way, with latency and a few errors).

    with FakeLLMServer([Status(429), Text("hi")]) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="dummy")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .llm_wire import (
    Hang,
    Malformed,
    Reply,
    Status,
    Text,
    ToolThenText,
    ToolUse,
    anthropic_events,
    anthropic_message,
    chat_chunks,
    chat_completion,
    response_events,
    response_object,
    uid,
)

__all__ = ["FakeLLMServer", "Hang", "Malformed", "RecordedRequest", "Reply", "Status", "Text",
           "ToolThenText", "ToolUse"]

_STRICT_PATHS = {"/v1/messages", "/v1/messages/count_tokens", "/v1/chat/completions",
                 "/v1/responses", "/v1/models"}

_BUILDERS = {"anthropic": anthropic_message, "chat": chat_completion,
             "responses": response_object}

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


class _Quiet(ThreadingHTTPServer):
    """A client that gave up (a timeout test) breaks the pipe; that is expected, not news."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class FakeLLMServer:
    """Context manager: binds a free port on 127.0.0.1, serves in a thread, stops on exit."""

    def __init__(self, script: list[Script] | None = None, default: Script | None = None,
                 strict: bool = False):
        self.strict = strict
        self._script: list[Script] = list(script or [])
        self.default: Script = default or Text("ok")
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Quiet(("127.0.0.1", 0), _handler_for(self))
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
                head = self.default
            elif isinstance(head, ToolThenText):
                if not _has_tool_result(request):
                    return ToolUse(head.name, head.args)
                self._script.pop(0)
                return Text(head.text)
            else:
                self._script.pop(0)
        # A callable answers outside the lock, so concurrent requests are answered together.
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

    def _known(self, path: str) -> bool:
        return not self.fake.strict or path.rstrip("/") in _STRICT_PATHS

    def do_GET(self) -> None:
        request = self._record(None)
        if request.path.rstrip("/").endswith("/models") and self._known(request.path):
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
        if not self._known(request.path):
            self._json(404, {"error": {"type": "not_found", "message": request.path}})
        elif request.path.endswith("/count_tokens"):
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
        self.send_header("request-id", uid("req"))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)
