"""``run`` as the user runs it. A night answered through hand-off files: waiting is a state
with a correct count of unanswered prompts, and each re-run resumes the same night without
harvesting or mining again. ``--persona`` for the simulated backend."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.night.config import NightConfig
from tests.test_pipeline import cli, world  # noqa: F401  (the fixture)


def _use_handoff(world: dict, on: bool = True) -> None:  # noqa: F811
    config = world["project"] / ".skillopt-sleep.toml"
    text = config.read_text(encoding="utf-8")
    old, new = ('target = "simulated"', 'target = "handoff"') if on else \
        ('target = "handoff"', 'target = "simulated"')
    config.write_text(text.replace(old, new), encoding="utf-8")


def _unanswered(state: Path) -> list[Path]:
    folder = state / "state" / "handoff"
    return [p for p in (folder / "pending").glob("*.md")
            if not (folder / "answers" / p.name).is_file()]


def _answer_all(state: Path) -> list[str]:
    names = []
    for prompt in _unanswered(state):
        (prompt.parent.parent / "answers" / prompt.name).write_text("Ran pytest -q; done.\n")
        names.append(prompt.name)
    return names


def test_waiting_is_a_state_and_a_rerun_resumes_without_harvest(world: dict) -> None:  # noqa: F811
    _use_handoff(world)
    first = cli(world, "run", "--json", "--concurrency", "4", check=False)
    assert first.returncode == 3, first.stderr
    assert "error" not in first.stderr.lower()
    out = json.loads(first.stdout)
    assert out["status"] == "waiting_for_answers" and out["ok"] is False
    assert out["pending"] == len(_unanswered(world["state"])) >= 1
    assert out["counts"]["harvest"]["sessions"] > 0 and out["counts"]["mining"]
    assert out["handoff"]["resumes"] == out["night_id"] and not out["staged"]
    night = out["night_id"]

    answered = _answer_all(world["state"])
    # A written answer is not waiting any more, even before a run reads it.
    assert json.loads(cli(world, "run", "--json", "--dry-run").stdout)["dry_run"]
    again = cli(world, "run", "--json", "--concurrency", "4", check=False)
    assert again.returncode == 3, again.stderr
    resumed = json.loads(again.stdout)
    assert resumed["night_id"] == night and resumed["counts"]["resumed"] == night
    assert "harvest" not in resumed["counts"] and "mining" not in resumed["counts"]
    left = _unanswered(world["state"])
    assert resumed["pending"] == len(left) >= 1
    assert not {p.name for p in left} & set(answered)  # the same questions, answered once

    text = cli(world, "run", check=False)
    assert text.returncode == 3
    assert f"waiting for {len(left)} answer(s)" in text.stdout
    assert f"resumes night {night}" in text.stdout and "error" not in text.stderr.lower()


def test_a_night_no_longer_on_handoff_starts_afresh(world: dict) -> None:  # noqa: F811
    _use_handoff(world)
    assert cli(world, "run", "--json", check=False).returncode == 3
    resume = world["state"] / "state" / "handoff" / "resume.json"
    assert resume.is_file()
    _use_handoff(world, on=False)
    done = json.loads(cli(world, "run", "--json").stdout)
    assert "resumed" not in done["counts"] and done["counts"]["harvest"]
    assert not resume.exists() and done["staged"]


def test_run_takes_the_persona_the_simulated_backend_plays(world: dict) -> None:  # noqa: F811
    config = world["project"] / ".skillopt-sleep.toml"
    config.write_text("\n".join(line for line in config.read_text().splitlines()
                                if not line.startswith("persona")) + "\n")
    missing = cli(world, "run", check=False)
    assert missing.returncode == 2 and "needs a persona (--persona NAME" in missing.stderr
    unknown = cli(world, "run", "--persona", "nope", check=False)
    assert unknown.returncode == 2 and "unknown persona 'nope'" in unknown.stderr
    done = json.loads(cli(world, "run", "--persona", "researcher", "--json").stdout)
    assert done["staged"] and done["skills"]


def test_a_waiting_night_is_kept_for_its_own_project_only(isolated_home: Path) -> None:
    from skillopt_sleep.config import Settings
    from skillopt_sleep.pipeline import handoff
    from skillopt_sleep.records import JudgeSpec, Task

    task = Task(id="t:0", family_id="t", intent="run the tests", judge=JudgeSpec(kind="rules"))
    handoff.save("/a", "20261125-000000-aaaaaaaa", {"learned": [task]})
    on_handoff = Settings(target="handoff")
    assert handoff.load("/b", Settings(target="simulated")) is None  # B's own run, no handoff
    handoff.clear("/b")  # B's night ended
    night, tasks = handoff.load("/a", on_handoff) or ("", {})
    assert night == "20261125-000000-aaaaaaaa" and tasks["learned"][0] == task
    assert handoff.load("/a", Settings(target="simulated")) is None  # A left handoff
    assert handoff.load("/a", on_handoff) is None


def test_one_run_writes_every_prompt_a_batch_needs_at_the_default_concurrency(
        world: dict) -> None:  # noqa: F811
    """``handoff`` runs one call at a time, yet a run leaves every prompt of the batch it
    stopped in (here the first replays of the skill), not the one prompt of the first
    unanswered call."""
    _use_handoff(world)
    for _ in range(8):  # the trigger check's routing prompts come first
        out = json.loads(cli(world, "run", "--json", check=False).stdout)
        assert out["status"] == "waiting_for_answers"
        prompts = _unanswered(world["state"])
        assert out["pending"] == len(prompts)
        if all("You are a coding agent working" in p.read_text() for p in prompts):
            break
        _answer_all(world["state"])
    else:
        raise AssertionError("the night never reached its replays")
    # The step's train minibatch, all of it: one call a run would leave one prompt here.
    assert len(prompts) == NightConfig().train_batch
