"""The entry point's shortcuts stay true to the typer app: the generated top-level help
says what the app's ``--help`` says, and each command is built from the module that owns
it (a command moved to another module would otherwise be "No such command")."""

from __future__ import annotations

import subprocess
import sys

import typer
from typer.testing import CliRunner

from skillopt_sleep.cli import MODULES
from skillopt_sleep.cli._build import PANELS, build
from skillopt_sleep.cli.app import app
from skillopt_sleep.cli.entry import COMMANDS, modules_for
from skillopt_sleep.cli.top_help import DATA, generate, render


def test_the_generated_help_matches_the_app() -> None:
    assert DATA.read_text(encoding="utf-8") == generate(), (
        "regenerate with: python -m skillopt_sleep.cli.top_help")


def test_the_fast_help_names_every_command_and_option_the_app_has() -> None:
    text = render("skillopt-sleep", 100)
    root = typer.main.get_command(app)
    ctx = root.make_context("skillopt-sleep", ["--help"], resilient_parsing=True)
    for name in root.list_commands(ctx):  # type: ignore[attr-defined]
        assert f"\n  {name} " in text, name
    for param in root.get_params(ctx):
        assert all(opt in text for opt in param.opts), param.opts
    assert "Exit codes: 0 success" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_each_command_is_built_from_its_own_module() -> None:
    owners: dict[str, str] = {}
    for module in MODULES:
        one = build([module])
        for info in [*one.registered_commands, *one.registered_groups]:
            owners[info.name or ""] = module
    assert owners == COMMANDS
    assert sorted(COMMANDS) == sorted(n for names in PANELS.values() for n in names)
    assert modules_for(["status", "--json"]) == ("pipeline",)
    assert modules_for(["--version"]) == MODULES
    assert modules_for(["no-such-command"]) == MODULES


def test_bare_help_is_the_fast_table_and_a_typo_still_lists_the_commands() -> None:
    fast = subprocess.run([sys.executable, "-m", "skillopt_sleep", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert fast.returncode == 0
    assert fast.stdout == render("python -m skillopt_sleep", 80)
    typo = CliRunner().invoke(app, ["stauts"])
    assert typo.exit_code == 2 and "No such command" in typo.output
