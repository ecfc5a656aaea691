"""Placements the engine cannot reach while the harvest cuts a field before redacting it
or keeps a field without redacting it. They fail today and pass once every string goes
through ``secrets`` once, whole, before it is cut or stored (issue 29, part 1)."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.harvest.build import MAX_ANSWER
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.harvest.sources import Filter

from ._harvest_layout import FIXTURES, vscode_tree
from .test_secrets_corpus import _archive_text

TOKEN = "ghp_" + "Q7wK2rT9yU4iO1pA8sD3fG6hJ0kL5zX2cV7b"


def _kept(tmp_path: Path, sources: list) -> str:
    archive = Archive(tmp_path / "state" / "archive.sqlite3")
    list(harvest(archive, sources, Filter(include_headless=True)))
    archive.close()
    return _archive_text(tmp_path / "state" / "archive.sqlite3")


def test_a_token_at_the_answer_limit_keeps_no_part_of_itself(tmp_path: Path) -> None:
    answer = "x" * (MAX_ANSWER - 12) + " " + TOKEN + " done"
    folder = tmp_path / "projects" / "-w"
    folder.mkdir(parents=True)
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": "s", "cwd": "/w",
         "timestamp": "2026-01-01T10:00:00Z",
         "message": {"role": "user", "content": "print the token"}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0", "sessionId": "s", "cwd": "/w",
         "timestamp": "2026-01-01T10:00:30Z",
         "message": {"id": "m0", "role": "assistant",
                     "content": [{"type": "text", "text": answer}]}},
    ]
    (folder / "s.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    kept = _kept(tmp_path, [ClaudeCodeSource(tmp_path, include_headless=True)])
    assert "xxxxxxxx" in kept  # the answer was archived
    assert TOKEN[:10] not in kept


def test_a_vscode_invocation_message_kept_as_a_tool_name_is_redacted(tmp_path: Path) -> None:
    source = FIXTURES / "copilot-vscode" / "oplog_cancelled.jsonl"
    lines = source.read_text("utf-8").splitlines()
    planted = []
    for line in lines:
        record = json.loads(line)
        for part in record.get("v", []) if isinstance(record.get("v"), list) else []:
            if isinstance(part, dict) and part.get("toolId") == "runSubagent":
                del part["toolId"]
                part["invocationMessage"] = f"export GITHUB_TOKEN={TOKEN}"
        planted.append(json.dumps(record))
    copy = tmp_path / "oplog_cancelled.jsonl"
    copy.write_text("\n".join(planted) + "\n", "utf-8")
    vscode_tree(tmp_path / "vscode", copy, "file:///path/to/demo")
    kept = _kept(tmp_path, [CopilotVSCodeSource(tmp_path / "vscode", include_headless=True)])
    assert "GITHUB_TOKEN" in kept  # the message was archived
    assert TOKEN[:10] not in kept
