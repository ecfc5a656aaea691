"""Lay transcript fixtures out the way each agent lays out its files, in a temp dir.

The project's own transcripts live in ``tests/fixtures/transcripts/`` (written by
``tests/fixtures/write_transcripts.py``, and trimmed from what the real CLIs wrote). The
public transcripts in ``../shared/fixtures/transcripts`` beside the repository are an
extra corpus: ``shared()`` skips a test when that folder is absent, and fails it under
``SKILLOPT_SLEEP_REQUIRE_ALL=1``. No path outside the repository is ever assumed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ._require import require

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
SHARED = REPO.parent / "shared" / "fixtures" / "transcripts"

Fixture = str | Path
"""A name under ``tests/fixtures/transcripts/<agent>/`` or a path to any transcript."""


def fixture(rel: str) -> Path:
    """One of the project's own transcripts, ``<agent>/<name>``."""
    path = FIXTURES / rel
    assert path.is_file(), f"no fixture {rel} in {FIXTURES}"
    return path


def shared(rel: str = "") -> Path:
    """A public transcript from the shared corpus beside the repository (skips without it)."""
    require(SHARED.is_dir(), "the shared public transcripts are not beside the repository "
                             "(../shared/fixtures/transcripts): the extra corpus is skipped")
    return SHARED / rel if rel else SHARED


def _source(agent: str, item: Fixture) -> Path:
    return item if isinstance(item, Path) else fixture(f"{agent}/{item}")


def claude_tree(root: Path, *names: Fixture, slug: str = "-path-to-project") -> Path:
    """``root/projects/<slug>/<name>`` for each Claude Code transcript; returns ``root``."""
    folder = root / "projects" / slug
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        src = _source("claude-code", name)
        shutil.copy(src, folder / src.name)
    return root


def codex_tree(root: Path, name: Fixture, session_id: str, archived: bool = False) -> Path:
    """``root/sessions/2025/09/25/rollout-…-<id>.jsonl`` (or ``archived_sessions/``)."""
    folder = root / ("archived_sessions" if archived else "sessions/2025/09/25")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"rollout-2025-09-25T02-12-23-{session_id}.jsonl"
    shutil.copy(_source("codex", name), target)
    return target


def vscode_tree(root: Path, name: Fixture, folder_uri: str, workspace: str = "abc123") -> Path:
    """``root/<workspace>/chatSessions/<name>`` with a ``workspace.json`` naming the folder."""
    base = root / workspace
    (base / "chatSessions").mkdir(parents=True, exist_ok=True)
    (base / "workspace.json").write_text(json.dumps({"folder": folder_uri}))
    src = _source("copilot-vscode", name)
    target = base / "chatSessions" / src.name
    shutil.copy(src, target)
    return target


def copilot_tree(root: Path, name: Fixture, session_id: str) -> Path:
    """``root/session-state/<id>/events.jsonl``."""
    folder = root / "session-state" / session_id
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "events.jsonl"
    shutil.copy(_source("copilot-cli", name), target)
    return target
