"""The action fingerprint: commands reduced to program and subcommand, the features the
harvested transcripts of all four agents give, and mining with text and fingerprint
together (a family joins across languages; the same words with other work stay apart)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import MiningStore
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.mine.commands import commands_of
from skillopt_sleep.mine.embed import MockEmbedder
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.fingerprint import Combiner, Rarity, features, relative, vectors
from skillopt_sleep.mine.miner import Miner
from skillopt_sleep.mine.requests import Request, requests_from_sessions
from skillopt_sleep.records import ToolCall
from tests._harvest_layout import FIXTURES, shared


@pytest.mark.parametrize(("line", "expected"), [
    ('git commit -m "fix typo" && git push origin main', ["git commit", "git push"]),
    ("bash -lc 'cd api && PYTHONPATH=. python -m pytest -q tests/'", ["pytest"]),
    ("bash -lc npm run lint", ["npm run lint"]),
    ("npm test -- UserMenu", ["npm test"]),
    ("npx playwright test e2e/checkout.spec.ts", ["playwright test"]),
    ("git -C repo status", ["git status"]),
    ("python manage.py migrate", ["manage.py migrate"]),
    ("sudo FOO=1 docker compose up -d", ["docker compose"]),
    ("kubectl -n prod logs deploy/api | tail -50", ["kubectl logs", "tail"]),
    ("cat > src/a.py <<'EOF'\nimport os\ndef f(): pass\nEOF\npytest -q", ["cat", "pytest"]),
    ("exit 3", []),
    ("gh pr create --fill", ["gh pr create"]),  # a noun-verb CLI keeps its verb
    ("gh pr view 57 && gh run list --limit 5", ["gh pr view", "gh run list"]),
])
def test_commands_keep_program_and_subcommand_only(line: str, expected: list[str]) -> None:
    assert commands_of(line) == expected


def test_features_name_commands_files_tools_and_outcomes() -> None:
    calls = [ToolCall("Bash", False, {"command": "pytest -q api/tests"}, exit_code=1),
             ToolCall("Edit", True, {"file_path": "/srv/dev/shop/api/shop/cart.py"}),
             ToolCall("apply_patch", True, {"input": "*** Begin Patch\n*** Update File: "
                                                     "/srv/dev/shop/CHANGELOG.md\n*** End Patch"}),
             ToolCall("TodoWrite", True, {}), ToolCall("Bash", True, {"command": "ls"})]
    found = set(features(calls, "/srv/dev/shop"))
    assert {"cmd:pytest", "outcome:tests-failed", "tool:shell", "tool:edit", "edit:.py",
            "file:api/shop/cart.py", "path:api/shop", "file:CHANGELOG.md", "peek:ls"} <= found
    assert not any("todo" in f for f in found)  # bookkeeping says nothing about the task
    assert relative("/elsewhere/deep/x/y.py", "/srv/dev/shop") == "x/y.py"


def _fixture_requests(root: Path) -> dict[str, list[Request]]:
    found: dict[str, list[Request]] = {}
    for agent in ("claude-code", "codex", "copilot-cli", "copilot-vscode"):
        source = make_source(agent, root / agent)
        for path in sorted((root / agent).iterdir()):
            found[f"{agent}/{path.name}"] = list(requests_from_sessions(source.sessions_from(path)))
    return found


def test_fingerprints_from_the_four_agents_transcripts() -> None:
    found = _fixture_requests(FIXTURES)
    by_text = {(k.split("/")[0], r.text): r.actions for k, rs in found.items() for r in rs}
    assert {"cmd:npm test", "outcome:tests-failed"} <= set(
        by_text[("claude-code", "run the unit tests")])
    assert "cmd:npm test" in by_text[("codex", "watch the tests while I edit")]
    assert {"cmd:tsc", "cmd:npm run deploy", "outcome:build-failed"} <= set(
        by_text[("copilot-cli", "check the types and then deploy")])
    # VS Code keeps the terminal command the agent ran.
    assert "peek:cat" in by_text[("copilot-vscode", "which node version does CI use?")]
    avatar = next(a for (_, t), a in by_text.items() if t.startswith("the avatar in the sidebar"))
    assert "file:src/components/UserMenu.tsx" in avatar  # relative to the project


def test_fingerprints_from_the_shared_public_transcripts() -> None:
    found = _fixture_requests(shared())
    actions = [set(r.actions) for rs in found.values() for r in rs]
    assert any("cmd:pnpm test" in a for a in actions)
    # A here-document's body is no command; the file it writes is a changed file.
    assert not any("cmd:import" in a or "cmd:def" in a for a in actions)
    assert any("edit:.py" in a and "peek:cat" in a and "tool:edit" not in a for a in actions)


def test_combined_vectors_weigh_text_and_fingerprint() -> None:
    text = np.eye(3, dtype=np.float32)[[0, 0, 1]]
    acts = [["cmd:pytest"], ["cmd:go test"], []]
    out = Combiner(text_weight=0.2).combine(text, acts)
    assert out[0] @ out[0] == pytest.approx(1.0, abs=1e-5)
    # same words, other work: the text share only (plus whatever the hashes share)
    shared = float(vectors(acts[:1])[0] @ vectors(acts[1:2])[0])
    assert out[0] @ out[1] == pytest.approx(0.2 + 0.8 * shared, abs=1e-5)
    assert np.linalg.norm(out[2]) == pytest.approx(1.0)  # no fingerprint: text alone
    stored = Combiner(text_weight=0.2)
    for _ in range(2):  # the second time from its memo
        assert np.allclose(stored.combine_stored(text, [json.dumps(a) for a in acts]), out)
    assert not vectors([[]]).any()


PYTEST = ["cmd:pytest", "outcome:tests-ok", "path:api", "tool:shell"]
GO = ["cmd:go test", "outcome:tests-ok", "tool:shell"]
DEPLOY = ["cmd:kubectl apply", "cmd:kubectl rollout", "tool:shell"]


def _request(i: int, text: str, actions: list[str]) -> Request:
    return Request(id=f"r{i}", session_id=f"s{i}", project="/p", text=text, actions=actions)


def test_same_work_in_other_languages_joins_and_same_words_with_other_work_do_not() -> None:
    # A text model that reads no Japanese or Russian: unrelated random vectors for them.
    requests = [_request(0, "run the backend tests", PYTEST),
                _request(1, "バックエンドのテストを走らせて", PYTEST),
                _request(2, "прогони тесты бэкенда", PYTEST),
                _request(3, "deploy to staging", DEPLOY),
                _request(4, "задеплой на стейджинг", DEPLOY),
                _request(5, "run the backend tests", GO)]
    archive = Archive(paths.archive_path())
    miner = Miner(archive, MockEmbedder(dim=32), FamilySettings(),
                  index_base=paths.state_dir() / "ix")
    families = sorted(sorted(f.members) for f in miner.mine(requests).families)
    assert families == [["r0", "r1", "r2"], ["r3", "r4"]]


def test_two_different_features_never_look_alike() -> None:
    # One hashed bucket per feature made colliding features identical (cosine ±1):
    # ``kubectl apply`` joined ``npm run test``. Spread over four, a pair shares at most
    # a part of its weight.
    names = [f"cmd:tool{i} sub{i % 7}" for i in range(400)]
    rows = vectors([[n] for n in names])
    sims = np.abs(rows @ rows.T) - np.eye(len(names))
    assert sims.max() <= 0.5 + 1e-6


def test_rarity_weighs_what_every_request_does_less() -> None:
    sample = [["tool:shell", "cmd:pytest"], ["tool:shell", "cmd:git commit"],
              ["tool:shell", "cmd:ruff check"], ["tool:shell", "cmd:pytest"]]
    rarity = Rarity.of(sample, "4")
    assert rarity.factor("tool:shell") == pytest.approx(1.0)
    assert rarity.factor("cmd:git commit") > rarity.factor("cmd:pytest") > 1.0
    assert rarity.factor("cmd:never-seen") > rarity.factor("cmd:git commit")
    # two requests that share only the command every request runs
    pair = [["tool:shell", "edit:.py", "cmd:pytest"], ["tool:shell", "edit:.py", "cmd:mypy"]]
    common = Rarity.of([["tool:shell", "edit:.py"]] * 20 + [["cmd:pytest"], ["cmd:mypy"]], "22")
    plain, weighed = vectors(pair), vectors(pair, rarity=common)
    assert float(weighed[0] @ weighed[1]) < float(plain[0] @ plain[1]) - 0.2
    assert Combiner(rarity=common).name != Combiner().name  # sums are kept apart


def test_rarity_is_counted_once_per_sample_and_stored() -> None:
    archive = Archive(paths.archive_path())
    store = MiningStore(archive)
    store.add_requests([_request(i, "x", PYTEST if i % 2 else GO) for i in range(6)])
    assert store.feature_counts("/p", 4) == {"cmd:pytest": 2, "outcome:tests-ok": 4,
                                             "path:api": 2, "tool:shell": 4, "cmd:go test": 2}
    store.add_requests([_request(9, "x", DEPLOY)])  # the first four did not change
    assert store.feature_counts("/p", 4)["tool:shell"] == 4
    stored = archive.conn.execute("SELECT COUNT(*) FROM mining_rarity").fetchone()[0]
    assert stored == 1


COMPOSE = ["cmd:docker compose", "outcome:build-ok", "tool:shell"]


@pytest.mark.parametrize(("trust", "joined"), [(0.8, True), (2.0, False)])
def test_the_same_work_outweighs_english_words_the_tables_misjudge(
        trust: float, joined: bool) -> None:
    # The tables read "bring up" as a change and "start" as a run: different intents.
    requests = [_request(0, "bring up the local stack with compose", COMPOSE),
                _request(1, "start all the services locally", COMPOSE),
                _request(2, "levanta el entorno local con compose", COMPOSE),
                _request(3, "запусти все сервисы локально", COMPOSE)]
    archive = Archive(paths.archive_path())
    miner = Miner(archive, MockEmbedder(dim=32), FamilySettings(trust=trust),
                  index_base=paths.state_dir() / "ix")
    families = [sorted(f.members) for f in miner.mine(requests).families]
    assert (["r0", "r1", "r2", "r3"] in families) is joined


def test_english_asks_the_tables_read_stay_apart_though_the_work_is_the_same() -> None:
    # The tables read both verbs (explain, rename): their veto stands, whatever ran.
    requests = [_request(0, "explain the cache layer", COMPOSE),
                _request(1, "explain the cache layer for Alice", COMPOSE),
                _request(2, "rename the cache layer", COMPOSE),
                _request(3, "rename the cache layer by Friday", COMPOSE)]
    archive = Archive(paths.archive_path())
    miner = Miner(archive, MockEmbedder(dim=32), FamilySettings(),
                  index_base=paths.state_dir() / "ix")
    families = sorted(sorted(f.members) for f in miner.mine(requests).families)
    assert families == [["r0", "r1"], ["r2", "r3"]]
