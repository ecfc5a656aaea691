"""A night whose model cannot answer, end to end: ``run`` exits 4 with one line, and status,
report (HTML, JSON), the plot and the daemon all say "failed" — never a score of 0.

The target is the real ``anthropic`` SDK against the fake server on 127.0.0.1, whose endpoint
passes the pre-flight probe and then fails the night's calls (a closed port or a missing
``claude`` is refused earlier, by the pre-flight: tests/test_preflight.py); the persona's
transcripts are harvested and mined for real.
"""

from __future__ import annotations

import json
import logging
import re
import time
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from skillopt_sleep import config
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.daemon.projects import pipeline_job
from skillopt_sleep.models import sdk
from skillopt_sleep.models.retry import FAST
from skillopt_sleep.pipeline.run import run_once
from skillopt_sleep.pipeline.status import FAILED_IN_A_ROW
from skillopt_sleep.records import NightResult, utcnow
from tests.fakes.llm_server import FakeLLMServer, Status, Text
from tests.test_mcp_server import _session, _text
from tests.test_pipeline import cli, lines, world  # noqa: F401  (world is a fixture)

TARGET = "anthropic:claude-haiku-4-5"


def use_target(world: dict, spec: str = TARGET) -> None:  # noqa: F811
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text().replace('target = "simulated"', f'target = "{spec}"'))
    world["env"]["ANTHROPIC_API_KEY"] = "sk-ant-test"


def state(world: dict) -> Path:  # noqa: F811
    return world["state"] / "state"


def svg_of(html: str) -> str:
    return html[html.index("<svg"):html.index("</svg>")]


def test_a_wrong_endpoint_fails_the_night_and_every_face_says_so(world: dict) -> None:  # noqa: F811
    good = json.loads(cli(world, "run", "--json").stdout)  # a real night first, for the plot
    use_target(world)
    started = time.monotonic()
    # The pre-flight's probe of the endpoint succeeds; every model call then answers 404
    # (a proxy that lost its route): the night must stop, not score empty answers.
    with FakeLLMServer(default=Status(404)) as server:
        url = server.url
        done = cli(world, "run", "--json", "--adopt", "auto", "--base-url", url, check=False)
    assert done.returncode == 4, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith(f"skillopt-sleep: night failed: the target model {TARGET} cannot "
                           f"answer: {url}/v1/messages answered 404 Not Found"), line
    outcome = json.loads(done.stdout)
    assert outcome["failed"] in line and not outcome["ok"] and not outcome["adopted"]
    assert not outcome["staged"] and Path(outcome["report"]).is_file()  # a report, no proposal
    assert not (Path(outcome["report"]).parent / "skills").exists()
    (skill,) = outcome["skills"]
    assert skill["failed"] and skill["failures_by_role"]["target"]["failed"] >= 1
    assert skill["baseline_val"] is None and skill["after_val"] is None  # never a 0
    assert not any(r.exists() for r in world["roots"])  # auto adopt wrote nothing
    assert time.monotonic() - started < 120

    rows = lines(cli(world, "status", "--json"))
    night = next(r for r in rows if r.get("night_id") == outcome["night_id"])
    assert night["status"] == "failed" and night["failed"] == outcome["failed"]
    assert night["baseline_val"] is None and night["after_val"] is None
    assert rows[-1]["summary"]["failed_in_a_row"] == 1 and rows[-1]["summary"]["alerts"] == []
    text = cli(world, "status").stdout
    assert f"night {outcome['night_id']} skillopt-sleep-learned: failed" in text
    assert "ALERT" not in text

    report = json.loads(cli(world, "report", "--json").stdout)
    assert report["night_id"] == outcome["night_id"] and report["status"] == "failed"
    assert report["failed"] == outcome["failed"]
    assert [(s["skill"], s["outcome"]) for s in report["skills"]] == [
        ("skillopt-sleep-learned", "failed")]
    html = Path(report["report"]).read_text(encoding="utf-8")
    assert 'class="callout failed"' in html and "answered 404 Not Found" in html
    assert '<span class="pill fail">failed</span>' in html
    svg = svg_of(html)
    assert f'data-night="{good["night_id"]}"' in svg  # the real night is a point
    assert not re.search(rf'<circle[^>]*data-night="{outcome["night_id"]}"', svg)
    assert re.search(rf'<g class="gap failed" data-night="{outcome["night_id"]}"', svg)
    assert ">failed</text>" in svg and "0.000" not in svg

    adopt = cli(world, "adopt", outcome["night_id"], check=False)
    assert adopt.returncode != 0 and "failed" in adopt.stderr


