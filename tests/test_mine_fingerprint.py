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
from skillopt_sleep.harvest.sources import make_source
from skillopt_sleep.mine.commands import commands_of
from skillopt_sleep.mine.embed import MockEmbedder
from skillopt_sleep.mine.families import FamilySettings
from skillopt_sleep.mine.fingerprint import Combiner, features, relative, vectors
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
