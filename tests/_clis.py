"""The real agent CLIs, installed from npm at pinned versions into a cache dir.

Versions are pinned exactly: with Node 20 a bare ``npm install`` silently picks an older
release. ``.ci/run`` pre-installs them; tests install on first use when npm is present.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from filelock import FileLock

from ._require import require

PINS = {
    "claude": ("@anthropic-ai/claude-code", "2.1.330"),
    "codex": ("@openai/codex", "0.169.0"),
    "copilot": ("@github/copilot", "1.0.102"),
    "mcp-inspector": (
        "@modelcontextprotocol/inspector",
        "0.15.0",
    ),  # binary: mcp-inspector; 0.16+ needs Node 22
}


def cache_root() -> Path:
    default = Path.home() / ".cache" / "skillopt-sleep-test-clis"
    return Path(os.environ.get("SKILLOPT_SLEEP_CLI_CACHE", default))


def cli(name: str) -> Path:
    """Path to the named CLI's executable, installing it if needed; skips/fails if impossible."""
    package, version = PINS[name]
    require(shutil.which("npm") is not None, f"npm is not installed, cannot install {package}")
    prefix = cache_root() / f"{name}-{version}"
    binary = _binary(prefix, name)
    with FileLock(str(prefix) + ".lock"):
        if binary is None:
            prefix.mkdir(parents=True, exist_ok=True)
            result = subprocess.run(
                [
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(prefix),
                    f"{package}@{version}",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            require(
                result.returncode == 0,
                f"npm install {package}@{version} failed: {result.stderr[-500:]}",
            )
            binary = _binary(prefix, name)
    require(binary is not None, f"{package}@{version} installed no '{name}' executable")
    assert binary is not None
    return binary


def _binary(prefix: Path, name: str) -> Path | None:
    exe = "mcp-inspector" if name == "mcp-inspector" else name
    path = prefix / "node_modules" / ".bin" / exe
    return path if path.exists() else None
