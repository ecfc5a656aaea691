"""Every frontmatter shape real skills use (``tests/fixtures/skills-public``, one real file
each, provenance in its SOURCES.md) is read, noted and edited the way ``frontmatter.py``
says: read tolerantly, the description replaced in its own style with every other byte
kept, or refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep import frontmatter
from skillopt_sleep.cli import doctor
from skillopt_sleep.mine.skills import read_skill, skill_notes
from skillopt_sleep.night import catalogue
from skillopt_sleep.records import EditOutcome
from skillopt_sleep.skilldoc import edit_description, parse

FIXTURES = Path(__file__).parent / "fixtures" / "skills-public"
FILES = sorted(p for p in FIXTURES.rglob("*.md") if not p.name.endswith("SOURCES.md"))
NEW = "Use when the tests check that this skill keeps its style, and only then"
# The notes each shape must give (code sets), by file.
NOTES = {
    "HoangNguyen0403__agent-skills-standard/scheduling/SKILL.md": {"frontmatter_not_yaml"},
    "secondsky__claude-skills/skill-name/SKILL.md": {"name_not_string"},
    "UiPath__skills/uipath-human-in-the-loop/SKILL.md": {"no_frontmatter"},
    "PranavNagrecha__AwesomeSalesforceSkills/process-flow-as-is-to-be/SKILL.md":
        {"description_over_limit"},
}
STYLES = {
    "secondsky__claude-skills/skill-name/SKILL.md": "literal",
    "kouko__monkey-skills/loom-memory/SKILL.md": "folded",
    "github__awesome-copilot/dependabot/SKILL.md": "folded",
    "getsentry__skills/skill-scanner/SKILL.md": "plain",
    "anthropics__claude-plugins-official/math-olympiad/SKILL.md": "double",
    "github__awesome-copilot/instructions/arch-linux.instructions.md": "single",
    "github__awesome-copilot/qdrant-clients-sdk/SKILL.md": "double",
    "UiPath__skills/uipath-human-in-the-loop/SKILL.md": "none",
}


def _rel(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


def _changed_span(old: str, new: str) -> str:
    """The part of ``old`` that ``new`` replaced (common prefix and suffix removed)."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return old[start:len(old) - end]


