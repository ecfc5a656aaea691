"""The trigger check where people see it: the HTML report, report.json's summary,
``report --json``, and the pipeline's setup of the installed skills."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep import paths
from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.cli.app import app
from skillopt_sleep.night.run import NightInputs, run_night
from skillopt_sleep.pipeline.triggers import trigger_setup
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.report.html import render, render_json
from skillopt_sleep.records import JudgeSpec, NightResult, Task
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.models import build
from skillopt_sleep.sim.skill_figures import trigger_setup as proof_setup


@pytest.fixture(scope="module")
def night() -> NightResult:
    """A night of the maintainer's under-described skill, with the trigger check."""
    p = personas.load("maintainer")
    tasks = personas.tasks(p, 0)
    texts = {s.name: s.initial_text() for s in p.skills}
    return run_night(NightInputs(
        tasks=[t for t in tasks if t.skill == "release-notes"],
        skill_text=texts["release-notes"], skill_name="release-notes",
        target=build(p, 0, "target"), optimizer=build(p, 0, "optimizer"),
        night_id="20261125-010000-abcdef12", project="/p",
        trigger=proof_setup(p, "release-notes", texts, tasks)))


def test_the_html_report_shows_trigger_rates_before_and_after(night: NightResult) -> None:
    assert night.trigger["split"] == "test"  # a night that scores the test split reports on it
    html = render([night])
    assert "Does the agent load the skill?" in html
    before, after = night.trigger["recall_before"], night.trigger["recall_after"]
    assert f"{before:.0%} → {after:.0%}" in html and after > before
    assert "<s>Housekeeping helper for the maintainers of this project.</s>" in html


def test_a_night_without_a_trigger_check_shows_no_trigger_section() -> None:
    plain = NightResult("20261125-010000-abcdef12", "x", skill_before="a", skill_after="a")
    assert "Does the agent load the skill?" not in render([plain])
    assert render_json([plain])["summary"]["skills"][0]["trigger"] is None


def test_report_json_carries_the_trigger_rates_per_skill(night: NightResult) -> None:
    summary = render_json([night])["summary"]["skills"][0]["trigger"]
    assert summary["recall_after"] == night.trigger["recall_after"]
    assert summary["descriptions_accepted"] >= 1
    folder = staging.stage(paths.staging_dir(), night.night_id, "/p", [night], {}, "<html/>")
    done = CliRunner().invoke(app, ["report", folder.name, "--json"])
    assert done.exit_code == 0, done.output
    row = json.loads(done.output)["skills"][0]
    assert row["skill"] == "release-notes"
    assert row["trigger"]["recall_before"] == night.trigger["recall_before"]
    assert row["trigger"]["false_trigger_after"] == night.trigger["false_trigger_after"]
    assert row["trigger"]["description_after"] != row["trigger"]["description_before"]


def test_the_pipeline_shows_every_other_installed_skill_and_their_tasks(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    write_atomic(user / "notes" / "SKILL.md",
                 b"---\nname: notes\ndescription: Housekeeping.\n---\nbody\n")
    write_atomic(user / "review" / "SKILL.md",
                 b"---\nname: review\ndescription: Reviews pull requests.\n---\nbody\n")
    write_atomic(project / "review" / "SKILL.md",
                 b"---\nname: review\ndescription: The project's copy.\n---\nbody\n")
    write_atomic(project / "deploy" / "SKILL.md",
                 b"---\nname: deploy\ndescription: Ships releases.\n---\nbody\n")

    def task(skill: str) -> Task:
        return Task(f"{skill}:1", skill, "do it", JudgeSpec(), skill=skill)
    by_skill = {"notes": [task("notes")], "review": [task("review")],
                "skillopt-sleep-learned": [task("skillopt-sleep-learned")]}
    setup = trigger_setup("notes", by_skill, [user, project],
                          {"notes": "notes", "review": "review",
                           "skillopt-sleep-learned": "Lessons learned."})
    cards = {c.name: c.description for c in setup.others}
    assert cards == {"review": "Reviews pull requests.", "deploy": "Ships releases.",
                     "skillopt-sleep-learned": "Lessons learned."}
    assert [t.skill for t in setup.foreign_tasks] == ["review", "skillopt-sleep-learned"]


def test_a_skill_with_nothing_competing_says_its_trigger_rate_cannot_be_measured(
        night: NightResult) -> None:
    assert night.trigger["competing_skills"] > 0 and night.trigger["unmeasured"] is None
    p = personas.load("maintainer")
    tasks = [t for t in personas.tasks(p, 0) if t.skill == "release-notes"]
    text = next(s.initial_text() for s in p.skills if s.name == "release-notes")
    alone = run_night(NightInputs(
        tasks=tasks, skill_text=text, skill_name="release-notes",
        target=build(p, 0, "target"), optimizer=build(p, 0, "optimizer"),
        night_id="20261125-020000-abcdef12", project="/p",
        trigger=proof_setup(p, "release-notes", {"release-notes": text}, tasks)))
    t = alone.trigger
    assert t["competing_skills"] == 0 and "no other skill is installed" in t["unmeasured"]
    assert t["recall_before"] is None and t["recall_after"] is None  # never an invented 0
    html = render([alone])
    assert "not measurable" in html and "0% → 0%" not in html
    summary = render_json([alone])["summary"]["skills"][0]["trigger"]
    assert summary["recall_before"] is None and summary["unmeasured"] == t["unmeasured"]
    folder = staging.stage(paths.staging_dir(), alone.night_id, "/p", [alone], {}, "<html/>")
    done = CliRunner().invoke(app, ["report", folder.name, "--json"])
    row = json.loads(done.output)["skills"][0]["trigger"]
    assert row["recall_after"] is None and row["unmeasured"].startswith("not measurable")
