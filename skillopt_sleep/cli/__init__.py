"""The CLI, a face (internal: the public API is ``skillopt_sleep``). Each command module
defines ``register(app)``; ``app.py`` builds the typer app and calls them all.

One module per area keeps ``app.py`` free of logic and lets each part own its commands:
``core`` (prove, lint), ``harvest``, ``mining`` (mine, tasks, recall), ``pipeline`` (run,
status, report), ``writeback`` (adopt, rollback, versions), ``doctor``, ``daemon`` (daemon,
enroll), ``mcp``.
"""

from __future__ import annotations

MODULES = ("core", "harvest", "mining", "pipeline", "writeback", "doctor", "daemon", "mcp",
           "claude_alias")
