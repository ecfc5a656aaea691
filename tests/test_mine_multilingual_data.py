"""The multilingual mining benchmark's data: shape, and that the committed requests are
exactly what the generator's transcripts give through the real harvesters."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from tests.data.multilingual_families import FAMILIES, LANGUAGES, NEAR_MISSES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "multilingual_requests.jsonl"


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def test_families_are_asked_in_several_phrasings_and_languages() -> None:
    rows = _rows()
    members = [r for r in rows if not str(r["family"]).startswith("near:")]
    assert len(members) >= 400 and len(FAMILIES) >= 40
    texts: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for r in members:
        texts[str(r["family"])][str(r["lang"])].add(str(r["text"]))
    for family, by_lang in texts.items():
        assert set(by_lang) == set(LANGUAGES), family  # English and four others
        assert all(len(t) >= 2 for t in by_lang.values()), family  # several phrasings
    assert len(rows) - len(members) == len(NEAR_MISSES) >= 20
    assert {r["source"] for r in rows} == {"claude-code", "codex", "copilot-cli", "copilot-vscode"}
    assert all(r["actions"] for r in rows)  # every request did some work
    assert len({r["id"] for r in rows}) == len({r["session_id"] for r in rows}) == len(rows)


def _commands(row: dict[str, object]) -> set[str]:
    found = row["actions"]
    assert isinstance(found, list)
    return {str(a) for a in found if str(a).startswith("cmd:")}


def test_near_misses_share_words_with_a_family_but_not_its_work() -> None:
    rows = _rows()
    family_texts = {str(r["text"]): r for r in rows if not str(r["family"]).startswith("near:")}
    shared = [r for r in rows if str(r["family"]).startswith("near:") and r["text"] in family_texts]
    assert len(shared) >= 10
    for r in shared:
        twin = family_texts[str(r["text"])]
        assert not _commands(twin) & _commands(r)


def test_committed_requests_are_what_the_transcripts_give(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "experiments"))
    try:
        from multilingual_data import build
    finally:
        sys.path.remove(str(ROOT / "experiments"))
    assert build(tmp_path) == _rows()


def test_the_shipped_miner_reaches_the_goals_on_the_benchmark(tmp_path: Path) -> None:
    # The goals of the mining issue, on the labelled set (hashing text model: the shipped
    # text weight is 0, so the figures are MiniLM's too). A regression in the fingerprint,
    # its weights or the linkage shows here first.
    sys.path.insert(0, str(ROOT / "experiments"))
    from mining_quality import by_half, load, mine, scores

    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.families import FamilySettings

    rows = load()
    groups = mine(rows, make_embedder("hashing"), FamilySettings(), tmp_path / "shipped")
    found = scores(rows, groups)
    assert found["all"]["precision"] >= 0.9 and found["all"]["recall"] >= 0.9
    assert all(found[lang]["recall"] >= 0.85 for lang in LANGUAGES)
    assert by_half(rows, groups)["half1"]["recall"] >= 0.9  # the half never tuned on
    alone = mine(rows, make_embedder("hashing"), FamilySettings(guards=False),
                 tmp_path / "actions")
    assert scores(rows, alone)["all"]["recall"] >= 0.8
