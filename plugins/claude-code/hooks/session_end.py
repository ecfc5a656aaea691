#!/usr/bin/env python3
"""Claude Code SessionEnd hook: queue the finished session's transcript for the next night.

Reads the hook's JSON from stdin (bounded in size and time, because a client that never
closes stdin must not hang the session's exit), appends one line
``{"session_id", "transcript_path", "ended_at", "source"}`` to
``<state dir>/queue/sessions.jsonl`` and exits 0 well within a second. Standard library
only: the hook runs under whatever ``python3`` is on PATH, not the engine's interpreter.
It never fails the session: problems go to stderr as one line and the exit code stays 0
(the engine's transcript watcher is the fallback for anything not queued here).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

APP = "skillopt-sleep"
MAX_BYTES = 1 << 20
READ_SECONDS = 0.5
SOURCE = "claude-code"


def state_dir() -> Path:
    """The engine's state dir (``skillopt_sleep.paths.state_dir``), without importing it.

    ``SKILLOPT_SLEEP_HOME`` wins; then platformdirs when this interpreter has it; then the
    same rules platformdirs applies, so the queue lands where ``run`` looks for it.
    """
    home = os.environ.get("SKILLOPT_SLEEP_HOME")
    if home:
        return Path(home).expanduser() / "state"
    try:
        import platformdirs
    except ImportError:
        return _platform_state_dir()
    return Path(platformdirs.user_state_dir(APP))


def _platform_state_dir() -> Path:
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / APP / APP
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    return Path(xdg if xdg else Path.home() / ".local" / "state") / APP


def read_payload(stream: object = None) -> bytes:
    """At most ``MAX_BYTES`` from stdin, giving up after ``READ_SECONDS`` (never raises)."""
    chunks: list[bytes] = []
    fd = sys.stdin.fileno() if stream is None else stream.fileno()  # type: ignore[attr-defined]

    def pump() -> None:
        size = 0
        try:
            while size < MAX_BYTES:
                chunk = os.read(fd, min(65536, MAX_BYTES - size))
                if not chunk:
                    return
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            return

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    reader.join(READ_SECONDS)
    return b"".join(chunks)


def queue_line(raw: bytes) -> str:
    """The queue line for a SessionEnd payload; ``ValueError`` says what is wrong with it."""
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"payload is not JSON ({exc.msg})") from None
    if not isinstance(payload, dict):
        raise ValueError("payload is not a JSON object")
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        raise ValueError("payload has no transcript_path")
    session_id = payload.get("session_id")
    record = {
        "session_id": session_id if isinstance(session_id, str) else None,
        "transcript_path": transcript,
        # timezone.utc, not datetime.UTC: the system python3 may predate 3.11.
        "ended_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),  # noqa: UP017
        "source": SOURCE,
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


def append(line: str, queue: Path) -> None:
    """One ``write`` on an O_APPEND descriptor, so concurrent hooks never interleave a line."""
    queue.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(queue, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def main() -> int:
    try:
        line = queue_line(read_payload())
        append(line, state_dir() / "queue" / "sessions.jsonl")
    except (ValueError, OSError) as exc:
        print(f"skillopt-sleep hook: session not queued: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
