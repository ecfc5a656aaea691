"""CLI command groups. Each module defines ``register(app)``; ``cli.py`` calls them all.

One module per area keeps ``cli.py`` free of logic and lets each part own its commands:
``core`` (prove, lint), ``harvest``, ``mining`` (mine, tasks, recall), ``pipeline`` (run,
status, report, adopt, rollback, versions), ``doctor``, ``daemon`` (daemon, enroll), ``mcp``.
"""

from __future__ import annotations

MODULES = ("core", "harvest", "mining", "pipeline", "doctor", "daemon", "mcp")
