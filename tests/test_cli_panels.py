"""``--help`` reads like its peers: commands in panels in the order a user meets them, help
text as sentences (no docstring line breaks, no reST backticks), exit codes in the epilog."""

from __future__ import annotations

import os
import subprocess
import sys

from skillopt_sleep.cli.app import PANELS, app, plain_help
from skillopt_sleep.cli.exit_codes import EXIT_CODES


def _help(*args: str) -> str:
    env = dict(os.environ, COLUMNS="100", TERM="dumb")
    done = subprocess.run([sys.executable, "-m", "skillopt_sleep", *args, "--help"],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    return done.stdout


def test_every_command_is_in_one_panel_in_the_users_order() -> None:
    names = [c.name for c in app.registered_commands] + [g.name for g in app.registered_groups]
    listed = [n for names_ in PANELS.values() for n in names_]
    assert sorted(names) == sorted(listed) and len(set(listed)) == len(listed)
    text = _help()
    starts = [text.index(panel) for panel in PANELS]
    assert starts == sorted(starts)
    assert text.index(" run ") < text.index(" harvest ") < text.index(" prove ")


def test_help_is_sentences_without_markup() -> None:
    assert plain_help("Mine the sessions (a preview: the\n    nights' ``state`` is never\n"
                      "    written).\n\n    Second `part`.") == (
        "Mine the sessions (a preview: the nights' state is never written).\n\nSecond part.")
    for group in [app, *(g.typer_instance for g in app.registered_groups if g.typer_instance)]:
        for info in group.registered_commands:
            assert info.help and "`" not in info.help and "\n " not in info.help, info.name
    assert "`" not in _help("tasks") and "never written" in _help("mine").replace("\n", " ")


def test_the_epilog_lists_every_exit_code() -> None:
    text = " ".join(_help().split())
    for code, short, _ in EXIT_CODES:
        assert f"{code} {short}" in text
