"""The next run ``status`` shows without a daemon is apscheduler's answer, kept until it has
passed (``daemon.next_run``): a second ``status`` does not import apscheduler."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.triggers.cron import CronTrigger

from skillopt_sleep.daemon import next_run as nr

REPO = Path(__file__).resolve().parents[1]


def _apscheduler(hour: int, minute: int, now: datetime) -> str:
    trigger = CronTrigger(hour=hour, minute=minute)
    fire = trigger.get_next_fire_time(None, now.astimezone(trigger.timezone))
    assert fire is not None
    return fire.isoformat()


def test_the_answer_is_apschedulers_and_is_kept_until_it_passes(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[datetime] = []
    real = nr._ask

    def counted(hour: int, minute: int, now: datetime) -> str | None:
        asked.append(now)
        return real(hour, minute, now)

    monkeypatch.setattr(nr, "_ask", counted)
    now = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    first = nr.next_run(4, 30, now)
    assert first == _apscheduler(4, 30, now) and len(asked) == 1
    later = now + timedelta(hours=6)  # still before the fire time
    assert nr.next_run(4, 30, later) == first and len(asked) == 1
    passed = datetime.fromisoformat(first) + timedelta(minutes=1)
    assert nr.next_run(4, 30, passed) == _apscheduler(4, 30, passed) and len(asked) == 2
    assert nr.next_run(5, 0, passed) == _apscheduler(5, 0, passed) and len(asked) == 3
    earlier = passed - timedelta(days=2)  # a clock set back: asked again
    assert nr.next_run(4, 30, earlier) == _apscheduler(4, 30, earlier) and len(asked) == 4


def test_a_damaged_file_is_asked_again(isolated_home: Path) -> None:
    now = datetime(2026, 10, 24, 23, 0, tzinfo=UTC)
    folder = isolated_home / "state" / "daemon"
    folder.mkdir(parents=True)
    for text in ("{", json.dumps({f"04:30 {nr._zone()}": ["x", "y"]}), "[]"):
        (folder / nr.FILE).write_text(text, encoding="utf-8")
        assert nr.next_run(4, 30, now) == _apscheduler(4, 30, now)


def test_a_second_status_does_not_import_apscheduler(isolated_home: Path,
                                                     tmp_path: Path) -> None:
    project = tmp_path / "enrolled"
    project.mkdir()
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[projects."{project}"]\nhour = 4\nminute = 30\n', encoding="utf-8")
    probe = ("import sys, runpy\nsys.argv = ['skillopt-sleep', 'status', '--json']\n"
             "try:\n    runpy.run_module('skillopt_sleep', run_name='__main__')\n"
             "finally:\n    print('APS', 'apscheduler' in sys.modules, file=sys.stderr)\n")
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO))
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, timeout=120, check=True) for _ in range(2)]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["APS True", "APS False"]
    rows = [[json.loads(line) for line in r.stdout.splitlines()] for r in runs]
    (first,), (second,) = ([x for x in r if x.get("kind") == "enrolled"] for r in rows)
    assert first["next_run"] == second["next_run"] is not None
