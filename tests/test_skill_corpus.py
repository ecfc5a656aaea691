"""Every real skill of the shared corpus (``../shared/fixtures/skills-public``) through the
path a night takes: parse, a learned entry and a description edit, adoption into three
roots and rollback byte-exact (bytes and mode), and the trigger check's routing prompt
with all of them installed at once. Required under ``SKILLOPT_SLEEP_REQUIRE_ALL=1``,
skipped with the reason otherwise; ``tests/fixtures/skills-public`` keeps one file of each
frontmatter shape for the default suite (``test_frontmatter_shapes.py``).

One module fixture does the work for all files (about 20 s, most of it the 354 adoption
writes and their rollbacks); the tests read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from skillopt_sleep import frontmatter
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import StoreError
from skillopt_sleep.night import catalogue
from skillopt_sleep.night.trigger import SkillCard, installed, route_messages
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.records import Edit, EditOutcome, JudgeSpec, NightResult, Task
from skillopt_sleep.skilldoc import apply_edit, approx_tokens, edit_description, parse
from tests._require import require

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "fixtures" / "skills-public"
ENTRY = "Run the project's own checks before handing the work back."
DESCRIPTION = "Use when the corpus test exercises this skill, and only then"
MODES = (0o644, 0o600, 0o664)
"""One mode per root, so rollback must restore each root's own."""


@dataclass
class Outcome:
    original: bytes
    parsed: bool = False
    learned: EditOutcome | None = None
    described: EditOutcome | None = None
    reason: str = ""
    style: tuple[str, str] = ("", "")
    adopted: list[str] = field(default_factory=list)
    """Problems seen after adoption, per root (empty: every root as expected)."""
    restored: list[str] = field(default_factory=list)
    """Roots whose bytes or mode differ from the original after rollback."""


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*.md") if p.name != "SOURCES.md")


def skill_folder(index: int, path: Path) -> str:
    """A unique folder per file (instruction files share their ``instructions`` folder)."""
    own = path.stem if path.parent.name == "instructions" else path.parent.name
    return f"{index:03d}-{path.parent.parent.name}-{own}"[:120]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    require(CORPUS.is_dir(), "the shared real-skill corpus is not beside the repository "
                             "(../shared/fixtures/skills-public)")
    home = tmp_path_factory.mktemp("corpus")
    roots = [home / "claude" / "skills", home / "agents" / "skills", home / "github" / "skills"]
    outcomes: dict[str, Outcome] = {}
    results, live = [], {}
    for index, path in enumerate(corpus_files()):
        skill, data = skill_folder(index, path), path.read_bytes()
        outcomes[skill] = out = Outcome(data)
        for root, mode in zip(roots, MODES, strict=True):
            target = root / skill / "SKILL.md"
            target.parent.mkdir(parents=True)
            target.write_bytes(data)
            os.chmod(target, mode)
        text, live[skill] = adoption.read_live(roots, skill)
        assert text is not None
        doc = parse(text)
        out.parsed = True
        doc, out.learned = apply_edit(doc, Edit(op="append", text=ENTRY))
        done = edit_description(doc, DESCRIPTION)
        out.described, out.reason = done.outcome, done.reason
        out.style = (frontmatter.description_style(doc.text),
                     frontmatter.description_style(done.doc.text))
        results.append(NightResult("20261128-030000-abcdef12", skill, skill_before=text,
                                   skill_after=done.doc.text))
    archive = Archive(home / "state" / "archive.sqlite3")
    folder = staging.stage(home / "nights", "20261128-030000-abcdef12", "/p", results, live,
                           "<html></html>")
    for skill, out in outcomes.items():
        try:
            adoption.adopt(archive, folder, skill, roots)
        except StoreError as exc:  # reported per file by the test that reads it
            out.adopted.append(f"refused: {exc}")
            out.restored = [str(r) for r in roots if (r / skill / "SKILL.md").read_bytes()
                            != out.original]
            continue
        for root in roots:
            written = parse((root / skill / "SKILL.md").read_bytes().decode("utf-8"))
            if ENTRY not in written.entries("learned"):
                out.adopted.append(f"{root}: no learned entry")
            if out.described is EditOutcome.APPLIED and written.description != DESCRIPTION:
                out.adopted.append(f"{root}: description {written.description[:40]!r}")
        adoption.rollback(archive, skill, roots)
        for root, mode in zip(roots, MODES, strict=True):
            target = root / skill / "SKILL.md"
            if target.read_bytes() != out.original or target.stat().st_mode & 0o777 != mode:
                out.restored.append(str(root))
    return outcomes


def test_the_corpus_is_all_there(night: dict[str, Outcome]) -> None:
    assert len(night) == len(corpus_files()) >= 118


def test_every_file_parses_and_takes_a_learned_entry(night: dict[str, Outcome]) -> None:
    bad = {s: o.learned for s, o in night.items()
           if not o.parsed or o.learned is not EditOutcome.APPLIED}
    assert bad == {}


def test_every_description_edit_keeps_its_style_or_says_why(
        night: dict[str, Outcome]) -> None:
    """With frontmatter: applied in the same style. Without: refused with the reason."""
    for skill, out in night.items():
        has = frontmatter.locate(out.original.decode("utf-8")) is not None
        if has:
            assert out.described is EditOutcome.APPLIED, (skill, out.reason)
            before, after = out.style
            assert after == (before if before != "none" else "plain"), (skill, out.style)
        else:
            assert out.described is EditOutcome.INVALID and "no frontmatter" in out.reason


def test_adoption_writes_every_root_and_rollback_restores_bytes_and_mode(
        night: dict[str, Outcome]) -> None:
    assert {s: o.adopted for s, o in night.items() if o.adopted} == {}
    assert {s: o.restored for s, o in night.items() if o.restored} == {}


def test_the_routing_prompt_with_every_skill_installed_fits_the_target(
        night: dict[str, Outcome]) -> None:
    """All descriptions together: every name shown, the catalogue within its budget."""
    cards = []
    for skill, out in night.items():
        doc = parse(out.original.decode("utf-8"))
        cards.append(SkillCard(skill, doc.description))
    own = cards[0]
    shown = installed(own.name, own.description, cards)
    assert {c.name for c in shown} == {c.name for c in cards}
    messages = route_messages(shown, Task("t", "t", "Fix the flaky test.", JudgeSpec()))
    tokens = sum(approx_tokens(m["content"]) for m in messages)
    assert tokens <= catalogue.CATALOGUE_TOKENS + 500
    # Three times the corpus is over the budget: cut, never dropped, the own card whole.
    many = [SkillCard(f"{c.name}-{i}", c.description) for i in range(3) for c in cards]
    shown = installed(many[0].name, many[0].description, many)
    assert len(shown) == len(many)
    assert next(c for c in shown if c.name == many[0].name).description == \
        catalogue.cut(many[0].description, frontmatter.DESCRIPTION_MAX_CHARS)
    assert catalogue.size([(c.name, c.description) for c in shown]) <= \
        catalogue.CATALOGUE_TOKENS * 4
