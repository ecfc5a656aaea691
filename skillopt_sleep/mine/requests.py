"""``Request``: one thing a user asked an agent for, the unit the miner groups.

Built from harvested sessions (one per turn) or read from a JSON Lines file, so the
miner and its tests do not depend on any transcript format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.mine.fingerprint import features
from skillopt_sleep.records import (
    SENTINEL,
    Reaction,
    Request,
    Session,
)


def _strings(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    raise ValueError(f"expected a string or a list of strings, got {value!r}")


def request_from_json(data: Any) -> Request:
    """One input object → ``Request``; ``ValueError`` names what is wrong with it."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in ("id", "session_id", "project", "text") if not data.get(k)]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    return Request(
        id=str(data["id"]), session_id=str(data["session_id"]), project=str(data["project"]),
        text=str(data["text"]), signal=_strings(data.get("signal", data.get("signals"))),
        source=str(data.get("source", "")), skills_used=_strings(data.get("skills_used")),
        reaction=str(data.get("reaction") or Reaction.NONE.value),
        correction=str(data.get("correction", "")),
        final_answer=str(data.get("final_answer", "")), context=str(data.get("context", "")),
        actions=_strings(data.get("actions")),
    )


def read_requests(path: Path) -> tuple[list[Request], list[str]]:
    """Requests of a JSON Lines file and one message per bad line (bad lines are skipped)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read requests file {path}: {exc}") from exc
    found: list[Request] = []
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            found.append(request_from_json(json.loads(line)))
        except ValueError as exc:  # JSONDecodeError is a ValueError
            problems.append(f"{path}:{number}: {exc}")
    return found, problems


def requests_from_sessions(sessions: Iterable[Session]) -> Iterator[Request]:
    """One request per user turn; engine replays (sentinel) and empty turns are skipped."""
    for session in sessions:
        turns = session.turns
        for i, turn in enumerate(turns):
            text = turn.request.strip()
            if not text or text.startswith(SENTINEL):
                continue
            if i and turns[i - 1].reaction == Reaction.CORRECTION.value:
                continue  # a correction is evidence about the turn before, not a new request
            follow = turns[i + 1].request if i + 1 < len(turns) else ""
            yield Request(
                id=turn.id, session_id=session.session_id, project=session.project, text=text,
                signal=list(turn.signals), source=session.source,
                skills_used=list(session.skills_used), reaction=turn.reaction,
                correction=follow if turn.reaction == Reaction.CORRECTION.value else "",
                final_answer=turn.final_answer,
                actions=features(turn.tool_calls, session.project),
            )
