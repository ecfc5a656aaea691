"""The argparse floor for ``startup_bench.py`` when upstream's wheel is not at hand: a
minimal CLI with skillopt-sleep's 18 commands and their one-line helps. ``status`` opens
the archive read-only with sqlite3 (when there is one) and prints one JSON line, the least
a status command does. It is a floor, not upstream: say which one a figure was taken
against."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path

COMMANDS = {
    "run": "Harvest what is new, mine tasks, run the night, stage the proposal.",
    "status": "What the last nights did, what is pending review, what is adopted where.",
    "report": "The night's HTML report.",
    "adopt": "Write a staged proposal into every skill dir as one transaction.",
    "rollback": "Undo a skill's last write.",
    "versions": "Every recorded version of a skill.",
    "doctor": "Sources found, backends checked, state location, stale locks.",
    "enroll": "Let the daemon serve a project.",
    "unenroll": "Stop serving a project.",
    "daemon": "The background service: nightly runs and session watching.",
    "claude-alias": "A bare /skillopt-sleep in Claude Code.",
    "mcp": "Serve skillopt-sleep's tools over MCP on stdio.",
    "harvest": "Harvest new agent sessions into the archive and print them.",
    "mine": "Group requests into recurring task families.",
    "tasks": "Mine the archived sessions into tasks and list them.",
    "recall": "The nearest past train tasks to TASK.",
    "lint": "Check skill documents with the edit firewall's rules.",
    "prove": "Run nights over a simulated persona.",
}


def status() -> int:
    home = Path(os.environ.get("SKILLOPT_SLEEP_HOME", Path.home() / ".skillopt-sleep"))
    archive = home / "state" / "archive.sqlite3"
    nights = 0
    if archive.exists():
        conn = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
        try:
            nights = conn.execute("SELECT count(*) FROM nights").fetchone()[0]
        finally:
            conn.close()
    print(json.dumps({"summary": {"nights": nights, "state_dir": str(home / "state")}}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="skillopt-sleep",
        description="Nightly, offline, validation-gated self-evolution of coding-agent skills.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in COMMANDS.items():
        one = sub.add_parser(name, help=text)
        one.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    return status() if args.command == "status" else 0


if __name__ == "__main__":
    raise SystemExit(main())
