"""Mining in time that grows with new work: incremental passes, drift, stored aggregates,
and one family threshold from config for ``mine``, ``tasks`` and the night."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skillopt_sleep import config, paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import MiningStore
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.mine import miner as miner_module
from skillopt_sleep.mine.embed import make_embedder
from skillopt_sleep.mine.evaluate import pairwise_scores
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.intent import parse
from skillopt_sleep.mine.miner import Miner
from skillopt_sleep.mine.requests import read_requests

DATA = Path(__file__).parent / "data" / "paraphrases.jsonl"
LABELS = [json.loads(line)["family"] for line in DATA.read_text().splitlines()]
REQUESTS, _ = read_requests(DATA)


def _miner(archive: Archive, min_sessions: int = 1) -> Miner:
    return Miner(archive, make_embedder("hashing"), FamilySettings(min_sessions=min_sessions),
                 index_base=paths.state_dir() / "index")


def _scores(families: list[list[str]]) -> dict[str, float]:
    position = {r.id: i for i, r in enumerate(REQUESTS)}
    return pairwise_scores(LABELS, [[position[m] for m in f] for f in families])


def test_incremental_passes_keep_ids_and_group_as_well_as_one_pass() -> None:
    one = _miner(Archive(paths.archive_path().with_name("one.sqlite3"))).mine(REQUESTS)
    archive = Archive(paths.archive_path())
    cut = int(len(REQUESTS) * 0.6)
    first = _miner(archive).mine(REQUESTS[:cut])
    before = {f.id: f.members for f in first.families}
    passes: dict[str, int] = {}
    report = first
    for start in range(cut, len(REQUESTS), 10):
        report = _miner(archive).mine(REQUESTS[start : start + 10])
        for key in ("full_passes", "incremental_passes"):
            passes[key] = passes.get(key, 0) + report.counts.get(key, 0)
    after = {f.id: f.members for f in report.families}
    assert passes["incremental_passes"] >= 5
    for fid, members in before.items():  # ids never change; members only join
        assert after[fid][: len(members)] == members
    assert sorted(m for ms in after.values() for m in ms) == sorted(r.id for r in REQUESTS)
    assert len(MiningStore(archive).families()) == len(after)  # no family without members
    inc, full = _scores(list(after.values())), _scores([f.members for f in one.families])
    assert inc["precision"] >= full["precision"] - 0.01
    assert inc["recall"] >= full["recall"] - 0.05


def test_drift_turns_a_pass_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(miner_module, "MIN_POOL", 4)
    archive = Archive(paths.archive_path())
    lonely = [r for r in REQUESTS][:40]  # min_sessions high: everything stays pending
    assert _miner(archive, 99).mine(lonely[:20]).counts["full_passes"] == 1
    pool = _miner(archive, 99).mine(lonely[20:21]).counts
    assert pool.get("incremental_passes") == 1 and pool["pending"] == 21
    # 0.25 · 20 = 5: a sixth request since the last full pass makes the next one full.
    counts = [_miner(archive, 99).mine([r]).counts for r in lonely[21:27]]
    assert [c.get("full_passes", 0) for c in counts] == [0, 0, 0, 0, 1, 0]


def test_stored_family_aggregates_match_their_members() -> None:
    archive = Archive(paths.archive_path())
    miner = _miner(archive, 2)
    miner.mine(REQUESTS[:120])
    miner = _miner(archive, 2)
    miner.mine(REQUESTS[120:])
    store = MiningStore(archive)
    members = store.family_members(REQUESTS[0].project)
    stats = store.family_stats(list(members), miner.stats_space(REQUESTS[0].project))
    assert set(stats) == set(members)
    index = miner.open_index(REQUESTS[0].project)
    for fid, ids in members.items():
        total = np.frombuffer(stats[fid].total, dtype=np.float64)
        assert stats[fid].size == len(ids)
        rows = store.member_rows([fid])
        assert [r.id for r in rows] == ids
        assert np.allclose(total, miner.combined(rows, index).sum(axis=0), atol=1e-4)
        kinds = {(tuple(a), o, h) for a, o, h in json.loads(stats[fid].kinds)}
        by_text = {r.id: r.text for r in REQUESTS}
        expected = {(tuple(sorted(k.actions)), k.object, k.head)
                    for k in (parse(by_text[i]).kind for i in ids)}
        assert kinds == expected


def _cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"SKILLOPT_SLEEP_HOME": str(home), "HOME": str(home / "user")}
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_mine_takes_the_family_threshold_from_config(tmp_path: Path,
                                                     isolated_home: Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(json.dumps({"id": r.id, "session_id": r.session_id,
                                        "project": r.project, "text": r.text}) + "\n"
                            for r in REQUESTS))
    args = ("mine", "--requests", str(path), "--embedder", "hashing", "--json")

    def families(home: Path, *extra: str) -> int:
        run = _cli(*args, *extra, home=home, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        return len(json.loads(run.stdout)["families"])

    default = families(isolated_home / "a")
    strict_home = isolated_home / "b"
    (strict_home / "config").mkdir(parents=True)
    (strict_home / "config" / "config.toml").write_text("family_threshold = 0.9\n")
    strict = families(strict_home)
    assert strict < default  # a stricter threshold leaves more requests without a family
    assert families(isolated_home / "c", "--threshold", "0.9") == strict
    (strict_home / "config" / "config.toml").write_text("family_threshold = 1.5\n")
    bad = _cli(*args, home=strict_home, cwd=tmp_path)
    assert bad.returncode != 0 and "family_threshold" in bad.stderr


def test_the_night_and_the_cli_share_one_default() -> None:
    assert config.Settings().family_threshold == FamilySettings().threshold == 0.3
    with pytest.raises(ConfigError, match="family_threshold"):
        config.load(flags={"family_threshold": 0.0})


def test_a_pass_can_report_only_the_families_it_grew() -> None:
    """``every_family=False`` (what ``mine`` asks) lists the families formed or joined in
    the pass, with every member, and leaves the full listing alone."""
    archive = Archive(paths.archive_path())
    cut = int(len(REQUESTS) * 0.7)
    _miner(archive).mine(REQUESTS[:cut])
    later = _miner(archive).mine(REQUESTS[cut:], every_family=False)
    assert later.families == [] and later.grown
    full = MiningStore(archive).family_members(REQUESTS[0].project)
    new_ids = {r.id for r in REQUESTS[cut:]}
    holding = {fid for fid, ids in full.items() if new_ids & set(ids)}
    assert {f.id for f in later.grown} == holding  # every family holding a new request grew
    for family in later.grown:
        assert family.grew and family.members == full[family.id]
    assert later.counts["families"] == len(full)
    archive.close()


def test_members_of_reads_families_by_key_in_arrival_order() -> None:
    archive = Archive(paths.archive_path())
    _miner(archive).mine(REQUESTS)
    store = MiningStore(archive)
    every = store.family_members(REQUESTS[0].project)
    some = sorted(every)[::3]
    assert store.members_of(some) == {fid: every[fid] for fid in some}
    assert store.members_of([]) == {} and store.count_families(REQUESTS[0].project) == len(every)
    archive.close()
