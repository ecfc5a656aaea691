"""A pre-flight that warns where it cannot know: a gateway that lists no models (404 on
``GET …/v1/models``) but answers its completion path is a warning, never a reason to stop
the night; a wrong path (404 on both) and a closed port stay errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from skillopt_sleep.config import Settings
from skillopt_sleep.models.build import check_roles


class _Gateway(BaseHTTPRequestHandler):
    """404 for every model list and every unknown path; 400 for an empty completion."""

    served = ("/v1/messages", "/v1/chat/completions", "/v1/responses")

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(404, {"error": {"type": "not_found_error", "message": "no such route"}})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path in self.served:
            self._send(400, {"error": {"type": "invalid_request_error",
                                       "message": "model: field required"}})
        else:
            self.do_GET()

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _checks(url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[str, str]]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    settings = Settings(target="anthropic:claude-haiku-4-5", target_base_url=url,
                        optimizer="openai:gpt-4.1-mini", optimizer_base_url=f"{url}/v1")
    return {c.role: [(f.level, f.detail) for f in c.readiness.findings]
            for c in check_roles(settings, reach=True)}


def test_a_gateway_without_a_model_list_is_a_warning(gateway: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    found = _checks(gateway, monkeypatch)
    for role in ("target", "optimizer"):
        levels = [level for level, _ in found[role]]
        assert "error" not in levels, found[role]
        (detail,) = [d for level, d in found[role] if level == "warning"]
        assert "lists no models" in detail and "doctor --live" in detail


def test_a_wrong_path_is_still_an_error(gateway: str, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _checks(f"{gateway}/not-here", monkeypatch)
    for role in ("target", "optimizer"):
        errors = [d for level, d in found[role] if level == "error"]
        assert errors and "path is probably wrong" in errors[0]
