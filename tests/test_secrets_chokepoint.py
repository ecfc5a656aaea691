"""Each redaction point on its own: the harvest walk over every record field, the order
redact-then-cut at every limit, and each output layer (errors, the JSON printer, the
consoles, the stdout/stderr guard, staged JSON, the nights row, MCP tools, logs, handoff
prompts). The end-to-end canary test (test_secrets_canary.py) shows no secret reaches a
surface; these show that removing any one point is caught even where another layer behind
it would still have hidden the secret."""

from __future__ import annotations

import io
import json
import logging
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import anyio
import pytest

from skillopt_sleep.archive.db import night_row
from skillopt_sleep.cli._console import console, guarded
from skillopt_sleep.cli._json import emit
from skillopt_sleep.cli.mcp_server import ToolError, _RedactingServer
from skillopt_sleep.daemon.foreground import RedactingFormatter
from skillopt_sleep.errors import NotReady, RoleUnavailable, SkillOptError, Unreachable
from skillopt_sleep.harvest import scrub
from skillopt_sleep.harvest.base import HarvestStats
from skillopt_sleep.harvest.build import (
    MAX_ANSWER,
    MAX_ARG,
    MAX_ERROR_HEAD,
    MAX_REQUEST,
    SessionBuilder,
)
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.models.handoff import HandoffLLM
from skillopt_sleep.publish import staging
from skillopt_sleep.records import NightResult, Session, ToolCall, Turn, to_dict
from tests._canary_world import secret

TOKEN = secret("chokepoint unit")
URL = f"https://canary:{TOKEN}@proxy.example/v1"


def _dump(session: Session | None) -> str:
    assert session is not None
    return json.dumps(to_dict(session))


# --- the harvest walk ---------------------------------------------------------------------


def _fill(record: Any, planted: dict[str, str], prefix: str = "") -> None:
    """A distinct secret in every string, list-of-string and dict field of ``record``."""
    for f in fields(record):
        label = f"{prefix}{type(record).__name__}.{f.name}"
        value = getattr(record, f.name)
        if isinstance(value, str):
            planted[label] = secret(label)
            setattr(record, f.name, f"{f.name} {planted[label]}")
        elif isinstance(value, list) and not value:
            planted[label] = secret(label)
            setattr(record, f.name, [f"item {planted[label]}"])
        elif isinstance(value, dict):
            planted[label] = secret(label)
            planted[label + " key"] = secret(label + " key")
            setattr(record, f.name, {"arg": f"value {planted[label]}",
                                     planted[label + " key"]: 1})


def test_every_string_field_of_every_record_is_redacted_by_the_walk():
    """Generic over ``dataclasses.fields``: a field added tomorrow is covered the same way."""
    planted: dict[str, str] = {}
    call = ToolCall(name="")
    turn = Turn(id="", index=0, request="")
    session = Session(source="", session_id="", project="")
    _fill(call, planted)
    _fill(turn, planted)
    turn.signals = []  # signals are the harvest's own words, not transcript text
    turn.tool_calls = [call]
    _fill(session, planted)
    session.turns = [turn]
    scrub.Scrubber().scrub(session)
    text = json.dumps(to_dict(session))
    kept = {f"Session.{name}" for cls, name in scrub.KEPT if cls == "Session"}
    assert kept == {"Session.path", "Session.source"}
    leaked = [label for label, value in planted.items() if value in text and label not in kept]
    assert leaked == []
    assert len(planted) >= 15


