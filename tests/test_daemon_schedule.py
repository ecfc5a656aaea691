"""The nightly schedule: catch-up, coalescing after sleep, conditions (new sessions, AC
power, machine idle), adoption policy.

APScheduler runs for real; only its clock is replaced (a fake ``datetime`` in the two
modules that read the time), so "the laptop slept three nights" takes milliseconds.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import apscheduler.executors.base
import apscheduler.schedulers.base
import pytest

from skillopt_sleep import config
from skillopt_sleep.config import Settings
from skillopt_sleep.daemon.conditions import load_per_cpu
from skillopt_sleep.daemon.service import (
    IDLE_RETRIES,
    IDLE_RETRY,
    MISFIRE_GRACE,
    Enrolled,
    NightReport,
    Service,
    enrolled_projects,
    pipeline_job,
)
from skillopt_sleep.daemon.state import DaemonState
from skillopt_sleep.errors import LockHeld

START = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(START)

    class FakeDatetime(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return fake.now.astimezone(tz) if tz else fake.now.replace(tzinfo=None)

    monkeypatch.setattr(apscheduler.schedulers.base, "datetime", FakeDatetime)
    monkeypatch.setattr(apscheduler.executors.base, "datetime", FakeDatetime)
    return fake


class Nights:
    """A night job that records its calls; ``fail`` makes it raise."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.calls: list[tuple[str, str, datetime]] = []
        self.done = threading.Event()
        self.fail: BaseException | None = None

    def __call__(self, project: Path, settings: Settings, adopt: str) -> NightReport:
        self.calls.append((str(project), adopt, self.clock.now))
        self.done.set()
        if self.fail:
            raise self.fail
        return NightReport(True, {"nights": [{"skill": "demo", "accepted": 1}]})

    def wait(self, count: int, settle: float = 0.3) -> None:
        deadline = time.monotonic() + 5
        while len(self.calls) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(settle)  # long enough for a second, wrong call to show up


def _project(key: str = "/path/to/demo", **settings: Any) -> Enrolled:
    return Enrolled(key, Path(key), Settings(**settings), "auto")


def _service(clock: Clock, nights: Nights, tmp_path: Path, *projects: Enrolled,
             **kwargs: Any) -> Service:
    return Service(list(projects) or [_project()], job=nights, clock=clock, timezone=UTC,
                   state=DaemonState(tmp_path / "state.json"), heartbeat=60, **kwargs)


def test_cron_job_is_coalesced_with_a_long_misfire_grace(clock: Clock, tmp_path: Path) -> None:
    service = _service(clock, Nights(clock), tmp_path)
    service.start()
    try:
        job = service.scheduler.get_job("night:/path/to/demo")
        assert job.coalesce is True
        assert job.misfire_grace_time == MISFIRE_GRACE >= 12 * 3600
        assert service.next_runs()["/path/to/demo"] == "2025-01-02T03:17:00+00:00"
    finally:
        service.stop()


def test_nights_missed_while_asleep_run_once_on_wake(clock: Clock, tmp_path: Path) -> None:
    nights = Nights(clock)
    service = _service(clock, nights, tmp_path)
    service.start()
    try:
        nights.wait(0)
        assert nights.calls == []  # enrolled just now: nothing to catch up
        clock.now = datetime(2025, 1, 4, 9, 0, tzinfo=UTC)  # slept through three nights
        assert service.tick() is True
        nights.wait(1)
        assert len(nights.calls) == 1, nights.calls
        assert nights.calls[0][1] == "auto"
        state = service.state.projects["/path/to/demo"]
        assert state.last_success == clock.now
        assert state.last_result["status"] == "ok"
        assert service.next_runs()["/path/to/demo"] == "2025-01-05T03:17:00+00:00"
        assert service.tick(clock.now + timedelta(seconds=60)) is False  # a normal beat
    finally:
        service.stop()


def test_catch_up_on_start_only_for_stale_projects(clock: Clock, tmp_path: Path) -> None:
    state = DaemonState(tmp_path / "state.json")
    state.update("/path/to/stale", first_seen=START - timedelta(days=9),
                 last_success=START - timedelta(hours=30))
    state.update("/path/to/fresh", first_seen=START - timedelta(days=9),
                 last_success=START - timedelta(hours=2))
    nights = Nights(clock)
    service = Service([_project("/path/to/stale"), _project("/path/to/fresh")], job=nights,
                      clock=clock, timezone=UTC, state=state)
    service.start()
    try:
        nights.wait(1)
        assert [c[0] for c in nights.calls] == ["/path/to/stale"]
        assert state.projects["/path/to/stale"].last_result["reason"] == "catch-up"
    finally:
        service.stop()


