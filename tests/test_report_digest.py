"""``report --json`` as an agent reads it: a digest of at most 8 KB with each skill's scores,
accepted edits and their evidence, and the paths of the full report; ``--full`` for all."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.publish import staging
from skillopt_sleep.publish.digest import DIGEST_BYTES
from skillopt_sleep.records import Edit, GateDecision, NightResult, StepResult

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "plugins" / "claude-code"
NIGHT = "20261124-031700-0badcafe"


def _decision(i: int, accepted: bool, size: int) -> GateDecision:
    return GateDecision(edit=Edit(op="append", text=f"rule {i}: " + "x" * size,
                                  rationale="because " + "y" * size),
                        accepted=accepted, reason="significant" if accepted else "tie",
                        mean_delta=0.1 + i / 1000, p_value=0.001 * (i + 1), n_pairs=24,
                        incumbent_score=0.4, candidate_score=0.5,
                        task_deltas={f"t{j}": 0.1 for j in range(50)}, step=1)


def _night(skill: str, accepted: int, size: int) -> NightResult:
    decisions = [_decision(i, i < accepted, size) for i in range(accepted + 30)]
    return NightResult(
        night_id=NIGHT, skill=skill, project="/p", skill_before="before\n",
        skill_after="before\n" + "\n".join(d.edit.text for d in decisions[:accepted]),
        baseline_val=0.4, after_val=0.6, baseline_test=0.3, after_test=0.55,
        steps=[StepResult(step=1, budget=4, proposed=len(decisions), decisions=decisions)],
        task_evidence=[{"task_id": f"t{j}", "split": "test", "intent": "z" * 300,
                        "before": 0.1, "after": 0.9, "answer_before": "a" * 2000,
                        "answer_after": "b" * 2000} for j in range(60)])


@pytest.fixture
def staged(isolated_home: Path) -> list[NightResult]:
    results = [_night("fix", 3, 200), _night("docs", 25, 3000)]
    staging.stage(isolated_home / "state" / "nights", NIGHT, "/p", results,
                  {r.skill: {} for r in results}, "<html></html>")
    return results


def _report(isolated_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(isolated_home), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "skillopt_sleep", "report", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_report_json_is_a_digest_of_at_most_8_kb(isolated_home: Path, staged: list) -> None:
    full_size = (isolated_home / "state" / "nights" / NIGHT / "report.json").stat().st_size
    assert full_size > 20 * DIGEST_BYTES
    done = _report(isolated_home, "--json")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip().encode()) <= DIGEST_BYTES
    digest = json.loads(done.stdout)
    assert "results" not in digest and digest["truncated"]
    fix, docs = sorted(digest["skills"], key=lambda s: s["skill"] != "fix")
    assert fix["before"] == {"validation": 0.4, "test": 0.3}
    assert fix["after"] == {"validation": 0.6, "test": 0.55}
    assert len(fix["accepted"]) == 3 and fix["accepted"][0]["evidence"]["pairs"] == 24
    # What does not fit goes from the least significant end, and is counted.
    kept = len(docs["accepted"])
    assert kept + docs.get("accepted_omitted", 0) == 25 and docs["accepted_omitted"] > 0
    p_values = [e["evidence"]["p_value"] for e in docs["accepted"]]
    assert p_values == sorted(p_values) and p_values[0] == 0.001


def test_report_json_full_gives_everything(isolated_home: Path, staged: list) -> None:
    done = _report(isolated_home, NIGHT, "--json", "--full")
    digest = json.loads(done.stdout)
    assert len(digest["results"]) == 2 and not digest["truncated"]
    assert len(digest["results"][1]["task_evidence"]) == 60
    assert all(len(s["accepted"]) in (3, 25) for s in digest["skills"])
    refused = _report(isolated_home, "--full")
    assert refused.returncode == 2 and "--full goes with --json" in refused.stderr


def test_the_plugin_names_only_fields_and_files_that_exist(isolated_home: Path,
                                                           staged: list) -> None:
    digest = json.loads(_report(isolated_home, "--json").stdout)
    skill = digest["skills"][0]
    texts = {p: p.read_text(encoding="utf-8") for p in PLUGIN.rglob("*.md")}
    named = {m for text in texts.values() for m in re.findall(r"`([a-z_]+)`", text)}
    fields = set(digest) | set(skill) | set(skill["accepted"][0])
    for field in ("report_path", "before", "after", "accepted", "evidence",
                  "rejected_by_stage", "diff", "proposal", "report"):
        assert field in named and field in fields, field
    for text in texts.values():
        assert "report.md" not in text
    for path in (digest["report_path"], skill["diff"], skill["proposal"]):
        assert Path(path).is_file()
    assert Path(skill["diff"]).name == "diff.patch"
    assert Path(skill["proposal"]).name == "SKILL.md"
