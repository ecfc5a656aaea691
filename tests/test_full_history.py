"""The full proof's simulated history asks each task in every phrasing of its deliverable,
so the families mined from it have seen the correction of (nearly) every rule they have."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.transcripts import history, write_history


def test_every_phrasing_asks_each_task_once_in_each_of_its_deliverables_phrasings() -> None:
    p = personas.load("researcher")
    one, every = history(p, 4), history(p, 4, every_phrasing=True)
    assert one == personas.tasks(p, 4)
    assert len({t.id for t in every}) == len(every)
    asked: dict[tuple[str, str], set[str]] = {}
    for task in every:
        key = (task.meta["deliverable"], task.meta["subject"])
        asked.setdefault(key, set()).add(task.intent)
    for (deliverable, subject), intents in asked.items():
        phrasings = p.deliverables[deliverable]["intents"]
        assert intents == {i.format(subject=subject) for i in phrasings}
    # Nothing else about a task changes: its family, split, judge and skill are the same.
    by_id = {t.id: t for t in one}
    for task in every:
        base = by_id[task.id.rsplit(":p", 1)[0]]
        assert (task.family_id, task.split, task.judge, task.skill) == \
            (base.family_id, base.split, base.judge, base.skill)


def _corrected(home: Path, p: personas.Persona, asked: list) -> dict[tuple[str, str], set[str]]:
    """For each phrasing of each deliverable (what a mined family gathers: requests worded
    alike), the rules corrected in its Claude Code sessions, over every domain."""
    phrasing_of = {}
    for task in asked:
        for template in p.deliverables[task.meta["deliverable"]]["intents"]:
            if template.format(subject=task.meta["subject"]) == task.intent:
                phrasing_of[task.intent] = (task.meta["deliverable"], template)
    rule_of = {r.correction: r.id for r in p.rules}
    found: dict[tuple[str, str], set[str]] = {}
    for path in (home / ".claude").rglob("*.jsonl"):
        said = [json.loads(line)["message"]["content"] for line in path.read_text().splitlines()
                if json.loads(line)["type"] == "user"]
        found.setdefault(phrasing_of[said[0]], set()).update(rule_of[c] for c in said[1:])
    return found


def test_with_every_phrasing_each_phrasing_sees_more_of_its_deliverables_corrections(
        tmp_path: Path) -> None:
    p = personas.load("researcher")
    covered = []
    for every in (False, True):
        home = tmp_path / str(every)
        asked = history(p, 4, every_phrasing=every)
        written = write_history(p, 4, home, tmp_path / "project", every_phrasing=every)
        assert written["claude-code"] == written["codex"] == len(asked)
        corrected = _corrected(home, p, asked)
        rules = {d: {r.id for m in p.domains for r in p.rules_for(d, m)} for d in p.deliverables}
        assert all(seen <= rules[d] for (d, _), seen in corrected.items())
        covered.append(sum(len(seen) / len(rules[d]) for (d, _), seen in corrected.items())
                       / len(corrected))
    # With one phrasing per subject, a phrasing is asked for about a third of the subjects,
    # so the family mined from it has seen few of its deliverable's corrections, and its
    # judge checks few rules; asked in every phrasing, it sees most of them.
    assert covered[1] >= covered[0] + 0.1, covered
