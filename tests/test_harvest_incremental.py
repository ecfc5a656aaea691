"""Checkpoints, the archive, and the ``harvest`` command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.archive.sessions import load_sessions, save_sessions
from skillopt_sleep.cli.harvest import register
from skillopt_sleep.harvest.base import HarvestStats, parse_since, project_of
from skillopt_sleep.harvest.mock import MockSource
from skillopt_sleep.harvest.sources import Filter, make_source
from skillopt_sleep.paths import archive_path
from skillopt_sleep.records import Session, Turn

from ._harvest_layout import claude_tree, codex_tree, copilot_tree, vscode_tree

DAG = "rewind_compact.jsonl"  # a rewind, then a compaction: four live requests
SID = "5e55a001-7c1d-4b0e-9a6f-2f0c1d3e4a51"
PROJECT = "/path/to/api"
SIDECHAIN = "slash_sidechain.jsonl"
SIDECHAIN_ID = "a11ce5e0-3d2b-4f7a-8c19-5b6e7f8a9b0c"


def _dag(root: Path) -> Path:
    return root / "projects" / "-path-to-project" / DAG


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """A group, so ``harvest`` stays a subcommand as in the real CLI."""

    register(app)
    return app


def _lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_second_pass_reads_nothing_and_append_is_picked_up(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG)
    archive = Archive(archive_path())
    first = HarvestStats()
    got = list(harvest(archive, [make_source("claude-code", root, stats=first)]))
    assert len(got) == 1 and first.files_read == 1
    again = HarvestStats()
    assert list(harvest(archive, [make_source("claude-code", root, stats=again)])) == []
    assert again.files_read == 0 and again.files_unchanged == 1 and again.bytes_read == 0

    path = _dag(root)
    last = json.loads(path.read_text().splitlines()[-1])["uuid"]
    record = {"type": "user", "uuid": "n1", "parentUuid": last, "sessionId": SID,
              "cwd": PROJECT, "timestamp": "2025-07-01T11:00:00.000Z",
              "message": {"role": "user", "content": "One more thing"}}
    with path.open("a") as fh:
        fh.write("\n" + json.dumps(record) + "\n")
    third = HarvestStats()
    (session,) = list(harvest(archive, [make_source("claude-code", root, stats=third)]))
    assert [t.request for t in session.turns][-1] == "One more thing"
    (stored,) = list(load_sessions(archive))
    assert len(stored.turns) == 5
    assert stored.turns[4].id == f"claude-code:{SID}:4"


def test_archive_keeps_sessions_after_the_agent_deletes_them(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG)
    archive = Archive(archive_path())
    list(harvest(archive, [make_source("claude-code", root)]))
    shutil.rmtree(root / "projects")  # Claude Code's 30-day cleanup
    (kept,) = list(load_sessions(archive, project=PROJECT))
    assert kept.turns[0].request == "add a health endpoint"
    assert kept.turns[0].final_answer == "Added GET /health."
    assert list(load_sessions(archive, project="/elsewhere")) == []
    late = datetime(2025, 7, 2, tzinfo=UTC)
    assert list(load_sessions(archive, since=late)) == []
    assert len(list(load_sessions(archive, since=datetime(2025, 7, 1, 10, 41, tzinfo=UTC)))) == 1


def test_rotated_file_is_read_again(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG)
    archive = Archive(archive_path())
    list(harvest(archive, [make_source("claude-code", root)]))
    path = _dag(root)
    lines = path.read_text().splitlines()
    path.unlink()
    path.write_text("\n".join(lines[:4]) + "\n")  # a new, shorter file at the same path
    stats = HarvestStats()
    (session,) = list(harvest(archive, [make_source("claude-code", root, stats=stats)]))
    assert [t.request for t in session.turns] == ["add a health endpoint",
                                                  "make it return the version too"]
    (stored,) = list(load_sessions(archive))
    assert len(stored.turns) == 2  # replaced, no stale turns left behind


def test_headless_is_archived_but_returned_only_on_request(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG)
    path = _dag(root)
    path.write_text(path.read_text().replace('"entrypoint":"cli"', '"entrypoint":"sdk-cli"'))
    archive = Archive(archive_path())
    assert list(harvest(archive, [make_source("claude-code", root)])) == []
    assert list(load_sessions(archive)) == []
    (headless,) = list(load_sessions(archive, include_headless=True))
    assert headless.headless


def test_sentinel_sessions_never_come_back(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG)
    path = _dag(root)
    ask = "also add a test for it"
    path.write_text(path.read_text().replace(ask, f"[skillopt-sleep replay]\\n{ask}"))
    stats = HarvestStats()
    archive = Archive(archive_path())
    got = list(harvest(archive, [make_source("claude-code", root, stats=stats)],
                       Filter(include_headless=True)))
    assert got == [] and stats.dropped["sentinel"] == 1
    assert list(load_sessions(archive, include_headless=True)) == []


def test_project_identity_is_the_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert project_of(str(repo / "src" / "deep")) == os.path.realpath(repo)
    assert project_of(str(link / "src") + "/") == os.path.realpath(repo)
    assert project_of(str(tmp_path / "nogit") + "/") == str(tmp_path / "nogit")


def test_since_without_zone_is_an_error() -> None:
    from skillopt_sleep.errors import ConfigError
    with pytest.raises(ConfigError, match="no time zone"):
        parse_since("2025-07-01T10:00")
    assert parse_since("2025-07-01T12:00+02:00") == datetime(2025, 7, 1, 10, tzinfo=UTC)


def test_load_sessions_round_trip_with_mock_source() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    session = Session("mock", "m1", "/p", when, when, turns=[
        Turn(id="mock:m1:0", index=0, request="do x", final_answer="done", timestamp=when,
             signals=["tool_error"], reaction="correction")])
    archive = Archive(archive_path())
    got = list(harvest(archive, [MockSource([session])]))
    assert got == [session]
    save_sessions(archive, got)
    (back,) = list(load_sessions(archive, "/p", when))
    assert back.turns == session.turns and back.ended_at == when


# --- the command --------------------------------------------------------------------------


def test_harvest_command_json_lines(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG, SIDECHAIN)
    result = CliRunner().invoke(_app(), ["harvest", "--source", "claude-code", "--path",
                                         str(root), "--json"])
    assert result.exit_code == 0, result.output
    lines = _lines(result.stdout)
    summary = lines[-1]["summary"]
    assert isinstance(summary, dict)
    assert summary["sessions_by_source"] == {"claude-code": 2}
    assert summary["files_read"] == 2 and summary["lines_skipped"] == 0
    assert "secrets_redacted" in summary
    sessions = lines[:-1]
    assert {s["session_id"] for s in sessions} == {SID, SIDECHAIN_ID}
    turn = next(s for s in sessions if s["session_id"] == SID)["turns"][0]
    assert {"request", "final_answer", "tool_calls", "signals", "reaction"} <= set(turn)
    for field in ("source", "project", "started_at", "ended_at", "format_version", "headless",
                  "files_touched", "skills_used"):
        assert field in sessions[0]
    again = CliRunner().invoke(_app(), ["harvest", "--source", "claude-code", "--path",
                                        str(root), "--json"])
    assert _lines(again.stdout)[-1]["summary"]["files_unchanged"] == 2


def test_harvest_command_filters(tmp_path: Path) -> None:
    root = claude_tree(tmp_path / "claude", DAG, SIDECHAIN)
    args = ["harvest", "--source", "claude-code", "--path", str(root), "--json", "--rescan"]
    by_project = _lines(CliRunner().invoke(_app(), [*args, "--project", PROJECT]).stdout)
    assert [s.get("session_id") for s in by_project[:-1]] == [SID]
    late = _lines(CliRunner().invoke(_app(), [*args, "--since", "2025-09-01T00:00:00Z"]).stdout)
    assert [s.get("session_id") for s in late[:-1]] == [SIDECHAIN_ID]
    naive = CliRunner().invoke(_app(), [*args, "--since", "2025-09-01T00:00:00"])
    assert naive.exit_code != 0 and "time zone" in str(naive.exception)


def test_harvest_command_every_source_with_path(tmp_path: Path) -> None:
    codex_tree(tmp_path / "codex", "compacted.jsonl", "11111111-2222-3333-4444-555555555555")
    vscode_tree(tmp_path / "ws", "oplog_cancelled.jsonl", "file:///path/to/app")
    copilot_tree(tmp_path / "cp", "subagent_skill.jsonl", "demo")
    for source, path, extra in (("codex", "codex", []), ("copilot-vscode", "ws", []),
                                ("copilot-cli", "cp", ["--include-headless"])):
        result = CliRunner().invoke(_app(), ["harvest", "--source", source, "--path",
                                             str(tmp_path / path), "--json", *extra])
        lines = _lines(result.stdout)
        assert len(lines) == 2 and lines[0]["source"] == source, (source, result.output)


def test_worker_processes_give_the_same_archive(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.harvest import parallel
    names = [DAG, SIDECHAIN, "bugfix_snapshots.jsonl"]
    root = claude_tree(tmp_path / "claude", *names)
    folder = root / "projects" / "-path-to-project"
    for i in range(3):  # more files than the parallel threshold below
        for name in names:
            shutil.copy(folder / name, folder / f"copy{i}-{name}")
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 4)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    stats = HarvestStats()
    pooled = list(harvest(Archive(archive_path()), [make_source("claude-code", root,
                                                                 stats=stats)]))
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    alone = list(harvest(Archive(tmp_path / "other.sqlite3"),
                         [make_source("claude-code", root)]))
    assert [s.turns for s in pooled] == [s.turns for s in alone] and len(pooled) == 12
    assert stats.files_read == 12 and stats.sessions["claude-code"] == 12
