"""The proof on a real skill: the ``supply-chain`` persona starts from github/awesome-copilot's
``dependabot`` SKILL.md (13,605 bytes, ``description: >-``). Its nights must lift the
held-out score with no harmful edit, edit the description in its own folded style and
touch no other byte outside the managed regions; the full proof adopts and rolls back
byte for byte, modes included."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
import tomllib
from pathlib import Path

import pytest

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.firewall import Context
from skillopt_sleep.frontmatter import DESCRIPTION_MAX_CHARS, description_style
from skillopt_sleep.night.describe import bound, description_cap
from skillopt_sleep.records import Edit
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import real_skill
from skillopt_sleep.sim.prove import MIN_LIFT, ProofSpec, check, prove
from skillopt_sleep.skilldoc import apply_edit, edit_description, parse

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests/fixtures/skills-public/github__awesome-copilot/dependabot/SKILL.md"
SHA256 = "2b5f3af7d8a5555d330d4d72ba9ad6140e85215d006dd9d7a92ee0dae76bbf82"


@pytest.fixture(scope="module")
def persona() -> personas.Persona:
    return personas.load("supply-chain")


@pytest.fixture(scope="module")
def proof() -> dict:
    return prove(ProofSpec(persona="supply-chain", seed=0))


def test_the_persona_starts_from_the_real_skill_byte_for_byte(persona: personas.Persona
                                                              ) -> None:
    text = persona.initial_skill()
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == SHA256
    assert text.encode("utf-8") == FIXTURE.read_bytes()
    assert description_style(text) == "folded" and len(text) > 13_000
    assert persona.installed and persona.routed and not persona.multi
    assert persona.skill_description == parse(text).description
    # The real skill states none of the house rules: every one is left to the nights.
    assert real_skill.stated_rules(persona, text) == []


def test_the_skill_and_its_licence_ship_as_package_data(persona: personas.Persona) -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]["skillopt_sleep"]
    folder = personas.PERSONA_DIR / "skills" / "dependabot"
    for name in ("SKILL.md", "LICENSE"):
        rel = (folder / name).relative_to(ROOT / "skillopt_sleep").as_posix()
        assert any(fnmatch.fnmatch(rel, p) for p in patterns), rel
    assert "MIT License" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert SHA256 in (personas.PERSONA_DIR / "skills" / "SOURCES.md").read_text(
        encoding="utf-8")


def test_a_real_skill_that_already_states_a_rule_is_refused(tmp_path: Path) -> None:
    source = personas.resolve("supply-chain")
    (tmp_path / "skills" / "dependabot").mkdir(parents=True)
    doc = FIXTURE.read_bytes() + b"\nAlways add a Rollback section to config changes.\n"
    (tmp_path / "skills" / "dependabot" / "SKILL.md").write_bytes(doc)
    (tmp_path / "p.toml").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"already states rules \['rollback'\]"):
        personas.load(str(tmp_path / "p.toml"))


def test_a_long_description_may_grow_to_the_spec_limit() -> None:
    long = "x" * 723
    assert description_cap("short", 400) == 400
    assert description_cap(long, 400) == DESCRIPTION_MAX_CHARS
    grown = long + " Use it for cooldown periods."
    assert bound(grown, long, 400, Context()) == ("", "")
    assert bound(grown, "short", 400, Context())[0] == "bound"
    assert bound("y" * (DESCRIPTION_MAX_CHARS + 1), long, 400, Context())[0] == "bound"


def test_kept_outside_accepts_a_description_edit_and_learned_entries(
        persona: personas.Persona) -> None:
    initial = persona.initial_skill()
    doc = edit_description(parse(initial), parse(initial).description + " Use it for cooldown "
                                                                        "periods.").doc
    doc, _ = apply_edit(doc, Edit(op="append", text="Give the blast radius up front."))
    assert real_skill.kept_outside(initial, doc.text) == ""
    assert description_style(doc.text) == "folded"


def test_kept_outside_names_a_changed_byte_and_a_changed_style(
        persona: personas.Persona) -> None:
    initial = persona.initial_skill()
    touched = initial.replace("## Overview", "## Overview!", 1)
    assert "offset" in real_skill.kept_outside(initial, touched)
    head_end = initial.index("\n---\n", 3)
    plain = ("---\nname: dependabot\ndescription: " + parse(initial).description
             + initial[head_end:])
    assert "style changed from folded to plain" in real_skill.kept_outside(initial, plain)


def test_the_quick_proof_lifts_and_keeps_the_real_skill(persona: personas.Persona,
                                                        proof: dict) -> None:
    check(proof)  # lift, no harmful edit, nothing changed outside description and regions
    assert proof["lift"] >= MIN_LIFT and proof["harmful_accepted"] == 0
    assert proof["hostile_accepted"] == 0 and proof["outside_edit"] == ""
    initial, final = persona.initial_skill(), proof["final_skill"]
    assert proof["descriptions_accepted"] >= 1
    assert parse(final).description != parse(initial).description
    assert parse(final).description.startswith(parse(initial).description)
    assert final.startswith("---\nname: dependabot\ndescription: >-\n  Comprehensive guide")
    assert description_style(final) == "folded"
    body = initial[initial.index("\n---\n", 3) + 5:]
    assert body in final  # the user's 13 KB body, byte for byte, before the learned region
    assert proof["trigger_recall_after"] > proof["trigger_recall_before"]
    assert real_skill.kept_outside(initial, final) == ""


def test_install_gives_each_root_the_bytes_and_its_own_mode(tmp_path: Path,
                                                            persona: personas.Persona) -> None:
    roots = [tmp_path / "a", tmp_path / "b"]
    written = real_skill.install(persona.initial_skill(), roots, "dependabot")
    states = [real_skill.file_state(p) for p in written]
    assert [s[0] for s in states if s] == [FIXTURE.read_bytes()] * 2
    assert [s[1] for s in states if s] == list(real_skill.INSTALL_MODES)
    os.chmod(written[0], 0o640)
    assert real_skill.file_state(written[0]) != states[0]
    assert stat.S_IMODE(written[0].stat().st_mode) == 0o640
    assert real_skill.file_state(tmp_path / "none" / "SKILL.md") is None


@pytest.mark.slow
def test_the_full_proof_adopts_and_rolls_back_the_real_skill_byte_exact() -> None:
    from skillopt_sleep.sim.prove_full import FullSpec, prove_full

    # prove_full raises AssertionFailed when a rollback leaves other bytes or another mode.
    summary = prove_full(FullSpec(persona="supply-chain", seed=0, assert_improves=True))
    assert summary["skill"] == "dependabot" and summary["harmful_accepted"] == 0
    assert summary["lift"] >= MIN_LIFT
    assert summary["description_style"] == "folded" and summary["outside_edit"] == ""
    assert summary["description_changed"]
    assert summary["restored_original"] == 1  # the ledger's record of the user's document
    assert summary["rolled_back_to"] >= 1