def test_claude_code_with_no_claude_on_path_fails_in_seconds(world: dict,  # noqa: F811
                                                             tmp_path: Path) -> None:
    cfg = world["project"] / ".skillopt-sleep.toml"  # the defaults: claude-code for both roles
    cfg.write_text(cfg.read_text().replace('target = "simulated"\noptimizer = "simulated"\n', ""))
    (tmp_path / "empty").mkdir()
    world["env"]["PATH"] = str(tmp_path / "empty")
    done = cli(world, "run", check=False)
    # Caught by the pre-flight, before mining: a usage-class error naming CLI and fix.
    assert done.returncode == 2, done.stderr
    assert "target model claude-code: the `claude` CLI is not on PATH; install Claude Code " \
           "(npm install -g @anthropic-ai/claude-code)" in done.stderr
    assert "validation 0.000" not in done.stdout
    archive = Archive(state(world) / "archive.sqlite3")
    try:
        assert archive.nights() == []  # nothing ran, so nothing is recorded as a night
    finally:
        archive.close()


def test_calls_that_start_failing_mid_night_stop_it(world: dict) -> None:  # noqa: F811
    use_target(world)
    with FakeLLMServer([Text("fine")] * 40, default=Status(404)) as server:
        done = cli(world, "run", "--json", "--base-url", server.url, check=False)
        answered = len(server.model_requests())
    assert done.returncode == 4, done.stderr
    outcome = json.loads(done.stdout)
    assert "answered 404 Not Found" in outcome["failed"] and 40 < answered < 60
    (skill,) = outcome["skills"]
    assert skill["failures_by_role"]["target"]["calls"] == answered
    report = json.loads(cli(world, "report", "--json").stdout)
    assert report["status"] == "failed" and report["skills"][0]["failed"]


