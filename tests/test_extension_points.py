"""ARCHITECTURE.md's recipes, followed: a backend, a source and a judge each take one module
and one table row, and the whole engine (specs, config, CLI help, errors) knows them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep import JUDGES, MODELS, SOURCES, ConfigError, UnknownModelError, build_llm
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.ingest import harvest
from skillopt_sleep.cli.app import app
from skillopt_sleep.config import load
from skillopt_sleep.harvest.base import HarvestStats, SourceBase
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.judges import build_judge
from skillopt_sleep.records import JudgeSpec, Score, Session, Task, ToolCall, Turn
from skillopt_sleep.tables import Table
from tests.fakes.echo_backend import EchoLLM


@pytest.fixture
def echo() -> Iterator[None]:
    MODELS.add("echo", "tests.fakes.echo_backend:BACKEND", "answers with the prompt's last line",
               usage="echo[:PREFIX]")
    yield
    MODELS.remove("echo")


def test_a_registered_backend_is_built_from_its_spec(echo: None) -> None:
    llm = build_llm("echo:>>")
    assert isinstance(llm, EchoLLM) and llm.name == "echo:>>"
    done = llm.complete([{"role": "user", "content": "a\nhello"}], max_tokens=10,
                        temperature=0.0, seed=0)
    assert done.text == ">>hello"
    assert isinstance(build_llm("echo"), EchoLLM)  # [:PREFIX] is optional


def test_a_registered_backend_is_listed_in_errors_and_help(echo: None) -> None:
    with pytest.raises(UnknownModelError) as info:
        build_llm("nope:x")
    assert "echo[:PREFIX]" in str(info.value) and "answers with the prompt" in str(info.value)
    result = CliRunner().invoke(app, ["prove", "--target", "nope"])
    assert isinstance(result.exception, UnknownModelError)
    assert "echo[:PREFIX]" in str(result.exception)


def test_a_removed_backend_is_unknown_again() -> None:
    with pytest.raises(UnknownModelError, match="unknown model backend 'echo'"):
        build_llm("echo")


class ListSource(SourceBase):
    """A source of one format: sessions written one JSON object per file."""

    name = "jsonfiles"

    def __init__(self, root: Path | None = None, *, include_headless: bool = False,
                 stats: HarvestStats | None = None):
        self.root = root or Path(".")
        self.include_headless = include_headless
        self.stats = stats or HarvestStats()

    def discover(self) -> list[Path]:
        return sorted(self.root.glob("*.json"))

    def sessions_from(self, path: Path) -> Iterator[Session]:
        data = json.loads(path.read_text())
        turn = Turn(id=f"jsonfiles:{data['id']}:0", index=0, request=data["ask"],
                    final_answer="ok")
        self.stats.sessions[self.name] += 1
        yield Session(source=self.name, session_id=data["id"], project=data["project"],
                      turns=[turn], path=str(path))


@pytest.fixture
def jsonfiles() -> Iterator[None]:
    SOURCES.add("jsonfiles", ListSource, "sessions as JSON files")
    yield
    SOURCES.remove("jsonfiles")


def test_a_registered_source_is_harvested_and_accepted_by_config(
    jsonfiles: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s1.json").write_text(json.dumps(
        {"id": "s1", "project": str(tmp_path), "ask": "add a changelog entry"}))
    archive = Archive(tmp_path / "a.sqlite3")
    try:
        got = list(harvest(archive, [make_source("jsonfiles", tmp_path)]))
    finally:
        archive.close()
    assert [s.session_id for s in got] == ["s1"]
    monkeypatch.setenv("SKILLOPT_SLEEP_SOURCES", "jsonfiles,codex")
    assert load(project=tmp_path).sources == ("jsonfiles", "codex")
    monkeypatch.setenv("SKILLOPT_SLEEP_SOURCES", "nosuch")
    with pytest.raises(ConfigError, match="jsonfiles"):
        load(project=tmp_path)


class LengthJudge:
    def score(self, task: Task, response: str, tool_calls: tuple[ToolCall, ...] = ()) -> Score:
        short = len(response) <= 20
        return Score(hard=float(short), soft=float(short), rationale="short" if short else "long")


def make_length(spec: JudgeSpec, grader: object = None) -> LengthJudge:
    return LengthJudge()


def test_a_registered_judge_scores_tasks_of_its_kind() -> None:
    JUDGES.add("length", make_length, "short answers pass")
    try:
        judge = build_judge(JudgeSpec(kind="length"))
        task = Task(id="t", family_id="f", intent="say hi", judge=JudgeSpec(kind="length"))
        assert judge.score(task, "hi").hard == 1.0
        assert judge.score(task, "x" * 40).hard == 0.0
    finally:
        JUDGES.remove("length")


def test_plugins_are_read_from_their_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    point = EntryPoint("echo", "tests.fakes.echo_backend:BACKEND", "skillopt_sleep.demo")
    monkeypatch.setattr("skillopt_sleep.tables.entry_points",
                        lambda group: [point] if group == "skillopt_sleep.demo" else [])
    table = Table("demo thing", "demo", [])
    assert table.names() == ("echo",)
    assert table.get("echo").priced is False