def test_an_archived_text_being_continued_is_not_redacted_again(monkeypatch):
    """Redaction need not be idempotent: a resumed session's old text is kept byte for byte,
    while the new text is redacted as usual (here a stand-in rule marks what it saw)."""
    monkeypatch.setattr(scrub, "redact", lambda text: (f"<{text}>", 1))
    monkeypatch.setattr(scrub, "may_hold_secrets", lambda texts: True)
    old = Session(source="codex", session_id="s1", project="/p", turns=[
        Turn(id="codex:s1:0", index=0, request="old request", final_answer="old answer",
             tool_calls=[ToolCall(name="shell", ok=None, args={"cmd": "ls"})])])
    b = SessionBuilder("codex", HarvestStats())
    b.resume(old, 0, {"c1": [0, 0]})
    b.tool_result("c1", False, "new failure")
    b.start_turn("new request")
    session = b.finish("/x")
    assert session is not None
    first, second = session.turns
    assert (first.request, first.final_answer) == ("old request", "old answer")
    assert first.tool_calls[0].args == {"cmd": "ls"} and first.tool_calls[0].name == "shell"
    assert first.tool_calls[0].error_head == "<new failure>"
    assert second.request == "<new request>"


def test_two_sessions_whose_ids_held_a_secret_stay_two():
    ids = []
    for n in range(2):
        b = SessionBuilder("codex", HarvestStats())
        b.session_id = secret(f"session {n}")
        b.start_turn("hello")
        session = b.finish("/x")
        assert session is not None and secret(f"session {n}") not in _dump(session)
        ids.append(session.session_id)
    assert ids[0] != ids[1]


# --- cut after redaction, at every limit ---------------------------------------------------


def _straddling(limit: int) -> str:
    """A text whose token starts 20 characters before ``limit`` and ends after it."""
    return "x" * (limit - 20) + " " + TOKEN + " and more after it"


def _no_piece_of_token(text: str) -> None:
    body = TOKEN[4:]
    pieces = [body[i:i + 12] for i in range(0, len(body) - 12)]
    assert not [p for p in pieces if p in text], text[-300:]


def _builder_with(field: str, text: str) -> Session | None:
    b = SessionBuilder("codex", HarvestStats())
    b.session_id = "s"
    b.start_turn(text if field == "request" else "run it")
    if field == "answer":
        b.answer(text)
    b.add_tool("c1", text if field == "name" else "shell",
               {"command": text} if field == "arg" else {"command": "ls"})
    if field == "error":
        b.tool_result("c1", False, text)
    if field == "file":
        b.touched(text)
    return b.finish("/x")


@pytest.mark.parametrize(("field", "limit"), [
    ("request", MAX_REQUEST), ("answer", MAX_ANSWER), ("error", MAX_ERROR_HEAD),
    ("arg", MAX_ARG), ("name", scrub.LIMITS[("ToolCall", "name")]),
    ("file", scrub.LIMITS[("Session", "files_touched")]),
])
def test_a_token_at_a_field_limit_is_redacted_whole_before_the_cut(field: str, limit: int):
    session = _builder_with(field, _straddling(limit))
    text = _dump(session)
    _no_piece_of_token(text)
    assert "[REDACTED" in text


def test_a_long_text_is_read_far_enough_past_its_cut(monkeypatch):
    """Past ``limit + SPAN`` nothing can reach the kept part, unless redaction shrank the
    window (a run of long secrets): then the whole text is read."""
    seen: list[int] = []

    def shrinking(text: str) -> tuple[str, int]:
        seen.append(len(text))
        return text.replace("#", ""), text.count("#")

    monkeypatch.setattr(scrub, "redact", shrinking)
    monkeypatch.setattr(scrub, "may_hold_secrets", lambda texts: True)
    plain = "x" * (100 + scrub.SPAN * 2)
    assert scrub.Scrubber().text(plain, 100) == "x" * 100 + "…"
    assert seen == [100 + scrub.SPAN]
    seen.clear()
    shrunk = "#" * (100 + scrub.SPAN) + "kept"
    assert scrub.Scrubber().text(shrunk, 100) == "kept"
    assert seen == [100 + scrub.SPAN, len(shrunk)]


def test_a_window_the_prefilter_clears_is_cut_without_the_rules(monkeypatch):
    """The prefilter is never wrong, so a window it clears is only cut; one it does not
    clear goes through the rules (here with a secret that starts before the cut)."""
    called: list[int] = []
    real = scrub.redact

    def counting(text: str) -> tuple[str, int]:
        called.append(len(text))
        return real(text)

    monkeypatch.setattr(scrub, "redact", counting)
    assert scrub.Scrubber().text("def f():\n    return 1\n" * 500, 300).endswith("…")
    assert called == []
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4"
    held = scrub.Scrubber().text("x" * 290 + " " + token + " tail" * 2000, 300)
    assert called and token[:10] not in held and "ghp_" not in held


