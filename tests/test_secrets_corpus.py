"""One secrets engine: a generated corpus of shapes (formats x key names x values x
placements), planted in every text field of all four transcript formats, never reaches
the archive; the benign look-alikes stay as written."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.firewall import Context, scan_text
from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot_cli import CopilotCliSource
from skillopt_sleep.harvest.copilot_vscode import CopilotVSCodeSource
from skillopt_sleep.harvest.sources import Filter
from skillopt_sleep.publish import staging
from skillopt_sleep.records import NightResult
from skillopt_sleep.secrets import find_secrets, redact

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, vscode_tree
from ._secret_shapes import BENIGN, PLACEMENTS, shapes

SHAPES = shapes()
TEXT_KEYS = {
    "text", "content", "message", "output", "arguments", "command", "stdout", "stderr",
    "aggregated_output", "value", "prompt", "result", "input", "detailedContent", "cmd",
}


def test_the_corpus_is_generated_from_classes_and_large_enough() -> None:
    labels = [label for label, _, _ in SHAPES]
    assert len(set(labels)) == len(labels) >= 150
    classes = {label.split("/")[0] for label in labels}
    assert len(classes) >= 60  # formats, commands, URLs, vendors, key blocks
    assert len(set(BENIGN)) >= 60


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_every_shape_in_every_placement_is_removed(placement: str) -> None:
    """Each shape where a transcript carries it, as written and JSON-encoded (once, as a
    tool's arguments are, and twice, as a JSON string inside a JSON record)."""
    survivors = []
    for label, line, value in SHAPES:
        text = PLACEMENTS[placement].format(line=line)
        for context in (text, json.dumps({"content": text}), json.dumps(json.dumps(text))):
            clean, count = redact(context)
            if count < 1 or value in clean:
                survivors.append((label, clean[:200]))
    assert survivors == []


@pytest.mark.parametrize("line", BENIGN)
def test_benign_lines_are_kept_as_written(line: str) -> None:
    assert redact(line) == (line, 0)
    for placement in PLACEMENTS.values():
        text = placement.format(line=line)
        assert redact(text) == (text, 0)
        assert redact(json.dumps(text)) == (json.dumps(text), 0)


def test_the_firewall_refuses_every_shape() -> None:
    for label, line, _ in SHAPES:
        if "\n" in line:  # the firewall scans line by line; a block is one finding whole
            assert find_secrets(line), label
        else:
            assert any(f.rule == "secret" for f in scan_text(line, Context())), label


class _Planter:
    """Appends a canary and a secret line to every text field it is given, round robin
    starting at ``offset`` (so each field of each run carries a different share)."""

    def __init__(self, offset: int = 0, per_field: int = 6) -> None:
        self.next = offset
        self.per_field = per_field

    def text(self, value: str) -> str:
        if value.lstrip().startswith(("{", "[")):
            try:
                inner = json.loads(value)
            except ValueError:
                pass
            else:
                return json.dumps(self.walk(inner))
        planted = []
        for _ in range(self.per_field):
            i = self.next % len(SHAPES)
            self.next += 1
            planted.append(f"CANARY{i:03d} {SHAPES[i][1]}")
        return value + " " + "\n".join(planted)

    def walk(self, node: Any, key: str = "") -> Any:
        if isinstance(node, dict):
            return {k: self.walk(v, k) for k, v in node.items()}
        if isinstance(node, list):
            return [self.walk(v, key) for v in node]
        if isinstance(node, str) and key in TEXT_KEYS and node:
            return self.text(node)
        return node


def _plant(path: Path, planter: _Planter) -> None:
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        path.write_text(json.dumps(planter.walk(json.loads(raw))), encoding="utf-8")
        return
    out = []
    for line in raw.splitlines():
        try:
            out.append(json.dumps(planter.walk(json.loads(line))))
        except ValueError:
            out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _four_formats(tmp: Path, offset: int) -> list[Any]:
    planter = _Planter(offset)
    claude = claude_tree(tmp / "claude", "bugfix_snapshots.jsonl", "slash_sidechain.jsonl")
    for path in claude.rglob("*.jsonl"):
        _plant(path, planter)
    codex_files = [
        codex_tree(tmp / "codex", name, f"0199{i:04d}-0000-7000-8000-00000000000{i}")
        for i, name in enumerate(["ide_context.jsonl", "compacted.jsonl"])
    ]
    copilot = copilot_tree(tmp / "copilot", "subagent_skill.jsonl",
                           "11111111-2222-3333-4444-555555555555")
    vscode = vscode_tree(
        tmp / "vscode", "oplog_cancelled.jsonl",
        "file:///path/to/demo",
    )
    for path in [*codex_files, copilot, vscode]:
        _plant(path, planter)
    return [
        ClaudeCodeSource(tmp / "claude", include_headless=True),
        CodexSource(tmp / "codex", include_headless=True),
        CopilotCliSource(tmp / "copilot", include_headless=True),
        CopilotVSCodeSource(tmp / "vscode", include_headless=True),
    ]


def _plain(value: object) -> object:
    """A compressed column (a turn's ``payload_z``) as the text it holds."""
    if isinstance(value, bytes):
        try:
            return zlib.decompress(value).decode("utf-8", "replace")
        except zlib.error:
            return value
    return value


def _archive_text(path: Path) -> str:
    """Every value of every table, as one text (the WAL is checkpointed first)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    parts = [repr(tuple(_plain(v) for v in row))
             for t in tables for row in conn.execute(f"SELECT * FROM {t}")]
    conn.close()
    return "\n".join(parts)


def test_secrets_planted_in_all_four_formats_never_reach_the_archive(tmp_path: Path) -> None:
    """Every shape, appended to every text field of every record of the four formats
    (prompts, tool commands and arguments, tool outputs, file contents, answers), in runs
    that rotate which shape lands in which field until each shape has landed whole."""
    landed_all: set[int] = set()
    leaked: list[tuple[str, str]] = []
    for run, offset in enumerate(range(0, len(SHAPES), 31)):
        root = tmp_path / f"run{run}"
        sources = _four_formats(root, offset)
        archive = Archive(root / "state" / "archive.sqlite3")
        sessions = list(harvest(archive, sources, Filter(include_headless=True)))
        archive.close()
        kept = _archive_text(root / "state" / "archive.sqlite3")
        landed = {i for i in range(len(SHAPES)) if f"CANARY{i:03d}" in kept}
        landed_all |= landed
        assert {s.source for s in sessions} == {
            "claude-code", "codex", "copilot-cli", "copilot-vscode"}
        leaked += [(SHAPES[i][0], "archive") for i in landed if SHAPES[i][2] in kept]
        for session in sessions:
            text = json.dumps([t.__dict__ for t in session.turns], default=str)
            leaked += [(label, session.source) for label, _, value in SHAPES if value in text]
    # Every shape reached the archive in some field (so its absence means redaction).
    assert landed_all == set(range(len(SHAPES)))
    assert leaked == []


@pytest.mark.parametrize("line", [
    "token = get_token()", "headers = request.headers.get('x')", "token: data.token",
    "api_key = settings.api_key",
])
def test_code_that_names_a_secret_is_not_a_secret(line: str) -> None:
    assert redact(line) == (line, 0)


def test_the_staged_reports_carry_no_secret_even_when_the_night_saw_one(tmp_path: Path) -> None:
    _, line, value = SHAPES[0]
    result = NightResult(night_id="20261121-030000-abcdef12", skill="fix",
                         skill_before=f"old\n{line}\n", skill_after="new\n")
    folder = staging.stage(tmp_path, result.night_id, "/p", [result], {},
                           f"<html><pre>{line}</pre></html>")
    for name in ("report.html", "report.json"):
        text = (folder / name).read_text("utf-8")
        assert value not in text and "[REDACTED:" in text, name
    json.loads((folder / "report.json").read_text("utf-8"))
