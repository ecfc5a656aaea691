"""The multilingual mining benchmark's requests, written as the four agents record them.

    python experiments/multilingual_data.py   # rewrites tests/data/multilingual_requests.jsonl

Each labelled request of ``tests/data/multilingual_families.py`` becomes one session of
one agent (Claude Code, Codex, Copilot CLI, VS Code Copilot Chat in turn), with the tool
calls its family's steps pick (seeded: the same data every run), written in that agent's
own transcript format; the real harvesters read them back, and ``requests_from_sessions``
turns them into the requests mining sees, fingerprints included. Nothing here knows the
fingerprint: it only writes transcripts.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_transcripts import WRITERS, Call, uid  # noqa: E402

from skillopt_sleep.harvest.sources import make_source  # noqa: E402
from skillopt_sleep.mine.requests import requests_from_sessions  # noqa: E402
from tests.data.multilingual_families import FAMILIES, NEAR_MISSES  # noqa: E402

OUT = ROOT / "tests" / "data" / "multilingual_requests.jsonl"
EPOCH = datetime(2026, 10, 1, 9, 0, 0)
AGENTS = ("claude-code", "codex", "copilot-cli", "copilot-vscode")
_PEEKS: list[Call] = [
    ("sh", "ls", True),
    ("sh", "git status", True),
    ("read", "README.md", True),
    ("sh", "cat pyproject.toml", True),
    ("sh", "rg TODO api", True),
]


def plan(steps: list[tuple[str, Any]], rng: random.Random) -> list[Call]:
    """The calls an agent makes for one request: one pick per step, a failing first run of
    the family's check when its ``fail`` step says so, now and then a look around first."""
    fail = next((p for kind, p in steps if kind == "fail"), 0.0)
    calls: list[Call] = []
    if rng.random() < 0.35:
        calls.append(rng.choice(_PEEKS))
    failed = False
    for kind, choices in steps:
        if kind == "fail":
            continue
        pick = rng.choice(choices)
        if kind == "sh" and not failed and rng.random() < fail:
            failed = True
            calls.append(("sh", pick, False))
            continue
        calls.append((kind, pick, True))
    if failed and any(k in ("edit", "write") for k, _, _ in calls):
        first = next(c for c in calls if not c[2])
        calls.append((first[0], first[1], True))  # the agent fixed it: the check runs again
    return calls


def labelled() -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """``(label, language, text, steps)`` of every request: family members, then singles."""
    for name, family in FAMILIES.items():
        for lang, texts in family["text"].items():
            for text in texts:
                yield name, lang, text, family["steps"]
    for miss in NEAR_MISSES:
        yield f"near:{miss.get('work', miss['id'])}", miss["lang"], miss["text"], miss["steps"]


def build(root: Path, seed: int = 0) -> list[dict[str, Any]]:
    """Write every request's session under ``root`` and harvest it back: the requests as
    mining sees them, each with its ``family`` label and ``lang``."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n, (label, lang, text, steps) in enumerate(labelled()):
        agent = AGENTS[n % len(AGENTS)]
        sid = uid("multilingual", seed, n)
        path = WRITERS[agent](root, sid, text, plan(steps, rng), EPOCH + timedelta(hours=n))
        sessions = list(make_source(agent, root).sessions_from(path))
        found = list(requests_from_sessions(sessions))
        if len(found) != 1:
            raise RuntimeError(f"{agent} session {path} gave {len(found)} requests")
        request = found[0]
        out.append(
            {
                "id": request.id,
                "session_id": request.session_id,
                "project": request.project,
                "source": request.source,
                "text": request.text,
                "actions": request.actions,
                "family": label,
                "lang": lang,
            }
        )
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="multilingual-") as tmp:
        rows = build(Path(tmp))
    OUT.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} requests, {len({r['family'] for r in rows})} labels -> {OUT}")


if __name__ == "__main__":
    main()
