"""A night with nothing new costs nothing: it is decided from the archive before any model
check, so no SDK is imported, no endpoint contacted, and endpoints that are down do not turn
"nothing new" into "the night cannot start". The dry run plans 0 calls for it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.fakes.llm_server import FakeLLMServer

# Runs the CLI in-process and prints, after it, which model SDKs it imported.
_PROBE = (
    "import sys, json, atexit\n"
    "atexit.register(lambda: print('SDKS ' + json.dumps(sorted(m for m in sys.modules "
    "if m.split('.')[0] in ('anthropic', 'openai'))), file=sys.stderr))\n"
    "from skillopt_sleep.cli.entry import main\n"
    "sys.argv = ['skillopt-sleep', *sys.argv[1:]]\n"
    "main()\n"
)


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300, check=False)


def _sdks(done: subprocess.CompletedProcess[str]) -> list[str]:
    line = [x for x in done.stderr.splitlines() if x.startswith("SDKS ")][-1]
    return list(json.loads(line[5:]))


def test_nothing_new_with_sdk_backends_and_endpoints_down(tmp_path: Path,
                                                          isolated_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    roots = [tmp_path / "skills"]
    env = dict(os.environ, HOME=str(tmp_path / "home"), ANTHROPIC_API_KEY="k",
               OPENAI_API_KEY="k", SKILLOPT_SLEEP_HOME=str(isolated_home))
    with FakeLLMServer() as server:
        (project / ".skillopt-sleep.toml").write_text(
            'target = "anthropic:claude-haiku-4-5"\noptimizer = "openai:gpt-4.1-mini"\n'
            f'target_base_url = "{server.url}"\n'
            f'optimizer_base_url = "{server.openai_base_url}"\n'
            'embedder = "hashing"\nsources = ["claude-code"]\n'
            f"skill_roots = {json.dumps([str(r) for r in roots])}\n", encoding="utf-8")
        first = _run(env, project, "run", "--json")
        assert first.returncode == 0, first.stderr
        assert any(r.path.rstrip("/").endswith("/models") for r in server.requests)
    # The endpoints are gone now; nothing arrived since the first run.
    again = _run(env, project, "run", "--json")
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert out["skipped"].startswith("nothing new since")
    # The earlier run is named to the minute, as a reader wants it ("the run at
    # 2026-11-28 08:35 UTC"), or by its night.
    assert re.match(r"nothing new since (night \S+|the run at \d{4}-\d\d-\d\d \d\d:\d\d UTC):",
                    out["skipped"]), out["skipped"]
    assert _sdks(again) == []
    plan = _run(env, project, "run", "--dry-run", "--json")
    assert plan.returncode == 0, plan.stderr
    planned = json.loads(plan.stdout)
    assert "nothing new since" in planned["message"]
    assert _sdks(plan) == []
