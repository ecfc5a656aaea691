"""README's install for daily use, run as written: a fresh venv, torch's CPU build first, then
the project, then ``prove`` from an empty folder with the installed command.

The commands are read from README's "Install for daily use" block, so a README that stops
working fails here. Three substitutions make them runnable in a test: the venv lives in a
temporary folder, ``/path/to/this/clone`` is this repository, and the symlink goes into a
temporary ``bin``. Where PyTorch's CPU index cannot be reached (a CI machine that reaches
only PyPI), ``--index-url`` is dropped and torch comes from the machine's own pip
configuration; the test then checks that what it installed is the CPU build all the same.
Required under ``SKILLOPT_SLEEP_REQUIRE_ALL=1``; a few minutes with a warm pip cache.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests._require import require

REPO = Path(__file__).resolve().parents[1]
VENV = "~/.local/share/skillopt-sleep/venv"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"

pytestmark = pytest.mark.slow

CLEAN = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def readme_install() -> list[str]:
    """The commands of README's "Install for daily use" block, continuations joined."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Install for daily use", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "README's install section has no sh block"
    return [line.strip() for line in block.group(1).replace("\\\n", " ").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _reachable(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=5).close()
    except OSError:
        return False
    return True


def runnable(commands: list[str], venv: Path, bin_dir: Path, index_ok: bool) -> list[list[str]]:
    """README's commands with the test's venv, this clone, and a temporary ``bin``."""
    out = []
    for command in commands:
        argv = shlex.split(command.replace(VENV, str(venv))
                           .replace("/path/to/this/clone", str(REPO))
                           .replace("~/.local/bin/", f"{bin_dir}/"))
        if not index_ok and "--index-url" in argv:
            at = argv.index("--index-url")
            assert argv[at + 1] == TORCH_INDEX
            del argv[at:at + 2]
        out.append(argv)
    return out


def test_readme_block_is_what_this_test_runs() -> None:
    commands = readme_install()
    assert commands[0].startswith("python3 -m venv ")
    assert any("torch==" in c and TORCH_INDEX in c for c in commands)
    # torch comes first: whatever resolves torch afterwards reuses the CPU build.
    assert next(i for i, c in enumerate(commands) if "torch==" in c) < next(
        i for i, c in enumerate(commands) if "/path/to/this/clone" in c)


@pytest.mark.timeout(3600)  # a fresh venv of 1.6 GB: minutes on a quiet machine, more on a busy one
def test_readme_install_gives_a_working_command_on_cpu_torch(tmp_path: Path) -> None:
    require(subprocess.run(["python3", "-c", "import ensurepip"], capture_output=True)
            .returncode == 0, "python3 has no ensurepip (python3-venv)")
    venv, bin_dir = tmp_path / "venv", tmp_path / "bin"
    bin_dir.mkdir()
    for argv in runnable(readme_install(), venv, bin_dir, _reachable(TORCH_INDEX)):
        done = subprocess.run(argv, capture_output=True, text=True, env=CLEAN, timeout=1800)
        assert done.returncode == 0, f"{shlex.join(argv)}:\n{done.stderr[-3000:]}"
    python = venv / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import torch; print(torch.version.cuda)"],
                           capture_output=True, text=True, env=CLEAN, check=True)
    assert probe.stdout.strip() == "None"  # the CPU build
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, env=CLEAN, check=True).stdout
    assert "nvidia-" not in listed.lower()
    folder = tmp_path / "empty"
    folder.mkdir()
    proof = subprocess.run([str(bin_dir / "skillopt-sleep"), "prove", "--persona", "researcher",
                            "--assert-improves"], cwd=folder, capture_output=True, text=True,
                           env=dict(CLEAN, HOME=str(tmp_path / "home"),
                                    SKILLOPT_SLEEP_HOME=str(tmp_path / "state")), timeout=900)
    assert proof.returncode == 0, proof.stdout[-2000:] + proof.stderr[-2000:]
    assert str(REPO) not in subprocess.run(
        [str(python), "-c", "import skillopt_sleep; print(skillopt_sleep.__file__)"],
        cwd=folder, capture_output=True, text=True, env=CLEAN, check=True).stdout
