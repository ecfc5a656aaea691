"""The figure check's registry, doc lookup and comparison (``experiments/figure_check.py``),
on made-up figures and docs; no experiment is run. And the real registry against the real
docs: each figure's quote is still in its doc, with its commit beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments import figure_check as fc

_DOC = """# Gate

`skillopt-sleep prove --persona researcher --json` (seed 0; at `abc1234`): held-out test
score 0.261 → **0.772**, 1,304 calls.

Something else entirely.
Another line.
A figure far from its commit: lift +0.511.
"""

_REGISTRY = """
[command.prove]
run = ["-m", "skillopt_sleep", "prove", "--json"]
seconds = 2

[command.study]
run = ["experiments/study.py"]

[[figure]]
name = "after"
command = "prove"
doc = "gate.md"
quote = "0.261 → **0.772**"
value = 0.772
tolerance = 0.0005
commit = "abc1234"
json = "after_test"

[[figure]]
name = "calls"
command = "prove"
doc = "gate.md"
quote = "1,304 calls"
value = 1304
tolerance = 0
commit = "abc1234"
json = "calls.0"

[[figure]]
name = "study-lift"
command = "study"
doc = "gate.md"
quote = "lift +0.511"
value = 0.511
tolerance = 0.01
commit = "abc1234"
regex = "^all .* lift ([-+0-9.]+)"
"""


def _world(tmp_path: Path, registry: str = _REGISTRY
           ) -> tuple[dict[str, fc.Command], list[fc.Figure]]:
    (tmp_path / "gate.md").write_text(_DOC, encoding="utf-8")
    (tmp_path / "figures.toml").write_text(registry, encoding="utf-8")
    return fc.load(tmp_path / "figures.toml")


def _by_name(outcomes: list[fc.Outcome]) -> dict[str, fc.Outcome]:
    return {o.figure.name: o for o in outcomes}


def test_the_registry_gives_each_figure_its_command_and_reader(tmp_path: Path) -> None:
    commands, figures = _world(tmp_path)
    assert commands["prove"].run == ["-m", "skillopt_sleep", "prove", "--json"]
    assert commands["prove"].seconds == 2 and commands["study"].seconds == 0
    assert [(f.name, f.command, f.value) for f in figures] == [
        ("after", "prove", 0.772), ("calls", "prove", 1304), ("study-lift", "study", 0.511)]


def test_a_figure_with_an_unknown_command_or_two_readers_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'after' names no known command 'nope'"):
        _world(tmp_path, _REGISTRY.replace('command = "prove"\ndoc', 'command = "nope"\ndoc', 1))
    with pytest.raises(ValueError, match="'after' needs one of"):
        _world(tmp_path, _REGISTRY.replace('json = "after_test"\n',
                                           'json = "after_test"\nregex = "x"\n'))
    with pytest.raises(ValueError, match="'after' needs one of"):
        _world(tmp_path, _REGISTRY.replace('json = "after_test"\n', ""))


def test_two_figures_of_one_name_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="repeat: after"):
        _world(tmp_path, _REGISTRY.replace('name = "calls"', 'name = "after"'))


def test_numbers_read_thousands_commas_signs_and_a_typographic_minus() -> None:
    assert fc.numbers("0.261 → **0.772**, 1,304 calls, −0.035 and +7.2") == [
        0.261, 0.772, 1304.0, -0.035, 7.2]


def test_every_figure_held_reports_its_line_and_commit(tmp_path: Path) -> None:
    _, figures = _world(tmp_path)
    outputs = {"prove": ('{"after_test": 0.7724, "calls": [1304, 9]}', ""),
               "study": ("personas\nall four: lift +0.5108\n", "")}
    found = _by_name(fc.check(figures, outputs, tmp_path))
    assert found["after"].status == "held" and found["after"].where == "gate.md:4"
    assert found["after"].measured == pytest.approx(0.7724)
    assert found["calls"].status == "held" and found["calls"].measured == 1304
    # The lift is held by its value, but its commit is five lines away.
    assert found["study-lift"].status == "doc"
    assert "no commit abc1234 within" in found["study-lift"].detail
    assert found["study-lift"].where == "gate.md:8"


def test_a_figure_beyond_its_tolerance_moved_and_one_at_its_edge_held(tmp_path: Path) -> None:
    _, figures = _world(tmp_path)
    outputs = {"prove": ('{"after_test": 0.7716, "calls": [1305]}', ""),
               "study": ("all four: lift +0.4990\n", "")}
    found = _by_name(fc.check(figures, outputs, tmp_path))
    assert found["calls"].status == "moved" and found["calls"].measured == 1305
    # 0.5 from the quoted 0.511 is beyond 0.01: moved, whatever the doc's commit.
    assert found["study-lift"].status == "moved"
    assert found["after"].status == "held"  # 0.0004 off, within 0.0005
    assert fc.compare(figures[0], 0.772 + 0.0005) == "held"
    assert fc.compare(figures[0], 0.772 + 0.0006) == "moved"
    assert fc.compare(figures[0], 0.772 - 0.0006) == "moved"


def test_a_failed_command_or_an_unreadable_output_fails_its_figures(tmp_path: Path) -> None:
    _, figures = _world(tmp_path)
    outputs = {"prove": ("", "exit 2: error: no such persona"),
               "study": ("no figure here\n", "")}
    found = _by_name(fc.check(figures, outputs, tmp_path))
    assert found["after"].status == "failed" and "no such persona" in found["after"].detail
    assert found["study-lift"].status == "failed" and "no match" in found["study-lift"].detail
    with pytest.raises(ValueError, match="not a number"):
        fc.read_value(figures[0], '{"after_test": null}')


def test_a_quote_gone_from_its_doc_or_not_holding_its_value_is_reported(tmp_path: Path) -> None:
    _, figures = _world(tmp_path)
    gone = fc.Figure("x", "prove", "gate.md", "0.261 → **0.508**", 0.508, "abc1234", 0.001,
                     json="after_test")
    assert fc.locate(gone, _DOC.splitlines()) == fc.Located(
        0, f"the quote {gone.quote!r} is no longer in gate.md")
    wrong = fc.Figure("y", "prove", "gate.md", "0.261 → **0.772**", 0.508, "abc1234", 0.001,
                      json="after_test")
    assert "does not hold the value 0.508" in fc.locate(wrong, _DOC.splitlines()).problem
    assert fc.locate(figures[0], _DOC.splitlines()) == fc.Located(4)


def test_the_real_registry_matches_the_docs() -> None:
    """Every registered figure is still quoted in its doc, with its commit beside it (an
    edit of the doc that drops either fails here, not at the next figure check)."""
    commands, figures = fc.load(fc.REGISTRY)
    assert figures, "the registry lists no figure"
    for f in figures:
        lines = (fc.REPO / f.doc).read_text(encoding="utf-8").splitlines()
        located = fc.locate(f, lines)
        assert located.problem == "", f"{f.name}: {located.problem}"
    assert sum(c.seconds for c in commands.values()) <= 600  # the quick ones only
