"""Real skill names: plugin skills, capitals, spaces and unicode never fail a run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skillopt_sleep.config import Settings
from skillopt_sleep.errors import StoreError
from skillopt_sleep.harvest.build import skill_from_text
from skillopt_sleep.mine.route import LEARNED_SKILL, SkillInfo, route
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import write_history
from skillopt_sleep.skill_names import (
    PLUGIN_REASON,
    folder_for,
    is_folder_name,
    is_route,
    slug,
)

CACHE = "plugins/cache/superpowers-dev/superpowers/4.0.3/skills"


def test_each_loaded_name_maps_to_one_folder_or_to_none_for_a_plugin() -> None:
    on_disk = [SkillInfo("research-notes", "notes", folder="Research-Notes"),
               SkillInfo("Team Style", "style", folder="team-style")]
    assert folder_for("superpowers:brainstorming", on_disk) is None
    assert folder_for("Research-Notes", on_disk) == "Research-Notes"  # its folder on disk
    assert folder_for("research-notes", on_disk) == "Research-Notes"  # by its name: field
    assert folder_for("Team Style", on_disk) == "team-style"
    assert folder_for("/release") == "release"  # already a safe folder name
    capital, lower = folder_for("Research-Notes"), folder_for("research-notes")
    assert capital == slug("Research-Notes") and capital.startswith("research-notes-")
    assert capital != lower == "research-notes"  # no two names share a folder
    assert folder_for("Notizen Überblick").startswith("notizen-uberblick-")
    assert folder_for("🚀").startswith("skill-") and slug("🚀") == slug("🚀")
    assert all(is_folder_name(f or "") for f in (capital, folder_for("🚀"), "Research-Notes"))
    assert not any(is_folder_name(f) for f in ("a:b", "../x", ".hidden", "-rf", "a/b", ""))
    # What a stored route may be: a folder on disk or a safe name, never a raw loaded name.
    assert is_route("Research-Notes", on_disk) and is_route(capital) and is_route("release")
    assert not is_route("Research-Notes") and not is_route("superpowers:brainstorming")


def test_reads_of_plugin_skills_are_named_as_the_agent_names_them() -> None:
    assert skill_from_text(f"/path/to/home/.claude/{CACHE}/writing-plans/SKILL.md") == (
        "superpowers:writing-plans")
    assert skill_from_text(
        "/h/.claude/plugins/marketplaces/mkt/plugins/docs/skills/Write Docs/SKILL.md"
    ) == "docs:Write Docs"
    assert skill_from_text('cat "/h/.claude/skills/Research Notes/SKILL.md"') == "Research Notes"
    assert skill_from_text("sed -n 1,9p .agents/skills/Überblick/SKILL.md") == "Überblick"
    assert skill_from_text("cat skills/../SKILL.md") is None


def test_adoption_refuses_plugin_skills_and_takes_real_folder_names(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="plugin skill"):
        adoption.target(tmp_path, "superpowers:brainstorming")
    with pytest.raises(StoreError, match="invalid skill name"):
        adoption.target(tmp_path, "../x")
    assert adoption.target(tmp_path, "Research Notes") == tmp_path / "Research Notes/SKILL.md"


def test_the_mcp_tools_take_real_folder_names_and_refuse_plugin_skills() -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from skillopt_sleep.cli.mcp_server import _skill

    assert _skill("Research-Notes") == "Research-Notes"
    assert _skill("Notizen Überblick") == "Notizen Überblick"
    for bad in ("superpowers:brainstorming", "../x", "-rf"):
        with pytest.raises(ToolError, match="invalid skill name"):
            _skill(bad)


def test_a_plugin_only_family_goes_to_the_nearest_writable_skill_and_says_so() -> None:
    skills = [SkillInfo("notes", "research notes", folder="Notes")]
    vectors = np.array([[1.0, 0.0]], dtype=np.float32)
    intent = np.array([1.0, 0.0], dtype=np.float32)
    decided = route([["superpowers:brainstorming"], []], intent, skills, vectors)
    assert (decided.skill, decided.reason) == ("Notes", "nearest")
    assert [s.to_dict() for s in decided.skipped] == [
        {"skill": "superpowers:brainstorming", "reason": PLUGIN_REASON}]
    far = route([["superpowers:brainstorming"]], np.array([0.0, 1.0]), skills, vectors)
    assert far.skill == LEARNED_SKILL and far.skipped
    assert route([["superpowers:x", "Notes"]], None, skills, None).skill == "Notes"


def test_a_family_routed_to_a_raw_name_before_is_routed_again() -> None:
    from dataclasses import replace

    from skillopt_sleep import paths
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.mine.catalog import Catalog, CatalogSettings
    from skillopt_sleep.mine.embed import MockEmbedder
    from skillopt_sleep.mine.families import FamilySettings
    from skillopt_sleep.mine.requests import Request

    archive = Archive(paths.archive_path())
    mock = MockEmbedder(dim=4)
    requests = [Request(f"r{i}", f"s{i}", "/p", "bump the version", reaction="correction",
                        correction="no, use semver", skills_used=["Release Notes"])
                for i in range(3)]
    settings = CatalogSettings(family=FamilySettings(threshold=0.5))
    first = Catalog(archive, mock, settings=settings).refresh(requests)
    assert {t.skill for t in first.tasks} == {slug("Release Notes")}
    # As an older version stored it: the raw loaded name, which no folder may carry.
    first.tasks[0].skill = "superpowers:release"
    Catalog(archive, mock, settings=settings).store.save_tasks(
        [replace(t, skill="Release Notes") for t in first.tasks[1:]] + first.tasks[:1])
    again = Catalog(archive, mock, settings=settings).refresh(requests)
    assert again.report.counts["tasks_built"] >= 1
    assert {t.skill for t in again.tasks} == {slug("Release Notes")}


# --- the whole run -------------------------------------------------------------------------


def _load_skills(home: Path) -> None:
    """Each Claude Code session loads a skill: a plugin one by the Skill tool or by reading its
    SKILL.md in the plugin cache, or the user's own ``Research-Notes``."""
    files = sorted((home / ".claude" / "projects").rglob("*.jsonl"))
    for i, path in enumerate(files):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        answer = next(line for line in lines if line["type"] == "assistant")
        kind = i % 3
        call = ({"name": "Skill", "input": {"skill": "superpowers:brainstorming"}} if kind == 0
                else {"name": "Read", "input": {
                    "file_path": str(home / ".claude" / CACHE / "writing-plans" / "SKILL.md")}}
                if kind == 1 else {"name": "Skill", "input": {"skill": "Research-Notes"}})
        answer["message"]["content"].insert(0, {"type": "tool_use", "id": f"toolu_{i:04d}", **call})
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_night_over_plugin_and_capitalised_skills_trains_and_never_writes_a_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillopt_sleep.cli.pipeline import _print_run
    from skillopt_sleep.pipeline.run import run_once

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for key, value in (("HOME", home), ("CLAUDE_CONFIG_DIR", home / ".claude"),
                       ("CODEX_HOME", home / ".codex")):
        monkeypatch.setenv(key, str(value))
    persona = personas.load("researcher")
    write_history(persona, 0, home, project)
    _load_skills(home)
    plugins = home / ".claude" / "plugins"
    for name in ("brainstorming", "writing-plans"):
        doc = plugins / "cache/superpowers-dev/superpowers/4.0.3/skills" / name / "SKILL.md"
        doc.parent.mkdir(parents=True)
        doc.write_text(f"---\nname: {name}\ndescription: plugin {name}\n---\n\nBody.\n")
    roots = [tmp_path / "skills-claude", tmp_path / "skills-agents"]
    own = roots[0] / "Research-Notes" / "SKILL.md"
    own.parent.mkdir(parents=True)
    mine = ("---\nname: Research-Notes\ndescription: how I write research notes\n"
            "---\n\nMy own words.\n")
    own.write_text(mine, encoding="utf-8")
    before = _snapshot(plugins)

    settings = Settings(target="simulated", optimizer="simulated", persona=str(persona.path),
                        embedder="hashing", skill_roots=tuple(map(str, roots)),
                        sources=("claude-code", "codex"))
    outcome = run_once(project, settings=settings, adopt="auto")

    assert outcome.ok and outcome.counts["harvest"]["sessions"] > 0
    assert _snapshot(plugins) == before  # not one byte, not one mtime
    trained = {n.skill: n for n in outcome.nights}
    assert "Research-Notes" in trained and not any(":" in s for s in trained)
    assert trained["Research-Notes"].skill_before == mine  # it trained the user's own folder
    assert own.read_text(encoding="utf-8").startswith(mine.rstrip("\n"))
    skipped = {s["skill"]: s for s in outcome.to_dict()["skipped_skills"]}
    assert set(skipped) == {"superpowers:brainstorming", "superpowers:writing-plans"}
    assert all(s["reason"] == PLUGIN_REASON and s["families"] >= 1 for s in skipped.values())
    assert all(set(s["routed_to"]) <= set(trained) for s in skipped.values())
    _print_run(outcome)
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("skipped")]
    assert line.startswith("skipped 2 skill(s): superpowers:brainstorming (plugin skill")
