"""``skillopt-sleep mcp``: the MCP server on stdio, for Copilot, VS Code and other clients."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command to ``app``."""
    app.command("mcp")(mcp_command)


def mcp_command() -> None:
    """Serve skillopt-sleep's tools over MCP on stdio (stdout carries only protocol)."""
    # Imported here so other commands do not pay for loading the MCP SDK.
    from skillopt_sleep.cli.mcp_server import serve

    serve()