def _claude(tmp_path: Path, answer: str, error: str) -> Session | None:
    folder = tmp_path / "claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    base = {"cwd": "/p", "sessionId": "s1", "isSidechain": False, "userType": "external"}
    records = [
        {"type": "user", "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": error}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": answer}},
    ]
    lines = [json.dumps(base | r | {"uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                                    "timestamp": f"2026-01-05T10:0{n}:00Z"})
             for n, r in enumerate(records)]
    (folder / "s1.jsonl").write_text("\n".join(lines) + "\n")
    source = ClaudeCodeSource(tmp_path / "claude", include_headless=True)
    (session,) = list(source.sessions_from(folder / "s1.jsonl"))
    return session


def test_claude_code_answers_and_failed_output_are_redacted_before_any_cut(tmp_path: Path):
    # The error head was cut at 600 by the reader, then 300; the answer at 4,000.
    session = _claude(tmp_path, _straddling(MAX_ANSWER), _straddling(600) + _straddling(300))
    _no_piece_of_token(_dump(session))


def test_the_readers_hand_the_rule_set_each_text_whole(tmp_path: Path, monkeypatch):
    """Whatever the rules: a secret that only its end identifies (a PEM block read by its
    footer) is found only in the whole text, so the whole text is what must be given."""
    seen: list[str] = []
    monkeypatch.setattr(scrub, "redact", lambda text: (seen.append(text), (text, 0))[1])
    monkeypatch.setattr(scrub, "may_hold_secrets", lambda texts: True)
    # Far past each cut (300, 4,000) and within the window the rules read (``SPAN``).
    error = "Exit code 1\n" + "e" * (scrub.SPAN - 200) + " END-OF-ERROR"
    answer = "a" * (4000 + scrub.SPAN - 100) + " END-OF-ANSWER"
    _claude(tmp_path, answer, error)
    assert any(text.endswith("END-OF-ERROR") and len(text) > scrub.SPAN - 300 for text in seen)
    assert any(text.endswith("END-OF-ANSWER") and len(text) > 4000 + scrub.SPAN - 100
               for text in seen)


def test_copilot_vscode_invocation_messages_and_error_output_are_redacted_whole(tmp_path):
    workspace = tmp_path / "ws" / "h1"
    (workspace / "chatSessions").mkdir(parents=True)
    (workspace / "workspace.json").write_text(json.dumps({"folder": "file:///p"}))
    response = [
        {"kind": "toolInvocationSerialized", "toolCallId": "v1", "isComplete": True,
         "invocationMessage": {"value": _straddling(80)}},
        {"kind": "toolInvocationSerialized", "toolCallId": "v2", "toolId": "run_in_terminal",
         "resultDetails": {"isError": True, "output": _straddling(MAX_ERROR_HEAD)}}]
    state = {"sessionId": "v", "requests": [{
        "message": {"text": "go"}, "response": response, "result": {},
        "modelState": {"value": 1}}]}
    path = workspace / "chatSessions" / "v.jsonl"
    path.write_text(json.dumps({"kind": 0, "v": state}) + "\n")
    (session,) = list(CopilotVSCodeSource(tmp_path / "ws").sessions_from(path))
    text = _dump(session)
    _no_piece_of_token(text)
    assert text.count("[REDACTED") >= 2


def test_a_resume_state_that_holds_a_secret_is_not_kept(tmp_path: Path):
    for cwd, kept in (("/p", True), (f"/p/{TOKEN}", False)):
        folder = tmp_path / cwd.replace("/", "_") / "projects" / "-p"
        folder.mkdir(parents=True)
        record = {"type": "user", "message": {"role": "user", "content": "go"}, "cwd": cwd,
                  "sessionId": "s1", "uuid": "u0", "parentUuid": None,
                  "timestamp": "2026-01-05T10:00:00Z"}
        (folder / "s1.jsonl").write_text(json.dumps(record) + "\n")
        read = ClaudeCodeSource(folder.parent.parent).read(folder / "s1.jsonl")
        assert (read.state is not None) is kept, cwd
        assert read.checkpoint is not None and TOKEN not in json.dumps(read.checkpoint.resume)


# --- output layers -------------------------------------------------------------------------


def test_an_error_is_redacted_when_made():
    for exc in (SkillOptError(f"cannot reach {URL}"), NotReady(f"x {URL}"),
                Unreachable(f"refused by {URL}", why="refused", where=URL),
                RoleUnavailable(f"the target at {URL}", reason=f"refused at {URL}")):
        assert TOKEN not in str(exc) + json.dumps(vars(exc)) and "canary:" in str(exc)


def test_the_json_printer_redacts(capsys):
    emit({"base_url": URL, "nested": [{"why": f"failed at {URL}"}]})
    out = capsys.readouterr().out
    assert TOKEN not in out and json.loads(out)["base_url"].startswith("https://canary:")


def test_the_console_redacts_before_it_lays_out(capsys):
    console().print(f"  target {URL}")
    console(stderr=True).print(f"problem: {URL}")
    seen = capsys.readouterr()
    assert TOKEN not in seen.out + seen.err and "canary:" in seen.out


def test_the_command_guard_redacts_stdout_and_stderr_even_when_written_in_pieces():
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        with guarded():
            sys.stdout.write(f"token={TOKEN[:10]}")
            sys.stdout.write(f"{TOKEN[10:]}\n")
            print(URL, file=sys.stderr)
            sys.stdout.write(f"no newline {URL}")
    finally:
        sys.stdout, sys.stderr = saved
    assert TOKEN[4:20] not in out.getvalue() + err.getvalue()
    assert "canary:" in err.getvalue() and "no newline" in out.getvalue()


def test_staged_json_is_written_redacted(tmp_path: Path):
    staging._write_json(tmp_path / "manifest.json", {"failed": f"cannot reach {URL}"})
    assert TOKEN not in (tmp_path / "manifest.json").read_text()


def test_the_nights_row_is_redacted_but_keeps_the_skill_texts_exact():
    skill = "---\nname: s\n---\nExample: password: hunter2hunter2\n"
    result = NightResult(night_id="n", skill="s", project="/p", skill_before=skill,
                         skill_after=skill, failed=f"the target at {URL} answered 404",
                         warnings=[f"calls to {URL} failed"])
    row = night_row(result)
    assert TOKEN not in json.dumps(row)
    assert row["skill_before"] == skill and row["skill_after"] == skill


def test_mcp_tool_results_and_errors_are_redacted():
    server = _RedactingServer("t")

    @server.tool()
    async def leaky() -> dict[str, Any]:
        return {"base_url": URL}

    @server.tool()
    async def failing() -> dict[str, Any]:
        raise ToolError(f"failed at {URL}")

    async def body() -> list[str]:
        seen = []
        for name in ("leaky", "failing"):
            try:
                seen.append((await server.call_tool(name, {})).model_dump_json())
            except ToolError as exc:  # how this server raises a tool's failure to its caller
                seen.append(str(exc))
        return seen

    for text in anyio.run(body):
        assert TOKEN not in text and "canary:" in text


def test_log_lines_are_redacted():
    record = logging.LogRecord("skillopt_sleep.daemon", logging.INFO, __file__, 1,
                               "night failed: %s", (f"cannot reach {URL}",), None)
    line = RedactingFormatter("%(message)s").format(record)
    assert TOKEN not in line and "canary:" in line


def test_handoff_prompts_are_written_redacted(tmp_path: Path):
    llm = HandoffLLM(tmp_path)
    llm._write_pending("k1", [{"role": "user", "content": f"use {URL}"}], max_tokens=10,
                       seed=0)
    text = (tmp_path / "pending" / "k1.md").read_text()
    assert TOKEN not in text and "canary:" in text
