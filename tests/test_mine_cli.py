"""The mine, tasks and recall commands, run as the user runs them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import MiningStore
from skillopt_sleep.records import Session, Turn


def _run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"SKILLOPT_SLEEP_HOME": str(home), "HOME": str(home / "user"),
                        "CLAUDE_CONFIG_DIR": str(home / "user" / ".claude")}
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def _lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_mine_requests_file(tmp_path: Path, isolated_home: Path) -> None:
    rows = [
        {"id": "1", "session_id": "a", "project": "/p", "text": "run the unit tests"},
        {"id": "2", "session_id": "b", "project": "/p", "text": "run the unit tests now",
         "signal": "tool_error"},
        {"id": "3", "session_id": "c", "project": "/p", "text": "write the unit tests"},
        {"id": "4", "session_id": "d", "project": "/p", "text": "write the unit tests now"},
    ]
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n")
    first = _run("mine", "--requests", str(path), "--embedder", "hashing", "--json",
                 home=isolated_home)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert sorted(sorted(f["members"]) for f in out["families"]) == [["1", "2"], ["3", "4"]]
    assert {f["representative"] for f in out["families"]} <= {r["text"] for r in rows}
    assert all(f["family_id"].startswith("fam-") and f["split"] for f in out["families"])
    assert out["summary"]["bad_lines"] == 1 and "requests.jsonl:5" in first.stderr
    again = json.loads(_run("mine", "--requests", str(path), "--embedder", "hashing", "--json",
                            home=isolated_home).stdout)
    assert [f["family_id"] for f in again["families"]] == [f["family_id"] for f in out["families"]]
    # A preview: the families are not stored, so nothing embedded was either.
    assert again["summary"]["preview"] and again["summary"]["embedded"] > 0
    archive = Archive(paths.archive_path())
    try:
        assert MiningStore(archive).families() == []
    finally:
        archive.close()


def test_mine_state_keeps_its_own_archive_never_the_nights(tmp_path: Path,
                                                            isolated_home: Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps({"id": str(i), "session_id": f"s{i}", "project": "/p",
                                          "text": "run the unit tests"}) for i in range(3)))
    kept = tmp_path / "kept"
    args = ("mine", "--requests", str(path), "--embedder", "hashing", "--json", "--state",
            str(kept))
    first = json.loads(_run(*args, home=isolated_home).stdout)["summary"]
    again = json.loads(_run(*args, home=isolated_home).stdout)["summary"]
    assert not first["preview"] and first["embedded"] > 0 and again["embedded"] == 0
    assert (kept / "archive.sqlite3").is_file() and not paths.archive_path().exists()
    refused = _run("mine", "--requests", str(path), "--state", str(isolated_home / "state"),
                   home=isolated_home)
    assert refused.returncode == 2 and "the state the nights read" in refused.stderr


def test_mine_rejects_bad_flags(tmp_path: Path, isolated_home: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("")
    bad = _run("mine", "--requests", str(path), "--split-ratios", "2:1", home=isolated_home)
    assert bad.returncode == 2 and "2:1:7" in bad.stderr
    missing = _run("mine", "--requests", str(tmp_path / "nope.jsonl"), home=isolated_home)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def _archive_sessions(home: Path) -> None:
    from skillopt_sleep.archive.sessions import save_sessions

    when = datetime(2025, 1, 2, tzinfo=UTC)
    sessions = []
    for i in range(3):
        turns = [Turn(id=f"claude-code:s{i}:0", index=0, request="run the unit tests please",
                      reaction="correction", final_answer="ran pytest"),
                 Turn(id=f"claude-code:s{i}:1", index=1, request="no, use pytest -q")]
        sessions.append(Session(source="claude-code", session_id=f"s{i}", project="/p",
                                started_at=when, ended_at=when, turns=turns))
    archive = Archive(paths.archive_path())
    save_sessions(archive, sessions)
    archive.close()


def _store_tasks_as_a_night_does(ratios: tuple[int, int, int]) -> None:
    from skillopt_sleep.archive.sessions import load_sessions
    from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.requests import requests_from_sessions

    archive = Archive(paths.archive_path())
    try:
        requests = list(requests_from_sessions(load_sessions(archive)))
        Catalog(archive, make_embedder("hashing"),
                settings=CatalogSettings(ratios=ratios)).refresh(requests)
    finally:
        archive.close()


def _dump(home: Path) -> tuple[list[str], dict[str, bytes]]:
    """The archive's rows and the index's files: what the next night starts from."""
    conn = sqlite3.connect(paths.archive_path())
    try:
        rows = list(conn.iterdump())
    finally:
        conn.close()
    index = home / "state" / "index"
    files = {str(f.relative_to(index)): f.read_bytes() for f in index.rglob("*") if f.is_file()}
    return rows, files


def test_tasks_and_mine_leave_what_the_next_night_reads_unchanged(isolated_home: Path,
                                                                  tmp_path: Path) -> None:
    _archive_sessions(isolated_home)
    _store_tasks_as_a_night_does(ratios=(2, 1, 7))  # a night ran: families and an index exist
    before = _dump(isolated_home)
    assert before[1], "the night wrote an index"
    for args in (["tasks", "--threshold", "0.5"], ["tasks", "--include-headless"],
                 ["tasks", "--split-ratios", "1:0:0", "--json"]):
        done = _run(*args, "--embedder", "hashing", home=isolated_home)
        assert done.returncode == 0, done.stderr
    requests = tmp_path / "r.jsonl"
    requests.write_text(json.dumps({"id": "x", "session_id": "z", "project": "/p",
                                    "text": "deploy the docs"}) + "\n")
    done = _run("mine", "--requests", str(requests), "--embedder", "hashing", home=isolated_home)
    assert done.returncode == 0 and "a preview: nothing was stored" in done.stderr
    assert _dump(isolated_home) == before


def test_tasks_and_recall_from_the_archive(isolated_home: Path) -> None:
    _archive_sessions(isolated_home)
    done = _run("tasks", "--embedder", "hashing", "--json", "--split-ratios", "1:0:0",
                home=isolated_home)
    assert done.returncode == 0, done.stderr
    lines = _lines(done.stdout)
    summary = lines[-1]["summary"]
    tasks = lines[:-1]
    assert summary["tasks"] == len(tasks) >= 1  # type: ignore[index]
    main = next(t for t in tasks if str(t["id"]).endswith(":0"))
    assert main["split"] == "train" and main["skill"] == "skillopt-sleep-learned"
    checks = main["judge"]["checks"]  # type: ignore[index]
    assert {"op": "contains", "text": "pytest -q"} in [
        {k: v for k, v in c.items() if k != "why"} for c in checks]
    # ``tasks`` stored nothing: recall knows what a night stored, and says so.
    before = _run("recall", "--task", str(main["id"]), "--embedder", "hashing",
                  home=isolated_home)
    assert before.returncode == 2 and "a night stored" in before.stderr
    _store_tasks_as_a_night_does(ratios=(1, 0, 0))
    recall = _run("recall", "--task", str(main["id"]), "-k", "3", "--embedder", "hashing",
                  "--json", home=isolated_home)
    assert recall.returncode == 0, recall.stderr
    assert _lines(recall.stdout)[-1]["summary"]["task"] == main["id"]  # type: ignore[index]
    unknown = _run("recall", "--task", "fam-nope:0", "--embedder", "hashing",
                   home=isolated_home)
    assert unknown.returncode == 2 and "skillopt-sleep tasks" in unknown.stderr