def test_a_missed_night_and_a_catch_up_together_make_one_night(clock: Clock,
                                                               tmp_path: Path) -> None:
    nights = Nights(clock)
    service = _service(clock, nights, tmp_path)
    first = service.run_night("/path/to/demo", "scheduled")
    second = service.run_night("/path/to/demo", "catch-up")
    assert first["status"] == "ok" and second["status"] == "duplicate"
    assert len(nights.calls) == 1
    assert service.state.projects["/path/to/demo"].last_result["status"] == "ok"


def test_conditions_skip_a_night_and_say_why(clock: Clock, tmp_path: Path) -> None:
    nights = Nights(clock)
    few = _service(clock, nights, tmp_path, _project(min_new_sessions=3),
                   count_new=lambda project, since: 1)
    assert "1 new session(s)" in few.run_night("/path/to/demo")["why"]
    battery = _service(clock, nights, tmp_path / "b", _project(require_ac_power=True),
                       on_ac_power=lambda: False)
    assert "battery" in battery.run_night("/path/to/demo")["why"]
    unknown = _service(clock, nights, tmp_path / "c", _project(require_ac_power=True),
                       on_ac_power=lambda: None)  # no sensor: not held back
    assert unknown.run_night("/path/to/demo")["status"] == "ok"
    assert len(nights.calls) == 1


def test_failed_and_locked_nights_are_recorded_not_raised(clock: Clock,
                                                          tmp_path: Path) -> None:
    nights = Nights(clock)
    service = _service(clock, nights, tmp_path)
    nights.fail = RuntimeError("target model unreachable")
    result = service.run_night("/path/to/demo")
    assert result["status"] == "failed" and "unreachable" in result["why"]
    assert service.state.projects["/path/to/demo"].last_success is None
    clock.now += timedelta(hours=2)  # past the retry pause
    nights.fail = LockHeld("another night is running")
    assert service.run_night("/path/to/demo")["status"] == "skipped"
    reloaded = DaemonState(tmp_path / "state.json").projects["/path/to/demo"]
    assert reloaded.last_result["status"] == "skipped"


def test_enrolled_projects_resolve_settings_and_adopt_policy(tmp_path: Path) -> None:
    plain, reviewed, by_file = (tmp_path / n for n in ("plain", "reviewed", "by-file"))
    for folder in (plain, reviewed, by_file):
        folder.mkdir()
    (by_file / ".skillopt-sleep.toml").write_text('adopt = "review"\nsteps = 5\n')
    config.write_user({"projects": {
        str(plain): {"hour": 1, "minute": 5, "target": "simulated"},
        str(reviewed): {"adopt": "review"},
        str(by_file): {},
    }})
    found = {p.key: p for p in enrolled_projects()}
    assert found[str(plain)].adopt == "auto"  # the daemon's default (DESIGN.md)
    assert (found[str(plain)].settings.hour, found[str(plain)].settings.minute) == (1, 5)
    assert found[str(plain)].settings.target == "simulated"
    assert found[str(reviewed)].adopt == "review"
    assert found[str(by_file)].adopt == "review" and found[str(by_file)].settings.steps == 5
    flagged = {p.key: p for p in enrolled_projects({"hour": 6, "adopt": "review"})}
    assert flagged[str(plain)].settings.hour == 1  # the enrolment beats the daemon's flag
    assert flagged[str(reviewed)].settings.hour == 6
    assert flagged[str(plain)].adopt == "review"


def test_a_busy_machine_holds_the_night_and_it_is_retried_when_idle(clock: Clock,
                                                                    tmp_path: Path) -> None:
    nights = Nights(clock)
    load = [2.0]
    service = _service(clock, nights, tmp_path, max_load=0.5, machine_load=lambda: load[0])
    service.start()
    try:
        held = service.run_night("/path/to/demo", "scheduled")
        assert held["status"] == "skipped" and "load 2.00 per CPU" in held["why"]
        assert held["retry_at"] == (START + IDLE_RETRY).isoformat()
        assert service.scheduler.get_job("idle-retry:/path/to/demo") is not None
        load[0] = 0.1  # the backup finished
        clock.now = START + IDLE_RETRY
        service.scheduler.wakeup()
        nights.wait(1)
        assert len(nights.calls) == 1 and nights.calls[0][2] == START + IDLE_RETRY
        assert service.state.projects["/path/to/demo"].last_result["reason"] == "scheduled"
    finally:
        service.stop()


