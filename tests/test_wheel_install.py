"""Installed as users install it: the wheel, not the source tree, in a venv of its own.

The wheel is built from the repository and installed with ``--no-deps`` into a fresh venv;
the dependencies (torch and friends, gigabytes) come from the test venv through a ``.pth``
line, which adds their folder to ``sys.path`` without running the editable install's hook,
so ``skillopt_sleep`` itself can only come from the wheel. The commands run from an empty
folder, so nothing in the checkout can be picked up by accident.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

# A PYTHONPATH pointing at a checkout would put the source tree back in front of the wheel.
CLEAN = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(root / "dist"), str(REPO)],
        check=True, capture_output=True, text=True, env=CLEAN,
    )
    wheel = next((root / "dist").glob("skillopt_sleep-*.whl"))
    env = root / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, text=True, env=CLEAN)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], check=True, capture_output=True, text=True,
                          env=CLEAN)
    (Path(site.stdout.strip()) / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"])
    return env


def _run(env: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env / "bin" / "skillopt-sleep"), *args], cwd=cwd, env=CLEAN,
                          capture_output=True, text=True, timeout=300)


def test_the_wheel_carries_the_package_and_its_personas(wheel_env: Path, tmp_path: Path) -> None:
    code = ("import hashlib, skillopt_sleep.sim.persona as p; print(p.__file__); "
            "print(p.available()); s = p.load('supply-chain').initial_skill(); "
            "print(hashlib.sha256(s.encode()).hexdigest()); "
            "print((p.PERSONA_DIR / 'skills/dependabot/LICENSE').is_file())")
    out = subprocess.run([str(wheel_env / "bin" / "python"), "-c", code], cwd=tmp_path, env=CLEAN,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert str(wheel_env) in out[0] and str(REPO) not in out[0]
    assert out[1] == ("['analyst', 'devops', 'maintainer', 'oncall', 'platform', 'programmer', "
                      "'researcher', 'supply-chain']")
    # The real skill the supply-chain persona starts from, byte for byte, with its licence.
    real = REPO / "skillopt_sleep/sim/personas/skills/dependabot/SKILL.md"
    assert out[2] == hashlib.sha256(real.read_bytes()).hexdigest() and out[3] == "True"


def test_the_wheel_alone_runs_the_proof_and_doctor(wheel_env: Path, tmp_path: Path) -> None:
    proof = _run(wheel_env, "prove", "--persona", "researcher", "--assert-improves",
                 cwd=tmp_path)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    version = _run(wheel_env, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("skillopt-sleep ")
    doctor = _run(wheel_env, "doctor", "--json", cwd=tmp_path)
    report = json.loads(doctor.stdout.splitlines()[0])
    # Whether doctor passes depends on the machine's agent CLIs; that it loads the embedding
    # model from the installed package and inspects every source does not.
    assert report["embedding_model"].startswith("ok"), doctor.stdout + doctor.stderr
    assert set(report["sources"]) == {"claude-code", "codex", "copilot-vscode", "copilot-cli"}


def test_the_wheel_carries_the_claude_command_for_the_alias(wheel_env: Path,
                                                            tmp_path: Path) -> None:
    env = CLEAN | {"HOME": str(tmp_path / "home")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    done = subprocess.run([str(wheel_env / "bin" / "skillopt-sleep"), "claude-alias", "install"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    alias = tmp_path / "home" / ".claude" / "commands" / "skillopt-sleep.md"
    assert "skillopt-sleep-launcher status --json" in alias.read_text(encoding="utf-8")