def test_persistent_500s_stop_the_night_after_five_in_a_row(
        world: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    use_target(world)
    monkeypatch.setattr(sdk, "RetryPolicy", lambda: FAST)  # the waits, not the policy, shortened
    for key, value in world["env"].items():
        monkeypatch.setenv(key, value)
    with FakeLLMServer([Text("fine")] * 20, default=Status(500)) as server:
        settings = config.load(world["project"], flags={"base_url": server.url})
        outcome = run_once(world["project"], settings=settings)
    assert re.search(r"5 calls in a row failed after all their retries \(last: .*500",
                     outcome.failed), outcome.failed
    archive = Archive(state(world) / "archive.sqlite3")
    try:
        ((status, result),) = archive.nights()
    finally:
        archive.close()
    assert status == "failed" and result.failed == outcome.failed


def _failed_row(project: str, night_id: str, hours_ago: int) -> NightResult:
    at = utcnow() - timedelta(hours=hours_ago)
    return NightResult(night_id=night_id, skill="skillopt-sleep-learned", project=project,
                       started_at=at, ended_at=at, failed="the target model x cannot answer: y")


def test_three_failed_nights_in_a_row_lead_the_status(world: dict) -> None:  # noqa: F811
    first = json.loads(cli(world, "run", "--json").stdout)
    archive = Archive(state(world) / "archive.sqlite3")
    try:  # two earlier failed nights, after the good one
        archive.record_night(_failed_row(first["project"], "20990101-000000-00000001", 0), "failed")
        archive.record_night(_failed_row(first["project"], "20990101-000000-00000002", 0), "failed")
    finally:
        archive.close()
    assert "ALERT" not in cli(world, "status").stdout.splitlines()[0]
    use_target(world)
    with FakeLLMServer(default=Status(404)) as server:
        done = cli(world, "run", "--base-url", server.url, check=False)
    assert done.returncode == 4, done.stderr
    text = cli(world, "status").stdout.splitlines()
    assert text[0].startswith(f"ALERT: {FAILED_IN_A_ROW} nights in a row failed for "
                              f"{first['project']}: the target model {TARGET} cannot answer")
    summary = lines(cli(world, "status", "--json"))[-1]["summary"]
    assert summary["failed_in_a_row"] == 3 and "404 Not Found" in summary["alerts"][0]


def test_a_partial_failure_rate_is_a_warning(world: dict) -> None:  # noqa: F811
    use_target(world)
    count = {"n": 0}

    def every_fifth_refused(_request: object) -> Status | Text:
        count["n"] += 1
        return Status(400) if count["n"] % 5 == 0 else Text("fine")

    with FakeLLMServer([every_fifth_refused] * 5000) as server:
        done = cli(world, "run", "--json", "--base-url", server.url)
    outcome = json.loads(done.stdout)
    assert outcome["ok"] and not outcome["failed"]
    (warning,) = outcome["warnings"]
    assert re.fullmatch(r"skillopt-sleep-learned: \d+ of \d+ target calls failed \(2\d%, above "
                        r"10%\): the gate had less evidence than planned", warning), warning
    report = json.loads(cli(world, "report", "--json").stdout)
    assert report["warnings"] == [warning]
    html = Path(report["report"]).read_text(encoding="utf-8")
    assert 'class="callout warn"' in html and "target calls failed" in html
    text = cli(world, "status").stdout
    assert f"  warning: {warning.partition(': ')[2]}" in text


def test_the_daemon_job_reports_a_failed_night_and_adopts_nothing(
        world: dict, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        caplog: pytest.LogCaptureFixture) -> None:
    use_target(world)
    for key, value in world["env"].items():
        monkeypatch.setenv(key, value)
    with FakeLLMServer(default=Status(404)) as server, \
            caplog.at_level(logging.INFO, logger="skillopt_sleep.daemon"):
        settings = config.load(world["project"], flags={"base_url": server.url})
        report = pipeline_job(world["project"], settings, "auto")
    assert not report.ok and report.why.startswith(f"the target model {TARGET} cannot answer")
    assert report.result["adopted"] == {} and not any(r.exists() for r in world["roots"])


def test_mcp_tools_show_the_failed_night(world: dict) -> None:  # noqa: F811
    use_target(world)
    server = FakeLLMServer(default=Status(404)).__enter__()  # closed when the test ends
    cfg = world["project"] / ".skillopt-sleep.toml"
    cfg.write_text(cfg.read_text() + f'base_url = "{server.url}"\n')
    env = {k: world["env"][k] for k in ("PATH", "HOME", "SKILLOPT_SLEEP_HOME",
                                        "CLAUDE_CONFIG_DIR", "CODEX_HOME", "ANTHROPIC_API_KEY")}

    async def body() -> None:
        async with _session(env) as session:
            started = await session.call_tool("sleep_run", {"project": str(world["project"])})
            assert started.structured_content is not None, _text(started)
            job_id = started.structured_content["job_id"]
            info: dict = {}
            for _ in range(600):
                info = (await session.call_tool("sleep_job", {"job_id": job_id}))\
                    .structured_content or {}
                if info["state"] != "running":
                    break
                await anyio.sleep(0.2)
            assert info["state"] == "failed" and info["exit_code"] == 4
            assert info["status"] == "night_failed" and "404 Not Found" in info["why"]
            assert info["result"]["failed"] == info["why"]
            status = (await session.call_tool("sleep_status", {})).structured_content
            assert status is not None
            (night,) = [i for i in status["items"] if i.get("kind") == "night"]
            assert night["status"] == "failed" and "404 Not Found" in night["failed"]
            report = (await session.call_tool("sleep_report", {})).structured_content
            assert report is not None and report["status"] == "failed"
            assert [(s["skill"], s["outcome"]) for s in report["skills"]] == [
                ("skillopt-sleep-learned", "failed")]

    try:
        anyio.run(body)
    finally:
        server.__exit__(None, None, None)