def test_every_shape_is_in_the_fixtures() -> None:
    assert len(FILES) >= 12 and set(NOTES) | set(STYLES) <= {_rel(p) for p in FILES}
    raw = [p.read_bytes() for p in FILES]
    assert any(b"\r\n" in r for r in raw) and any(not r.endswith(b"\n") for r in raw)


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_each_real_file_parses_with_the_notes_its_shape_gives(path: Path) -> None:
    doc = parse(path.read_bytes().decode("utf-8"))
    codes = {n.code for n in doc.notes}
    assert codes == NOTES.get(_rel(path), set())
    if "no_frontmatter" not in codes:
        assert doc.description and "\n" not in doc.description[-1:]


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_a_description_edit_keeps_its_style_and_every_other_byte(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    done = edit_description(parse(text), NEW)
    style = frontmatter.description_style(text)
    assert style == STYLES.get(_rel(path), style)
    if style == "none":
        assert done.outcome is EditOutcome.INVALID and "no frontmatter" in done.reason
        return
    assert done.outcome is EditOutcome.APPLIED, done.reason
    assert done.doc.description == NEW
    assert frontmatter.description_style(done.doc.text) == style
    replaced = _changed_span(text, done.doc.text)
    key = text.index("description:")
    # Only the description entry changed: the span starts in it and holds no other key.
    assert text.index(replaced) >= key and "\nname:" not in replaced
    assert "\n---" not in replaced
    eol = "\r\n" if "\r\n" in text else "\n"
    head = done.doc.text[: frontmatter.body_start(done.doc.text)]
    assert head.count(eol) == head.count("\n")  # the file's own line endings
    assert done.doc.text.endswith("\n") == text.endswith("\n")


def test_a_byte_order_mark_is_kept_and_noted() -> None:
    text = "\ufeff" + (FIXTURES / "github__awesome-copilot/qdrant-clients-sdk/SKILL.md"
                       ).read_text("utf-8")
    doc = parse(text)
    assert doc.name == "qdrant-clients-sdk" and "bom" in {n.code for n in doc.notes}
    done = edit_description(doc, NEW)
    assert done.outcome is EditOutcome.APPLIED and done.doc.text.startswith("\ufeff---")


@pytest.mark.parametrize(("entry", "value", "expect"), [
    ("description: >-\n  Old words\n  here.\n", "New: words here",
     "description: >-\n  New: words here\n"),
    ("description: |2-\n    Indented\n", "New words", "description: |2-\n  New words\n"),
    ("description: 'Old'\n", "It's new", "description: 'It''s new'\n"),
    ('description: "Old"\n', 'Say "new"', 'description: "Say \\"new\\""\n'),
    ("description: Old\n", "Plain words", "description: Plain words\n"),
])
def test_each_style_writes_the_new_value_its_own_way(entry: str, value: str,
                                                     expect: str) -> None:
    text = f"---\nname: a\n{entry}license: MIT\n---\nbody\n"
    done = edit_description(parse(text), value)
    assert done.outcome is EditOutcome.APPLIED, done.reason
    assert done.doc.text == f"---\nname: a\n{expect}license: MIT\n---\nbody\n"


@pytest.mark.parametrize(("entry", "why"), [
    ("description: Old words\n", "plain value cannot hold"),
    ("description: Old # a comment\n", "comment follows"),
    ("description: &d Old\n", "anchor"),
    ('"description": Old\n', "form this edit does not rewrite"),
])
def test_a_style_that_cannot_hold_the_value_is_not_edited_and_says_why(entry: str,
                                                                       why: str) -> None:
    text = f"---\nname: a\n{entry}---\nbody\n"
    done = edit_description(parse(text), "Release work: notes")
    assert done.outcome is EditOutcome.INVALID and why in done.reason
    assert done.doc.text == text


def test_a_skill_with_odd_frontmatter_still_routes(tmp_path: Path) -> None:
    for rel in NOTES:
        folder = tmp_path / rel.replace("/", "_")
        folder.mkdir()
        (folder / "SKILL.md").write_bytes((FIXTURES / rel).read_bytes())
        info = read_skill(folder / "SKILL.md")
        assert info is not None and info.folder == folder.name
    listed = read_skill(tmp_path / "secondsky__claude-skills_skill-name_SKILL.md" / "SKILL.md")
    assert listed is not None and listed.name == listed.folder and listed.description
    broken = read_skill(tmp_path / next(iter(NOTES)).replace("/", "_") / "SKILL.md")
    assert broken is not None and broken.name == "NestJS Scheduling"
    assert broken.description == "Distributed cron jobs and locking patterns."


def test_the_catalogue_is_cut_only_when_over_its_budget() -> None:
    cards = [(f"s{i}", "word " * 200) for i in range(40)]
    assert catalogue.fit(cards[:3]) == [t for _, t in cards[:3]]
    fitted = catalogue.fit(cards, own="s0", budget_tokens=2_000)
    assert fitted[0] == cards[0][1] and all(t.endswith("…") for t in fitted[1:])
    assert catalogue.size(list(zip([n for n, _ in cards], fitted, strict=True))) <= 8_000


def test_doctor_notes_odd_frontmatter_and_never_fails_on_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / ".claude" / "skills"
    for rel in ("HoangNguyen0403__agent-skills-standard/scheduling/SKILL.md",
                "UiPath__skills/uipath-human-in-the-loop/SKILL.md"):
        target = root / rel.split("/")[1] / "SKILL.md"
        target.parent.mkdir(parents=True)
        target.write_bytes((FIXTURES / rel).read_bytes())
    notes = skill_notes([root])
    assert {(Path(p).parent.name, n.split(":")[0]) for p, n in notes} == {
        ("scheduling", "frontmatter_not_yaml"), ("scheduling", "name_differs_from_folder"),
        ("uipath-human-in-the-loop", "no_frontmatter")}
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    skills = doctor._skill_check()  # what `doctor` shows under "skills", never a failure
    assert skills["found"] == 2 and len(skills["notes"]) == 3
