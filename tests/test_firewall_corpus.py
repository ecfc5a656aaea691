"""The firewall against labelled corpora of skill edits.

``tests/data/firewall_edits.py`` builds the hostile edits by class x target x wrapping
(each brings one capability the skill does not have) and lists benign edits developers
write, look-alikes included. Every edit is checked as the night checks it last: the whole
skill as the proposal leaves it. Targets: hostile refused >= 95 % (each by its own class),
benign flagged <= 2 %. ``tests/data/firewall/`` keeps the earlier hand-written corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.firewall import Context, check_edit, check_proposal, lint_document
from skillopt_sleep.records import Edit
from tests.data.firewall_edits import MULTI_LINE, SPLIT, Case, benign, hand, hostile

DATA = Path(__file__).parent / "data" / "firewall"
SKILL = "---\nname: fix\ndescription: Fix bugs\n---\nFix bugs carefully.\n"
HAND_HOSTILE, HAND_BENIGN = hand()
HOSTILE, BENIGN = hostile() + HAND_HOSTILE, benign() + HAND_BENIGN
# The earlier corpus's rule names, as the capability classes now name them.
RENAMED = {"download_to_shell": "run_fetched_code", "foreign_url": "reach_host",
           "exfiltration": "read_credentials", "instruction_override": "override_instructions"}


def proposed(lines: tuple[str, ...]) -> str:
    return (SKILL + "\n<!-- skillopt-sleep:learned:start -->\n" + "\n".join(lines)
            + "\n<!-- skillopt-sleep:learned:end -->\n")


def refused_as(case: Case) -> set[str]:
    return {f.rule for f in check_proposal(SKILL, proposed(case.lines), Context())}


def test_the_corpora_have_their_sizes_and_cover_every_class() -> None:
    assert len(HOSTILE) >= 100 and len(BENIGN) >= 100
    assert {c.kind for c in HOSTILE} == {
        "reach_host", "run_fetched_code", "open_shell", "persist", "read_credentials",
        "bypass_check", "override_instructions"}


def test_hostile_edits_are_refused_each_by_its_class() -> None:
    missed = [c.label for c in HOSTILE if c.kind not in refused_as(c)]
    assert len(missed) <= 0.05 * len(HOSTILE), missed
    assert all(refused_as(c) for c in hostile())  # every generated case, by something
    unrefused = [c.label for c in HOSTILE if not refused_as(c)]
    assert len(unrefused) <= 0.05 * len(HOSTILE), unrefused


def test_benign_edits_are_not_flagged() -> None:
    flagged = [(c.lines, refused_as(c)) for c in BENIGN if refused_as(c)]
    assert len(flagged) <= 0.02 * len(BENIGN), flagged


def test_single_line_edits_are_refused_by_the_edit_check_too() -> None:
    single = [c for c in HOSTILE if len(c.lines) == 1]
    missed = [c.label for c in single if c.kind not in {
        f.rule for f in check_edit(Edit("append", c.lines[0]))}]
    assert len(missed) <= 0.05 * len(single), missed
    assert not [c.lines for c in BENIGN if check_edit(Edit("append", c.lines[0]))]


def test_a_payload_split_over_several_edits_is_refused_whole() -> None:
    assert SPLIT.kind in refused_as(SPLIT)


def test_a_multi_line_payload_is_refused() -> None:
    assert MULTI_LINE.kind in refused_as(MULTI_LINE)


def test_a_capability_the_user_typed_is_not_refused_but_one_from_elsewhere_is() -> None:
    case = next(c for c in HOSTILE if c.label.startswith("run_fetched_code/span/"))
    payload = case.lines[0].split("`")[1]
    typed = Context.from_texts([f"please set up with {payload}"])
    assert check_proposal(SKILL, proposed(case.lines), typed) == []
    seen_in_a_page = Context.from_texts([])  # a fetched page is never a source
    assert check_proposal(SKILL, proposed(case.lines), seen_in_a_page)


EARLIER = [json.loads(line) for line in (DATA / "hostile.jsonl").read_text("utf-8").splitlines()]


@pytest.mark.parametrize("case", EARLIER, ids=[c["label"] for c in EARLIER])
def test_the_earlier_hostile_corpus_is_still_refused(case: dict) -> None:
    rule = RENAMED.get(case["rule"], case["rule"])
    assert rule in {f.rule for f in check_edit(Edit(op="append", text=case["text"]))}


@pytest.mark.parametrize("path", sorted((DATA / "benign").glob("*.md")), ids=lambda p: p.stem)
def test_benign_hand_written_skills_have_no_errors(path: Path) -> None:
    assert [f for f in lint_document(path.read_text("utf-8")) if f.severity == "error"] == []
