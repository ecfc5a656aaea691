"""Help text reads as sentences wherever a user or an agent meets it: every command's and
option's help in the typer app, and every MCP tool's description (and its parameters'), carry
no reST backticks and no rich markup, and break no sentence in two."""

from __future__ import annotations

import re
from typing import Any

import anyio
import typer

from skillopt_sleep.cli._text import plain_help
from skillopt_sleep.cli.app import app
from skillopt_sleep.cli.mcp_server import build_server

MARKUP = re.compile(r"`|\[/?(?:bold|dim|italic|red|green|yellow|blue|cyan|magenta)\b")


def leaks(text: str | None) -> list[str]:
    """What is wrong with one help text: markup, or a line break inside a paragraph."""
    if not text:
        return []
    found = [f"markup {m.group(0)!r}" for m in MARKUP.finditer(text)]
    found += ["a line break mid-paragraph" for p in text.split("\n\n") if "\n" in p.strip()]
    return found


def command_helps() -> dict[str, str | None]:
    """Every command's and option's help text, by where it is."""
    helps: dict[str, str | None] = {}

    def walk(path: str, command: Any) -> None:
        helps[path or "(top)"] = command.help
        for param in command.params:
            helps[f"{path} {'/'.join(getattr(param, 'opts', []))}"] = getattr(param, "help", None)
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(f"{path} {name}".strip(), sub)

    walk("", typer.main.get_command(app))
    return helps


def tool_descriptions() -> dict[str, str | None]:
    async def listed() -> list[Any]:
        return list(await build_server().list_tools())

    texts: dict[str, str | None] = {}
    for tool in anyio.run(listed):
        texts[tool.name] = tool.description
        for name, prop in tool.input_schema.get("properties", {}).items():
            texts[f"{tool.name}.{name}"] = prop.get("description")
    return texts


def test_the_check_sees_leaks() -> None:
    assert leaks("Run ``status``.") and leaks("[bold]x[/bold]") and leaks("one\nsentence")
    assert not leaks("One paragraph.\n\nAnother one [pricing] keeps its brackets.")
    assert plain_help("Run ``status``\n   now.\n\n[dim]Then[/dim] `report`.") == \
        "Run status now.\n\nThen report."


def test_every_command_and_option_help_is_plain() -> None:
    helps = command_helps()
    assert len(helps) > 50  # the walk reached the options
    bad = {where: leaks(text) for where, text in helps.items() if leaks(text)}
    assert bad == {}


def test_every_mcp_tool_description_is_plain() -> None:
    texts = tool_descriptions()
    assert {"sleep_status", "sleep_run", "sleep_report"} <= set(texts)
    assert all(texts[name] for name in texts if "." not in name)  # every tool says something
    bad = {where: leaks(text) for where, text in texts.items() if leaks(text)}
    assert bad == {}
