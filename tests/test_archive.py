from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.migrations import migrations
from skillopt_sleep.errors import StoreError


def _open(path: str, start: multiprocessing.synchronize.Barrier) -> None:
    start.wait()
    Archive(Path(path)).close()


def test_processes_opening_a_fresh_archive_at_once_all_succeed(tmp_path: Path):
    for round_ in range(30):
        path = tmp_path / f"a{round_}.sqlite3"
        start = multiprocessing.Barrier(4)
        procs = [multiprocessing.Process(target=_open, args=(str(path), start)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0, 0, 0], f"round {round_}"
        archive = Archive(path)
        numbers = [r[0] for r in archive.conn.execute("SELECT number FROM schema_version")]
        assert numbers == [n for n, _, _ in migrations()]
        archive.close()


def test_a_corrupt_archive_is_a_clear_error_not_a_silent_reset(tmp_path: Path):
    path = tmp_path / "archive.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=r"corrupt|cannot be opened"):
        Archive(path)
    assert path.read_bytes().startswith(b"this is not a database")


def test_queue_copy_left_by_a_dead_drain_is_taken_next_time(tmp_path: Path):
    import json

    from skillopt_sleep import paths
    from skillopt_sleep.archive.ingest import drain_queue

    queue = paths.queue_file(tmp_path)
    queue.parent.mkdir(parents=True)
    dead = multiprocessing.Process(target=int)
    dead.start()
    dead.join()
    orphan = queue.with_suffix(f".{dead.pid}.taking")
    orphan.write_text(json.dumps({"session_id": "a", "transcript_path": "/x"}) + "\n")
    queue.write_text(json.dumps({"session_id": "b", "transcript_path": "/y"}) + "\nnot json\n")
    entries = drain_queue(tmp_path)
    assert [e.get("session_id") for e in entries] == ["a", "b", None]
    assert entries[-1] == {"bad": "not json"}
    assert not list(queue.parent.iterdir())
