"""The background service: one nightly job per enrolled project, and the session watcher.

The daemon adds scheduling and watching, never logic of its own: a night is the
pipeline's ``run_once``, called with the project's resolved settings and its adoption
policy (``auto`` unless the enrolment or the project file says ``review``).

Missed nights. Each project has a cron trigger with ``coalesce=True`` and a misfire grace
of most of a day, so nights missed while the laptop slept run once on wake, not once per
missed night. APScheduler measures its waits on a clock that stops during suspend, so a
heartbeat (``tick``) notices a jump of the wall clock, wakes the scheduler and runs the
catch-up: a project whose last successful night is older than 24 h gets a night now.
``run_night`` is the single door every night goes through; it skips a project that
succeeded recently, so a misfire and a catch-up arriving together still make one night.

Sessions are harvested as they end by the SessionEnd queue's watcher (``queue.py``), with
the transcript watcher (``watch.py``) as the fallback; both run on their own executors,
never on the night's.

Everything with a side effect is injectable (the night job, the clock, the scheduler,
the power, load and session-count probes, the watchers) so tests drive it with a fake
clock.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger

from skillopt_sleep.daemon.conditions import ac_power, load_per_cpu, new_sessions_since
from skillopt_sleep.daemon.priority import run_low
from skillopt_sleep.daemon.projects import (
    Enrolled,
    NightJob,
    NightReport,
    enrolled_projects,
    pipeline_job,
)
from skillopt_sleep.daemon.queue import QueueWatcher
from skillopt_sleep.daemon.state import DaemonState, write_status
from skillopt_sleep.daemon.watch import SessionWatcher
from skillopt_sleep.errors import LockHeld

__all__ = ["CATCH_UP_AFTER", "MISFIRE_GRACE", "Enrolled", "NightJob", "NightReport",
           "Service", "enrolled_projects", "pipeline_job"]

log = logging.getLogger("skillopt_sleep.daemon")

MISFIRE_GRACE = int(timedelta(hours=23).total_seconds())
CATCH_UP_AFTER = timedelta(hours=24)
RECENT_SUCCESS = timedelta(hours=20)
"""A night this recent makes another one pointless: it is how a misfire and a catch-up
arriving together (or a restart loop) still give one night."""
RETRY_AFTER_FAILURE = timedelta(hours=1)
IDLE_RETRY = timedelta(minutes=15)
IDLE_RETRIES = 12
"""A night put off because the machine is busy is tried again every 15 minutes for up to
3 hours, then left to the next night."""


def _default_scheduler(timezone: tzinfo | None) -> BaseScheduler:
    executors = {"night": ThreadPoolExecutor(1), "watch": ThreadPoolExecutor(1),
                 "default": ThreadPoolExecutor(1)}
    kwargs: dict[str, Any] = {"executors": executors}
    if timezone is not None:
        kwargs["timezone"] = timezone
    return BackgroundScheduler(**kwargs)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Service:
    """The scheduler, the nights and the watcher of one daemon process."""

    def __init__(self, projects: list[Enrolled], *, job: NightJob = pipeline_job,
                 clock: Callable[[], datetime] = _utcnow,
                 scheduler: BaseScheduler | None = None, timezone: tzinfo | None = None,
                 watcher: SessionWatcher | None = None, queue: QueueWatcher | None = None,
                 state: DaemonState | None = None,
                 on_ac_power: Callable[[], bool | None] = ac_power,
                 count_new: Callable[[str, datetime | None], int] = new_sessions_since,
                 max_load: float | None = None,
                 machine_load: Callable[[], float | None] = load_per_cpu,
                 heartbeat: float = 60.0):
        self.projects = {p.key: p for p in projects}
        self.job = job
        self.clock = clock
        self.scheduler = scheduler or _default_scheduler(timezone)
        self.watcher = watcher
        self.queue = queue
        self.state = state or DaemonState()
        self.on_ac_power = on_ac_power
        self.count_new = count_new
        self.max_load = max_load
        """Hold a night while the load per CPU is above this (None: never held)."""
        self.machine_load = machine_load
        self._idle_retries: dict[str, int] = {}
        self.heartbeat = heartbeat
        self.running: str | None = None
        self.started_at: datetime | None = None
        self._last_tick: datetime | None = None
        self._night_lock = threading.Lock()

    # --- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        now = self.clock()
        self.started_at = self._last_tick = now
        for project in self.projects.values():
            self.state.get(project.key, now)
            self.scheduler.add_job(
                self.run_night, CronTrigger(hour=project.settings.hour,
                                            minute=project.settings.minute,
                                            timezone=self.scheduler.timezone),
                args=[project.key, "scheduled"], id=f"night:{project.key}",
                name=f"night {project.key}", executor="night", coalesce=True,
                misfire_grace_time=MISFIRE_GRACE, max_instances=1, replace_existing=True)
        if self.watcher is not None:
            self.watcher.start()
            every = max(1.0, self.watcher.quiet / 4)
            self.scheduler.add_job(self.watcher.flush, "interval", seconds=every,
                                   id="watch:flush", executor="watch", coalesce=True,
                                   max_instances=1, misfire_grace_time=None)
            self.scheduler.add_job(self.refresh_watches, "interval", hours=1,
                                   id="watch:refresh", executor="watch", coalesce=True,
                                   max_instances=1, misfire_grace_time=None)
        if self.queue is not None:
            self._start_queue(self.queue)
        self.scheduler.start()
        log.info("daemon started: %d project(s) enrolled", len(self.projects))
        self.catch_up(now)
        self.publish()

    def stop(self, wait: bool = True) -> None:
        """Stop scheduling, stop watching, harvest what the watcher still holds, then
        wait for a night in progress (the pipeline checkpoints its own steps)."""
        if self.queue is not None:
            self.queue.stop()
            self.queue.drain()
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher.flush(now=float("inf"))
        if self.scheduler.running:
            self.scheduler.shutdown(wait=wait)
        log.info("daemon stopped")

    def _start_queue(self, queue: QueueWatcher) -> None:
        # Its own single thread: a long fallback harvest on "watch" must not delay it, and
        # two drains of one process must not overlap (max_instances=2 queues the second).
        self.scheduler.add_executor(ThreadPoolExecutor(1), "queue")
        queue.arm = self._arm_queue
        queue.busy = lambda: self.running is not None
        queue.start()

    def _arm_queue(self, delay: float) -> None:
        assert self.queue is not None
        self.scheduler.add_job(self._drain_queue,
                               DateTrigger(run_date=self.clock() + timedelta(seconds=delay)),
                               id="queue:drain", executor="queue", replace_existing=True,
                               max_instances=2, misfire_grace_time=None)

    def _drain_queue(self) -> None:
        if self.queue is None:
            return
        before = self._queue_counts()
        self.queue.drain()
        if self._queue_counts() != before:  # failures and skips show in the status too
            self.publish()

    def _mark_running(self, key: str | None) -> None:
        """Under the queue's lock, so no queue drain is half done when a night starts."""
        if self.queue is None:
            self.running = key
            return
        with self.queue.lock:
            self.running = key
        if key is None:
            self.queue.resume()

    def refresh_watches(self) -> None:
        """Pick up transcript folders created since the start (an agent installed later)."""
        if self.watcher is None:
            return
        from skillopt_sleep.daemon.watch import watch_dirs

        wanted = {(s.name, d, r) for s in self.watcher.sources for d, r in watch_dirs(s)}
        if wanted != set(self.watcher.watched):
            self.watcher.start()
            self.publish()

    # --- time -------------------------------------------------------------------------

    def tick(self, now: datetime | None = None) -> bool:
        """The heartbeat. Returns True when the wall clock jumped (the machine slept):
        then the scheduler is woken to fire what it missed, and stale projects catch up."""
        now = now or self.clock()
        last, self._last_tick = self._last_tick, now
        if last is None or now - last <= timedelta(seconds=3 * self.heartbeat):
            return False
        log.info("woke after %s without a heartbeat", now - last)
        self.scheduler.wakeup()
        self.catch_up(now)
        self.publish()
        return True

    def catch_up(self, now: datetime) -> list[str]:
        """Queue a night for each project with no success in the last 24 h."""
        stale = []
        for key in self.projects:
            project = self.state.get(key, now)
            since = project.last_success or project.first_seen or now
            if now - since >= CATCH_UP_AFTER:
                stale.append(key)
                self.scheduler.add_job(self.run_night, DateTrigger(run_date=now),
                                       args=[key, "catch-up"],
                                       id=f"catch-up:{key}", executor="night",
                                       replace_existing=True, misfire_grace_time=None)
        if stale:
            log.info("catching up: %s", ", ".join(stale))
        return stale

    # --- one night --------------------------------------------------------------------

    def run_night(self, key: str, reason: str = "scheduled") -> dict[str, Any]:
        """Run (or decline) one night of ``key``; returns the recorded result. Never raises."""
        with self._night_lock:
            now = self.clock()
            project = self.projects[key]
            duplicate = self._duplicate(project.key, now)
            if duplicate:  # not recorded: the night it duplicates is the one to report
                log.info("night of %s (%s) not needed: %s", key, reason, duplicate)
                return {"at": now.isoformat(), "reason": reason, "status": "duplicate",
                        "why": duplicate}
            skip = self._skip_reason(project, now)
            busy = "" if skip else self._busy_reason()
            if skip or busy:
                return self._skip(key, now, reason, skip, busy)
            self._idle_retries.pop(key, None)
            self.state.update(key, last_attempt=now)
            self._mark_running(key)
            try:
                result = self._execute(project, now, reason)
            finally:
                self._mark_running(None)
            self.publish()
            return result

    def _skip(self, key: str, now: datetime, reason: str, skip: str,
              busy: str) -> dict[str, Any]:
        result: dict[str, Any] = {"at": now.isoformat(), "reason": reason, "status": "skipped",
                  "why": skip or busy}
        if busy:
            retry = self._retry_when_idle(key, now, reason)
            result["retry_at"] = retry.isoformat() if retry else None
        log.info("night of %s skipped: %s", key, skip or busy)
        self.state.update(key, last_result=result)
        return result

    def _busy_reason(self) -> str:
        if self.max_load is None:
            return ""
        load = self.machine_load()
        if load is None or load <= self.max_load:  # unknown load does not hold a night back
            return ""
        return f"machine busy: load {load:.2f} per CPU, above max_load = {self.max_load:g}"

    def _retry_when_idle(self, key: str, now: datetime, reason: str) -> datetime | None:
        tries = self._idle_retries.get(key, 0)
        if tries >= IDLE_RETRIES:
            self._idle_retries.pop(key, None)
            log.info("night of %s left to the next one: busy for %d tries", key, tries)
            return None
        self._idle_retries[key] = tries + 1
        when = now + IDLE_RETRY
        self.scheduler.add_job(self.run_night, DateTrigger(run_date=when), args=[key, reason],
                               id=f"idle-retry:{key}", executor="night",
                               replace_existing=True, misfire_grace_time=None)
        return when

    def _execute(self, project: Enrolled, now: datetime, reason: str) -> dict[str, Any]:
        log.info("night of %s starts (%s, adopt=%s)", project.key, reason, project.adopt)
        base: dict[str, Any] = {"at": now.isoformat(), "reason": reason,
                                "adopt": project.adopt}
        try:
            report = run_low(self.job, project.path, project.settings, project.adopt)
        except LockHeld as exc:
            result = {**base, "status": "skipped", "why": str(exc)}
        except Exception as exc:  # a failed night is recorded; the daemon keeps serving
            log.exception("night of %s failed", project.key)
            result = {**base, "status": "failed", "why": f"{type(exc).__name__}: {exc}"}
        else:
            result = {**base, "status": "ok" if report.ok else "failed",
                      "result": report.result, "ended": self.clock().isoformat()}
            if report.ok:
                self.state.update(project.key, last_success=now, last_result=result)
                log.info("night of %s done", project.key)
                return result
            result["why"] = report.why or "not ok"
        # Not a success: the cron trigger (or a catch-up on wake) tries again the next night.
        self.state.update(project.key, last_result=result)
        if result["status"] == "failed":
            log.error("night of %s FAILED: %s; trying again at the next scheduled night",
                      project.key, result.get("why") or "not ok")
        else:
            log.warning("night of %s: %s", project.key, result.get("why") or "not ok")
        return result

    def _duplicate(self, key: str, now: datetime) -> str:
        state = self.state.get(key, now)
        if state.last_success and now - state.last_success < RECENT_SUCCESS:
            return f"a night already succeeded at {state.last_success.isoformat()}"
        if state.last_attempt and now - state.last_attempt < RETRY_AFTER_FAILURE:
            return f"a night was attempted at {state.last_attempt.isoformat()}"
        return ""

    def _skip_reason(self, project: Enrolled, now: datetime) -> str:
        state = self.state.get(project.key, now)
        settings = project.settings
        if settings.require_ac_power and self.on_ac_power() is False:
            return "on battery (require_ac_power)"
        if settings.min_new_sessions > 0:
            fresh = self.count_new(project.key, state.last_success)
            if fresh < settings.min_new_sessions:
                return f"{fresh} new session(s), fewer than min_new_sessions = " \
                       f"{settings.min_new_sessions}"
        return ""

    # --- reporting --------------------------------------------------------------------

    def next_runs(self) -> dict[str, str | None]:
        runs: dict[str, str | None] = {}
        for key in self.projects:
            job = self.scheduler.get_job(f"night:{key}")
            when = getattr(job, "next_run_time", None) if job else None
            runs[key] = when.isoformat() if when else None
        return runs

    def snapshot(self) -> dict[str, Any]:
        from skillopt_sleep.daemon.conditions import heavy_modules

        watched = self.watcher.watched if self.watcher else []
        return {
            "pid": os.getpid(),
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "updated_at": self.clock().isoformat(),
            "timezone": str(self.scheduler.timezone),
            "next_runs": self.next_runs(),
            "running": self.running,
            "watched": [{"source": s, "path": str(d), "recursive": r} for s, d, r in watched],
            "harvested_files": self.watcher.harvested_files if self.watcher else 0,
            "queue": self._queue_counts(),
            "heavy_modules": heavy_modules(),
        }

    def _queue_counts(self) -> dict[str, Any] | None:
        if self.queue is None:
            return None
        return {"path": str(self.queue.path), "entries": self.queue.drained_entries,
                "sessions": self.queue.harvested_sessions, "skipped": self.queue.skipped,
                "failures": self.queue.failures}

    def publish(self) -> None:
        try:
            write_status(self.snapshot())
        except OSError as exc:
            log.warning("cannot write the status file: %s", exc)
