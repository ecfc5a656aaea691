"""Lay real transcript fixtures out the way each agent lays out its files, in a temp dir."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "transcripts"
if not FIXTURES.is_dir():  # the repo may sit elsewhere; the shared tree is fixed
    FIXTURES = Path("/work/shared/fixtures/transcripts")


def fixture(rel: str) -> Path:
    return FIXTURES / rel


def claude_tree(root: Path, *names: str, slug: str = "-work-demo") -> Path:
    """``root/projects/<slug>/<name>`` for each Claude Code fixture; returns ``root``."""
    folder = root / "projects" / slug
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(fixture(f"claude-code/{name}"), folder / name)
    return root


def codex_tree(root: Path, name: str, session_id: str, archived: bool = False) -> Path:
    """``root/sessions/2025/09/25/rollout-…-<id>.jsonl`` (or ``archived_sessions/``)."""
    folder = root / ("archived_sessions" if archived else "sessions/2025/09/25")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"rollout-2025-09-25T02-12-23-{session_id}.jsonl"
    shutil.copy(fixture(f"codex/{name}"), target)
    return target


def vscode_tree(root: Path, name: str, folder_uri: str, workspace: str = "abc123") -> Path:
    """``root/<workspace>/chatSessions/<name>`` with a ``workspace.json`` naming the folder."""
    base = root / workspace
    (base / "chatSessions").mkdir(parents=True, exist_ok=True)
    (base / "workspace.json").write_text(json.dumps({"folder": folder_uri}))
    target = base / "chatSessions" / name
    shutil.copy(fixture(f"copilot-vscode/{name}"), target)
    return target


def copilot_tree(root: Path, name: str, session_id: str) -> Path:
    """``root/session-state/<id>/events.jsonl``."""
    folder = root / "session-state" / session_id
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "events.jsonl"
    shutil.copy(fixture(f"copilot-cli/{name}"), target)
    return target