def test_the_idle_condition_is_off_by_default_and_gives_up_after_three_hours(
        clock: Clock, tmp_path: Path) -> None:
    probed: list[int] = []

    def busy() -> float:
        probed.append(1)
        return 9.0

    nights = Nights(clock)
    assert _service(clock, nights, tmp_path, machine_load=busy).run_night(
        "/path/to/demo")["status"] == "ok"
    assert probed == []  # max_load unset: the probe is never asked
    held = _service(clock, nights, tmp_path / "b", max_load=1.0, machine_load=busy)
    retries = [held.run_night("/path/to/demo")["retry_at"] for _ in range(IDLE_RETRIES + 1)]
    assert all(retries[:IDLE_RETRIES]) and retries[-1] is None  # left to the next night
    unknown = _service(clock, nights, tmp_path / "c", max_load=1.0, machine_load=lambda: None)
    assert unknown.run_night("/path/to/demo")["status"] == "ok"  # cannot tell: not held back
    assert len(nights.calls) == 2


def test_load_probe_is_the_five_minute_load_per_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import psutil

    assert load_per_cpu() is not None  # psutil reads a load average on every platform
    monkeypatch.setattr(psutil, "getloadavg", lambda: (9.0, 6.0, 3.0))
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: 4)
    assert load_per_cpu() == 1.5  # the 5-minute figure, not the 1- or 15-minute one
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None)
    assert load_per_cpu() == 6.0

    def unsupported() -> tuple[float, float, float]:
        raise NotImplementedError

    monkeypatch.setattr(psutil, "getloadavg", unsupported)
    assert load_per_cpu() is None  # cannot tell: never held back for it


def test_a_failed_night_is_logged_with_its_reason_and_tried_again_the_next_night(
        clock: Clock, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    why = "the target model claude-code cannot answer: `claude` is not on PATH; install it"
    failing = {"on": True}

    class Job(Nights):
        def __call__(self, project: Path, settings: Settings, adopt: str) -> NightReport:
            super().__call__(project, settings, adopt)
            if failing["on"]:
                return NightReport(False, {"failed": why, "adopted": {}}, why)
            return NightReport(True, {"adopted": {"demo": 2}})

    nights = Job(clock)
    service = _service(clock, nights, tmp_path)
    with caplog.at_level("INFO", logger="skillopt_sleep.daemon"):
        result = service.run_night("/path/to/demo")
    assert result["status"] == "failed" and result["why"] == why
    assert f"night of /path/to/demo FAILED: {why}; trying again" in caplog.text
    assert service.state.projects["/path/to/demo"].last_success is None
    clock.now += timedelta(days=1)  # the next night: tried again, not skipped as done
    failing["on"] = False
    assert service.run_night("/path/to/demo")["status"] == "ok"
    assert len(nights.calls) == 2


def test_the_daemon_log_labels_failed_and_abstained_skills(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from skillopt_sleep.pipeline import run as pipeline_run
    from skillopt_sleep.records import NightResult

    def night(project: Path | None, **_kw: Any) -> pipeline_run.RunOutcome:
        return pipeline_run.RunOutcome(str(project), "n1", nights=[
            NightResult("n1", "deploy", abstained="only 2 validation tasks (need 6)"),
            NightResult("n1", "review", failed="the target model x cannot answer: y; z")],
            failed="the target model x cannot answer: y; z",
            warnings=["deploy: 3 of 9 target calls failed"])

    monkeypatch.setattr(pipeline_run, "run_once", night)
    with caplog.at_level("INFO", logger="skillopt_sleep.daemon"):
        report = pipeline_job(Path("/path/to/demo"), Settings(), "auto")
    assert not report.ok and report.why == "the target model x cannot answer: y; z"
    assert "skill deploy abstained: only 2 validation tasks (need 6)" in caplog.text
    assert "skill review FAILED: the target model x cannot answer" in caplog.text
    assert "deploy: 3 of 9 target calls failed" in caplog.text
