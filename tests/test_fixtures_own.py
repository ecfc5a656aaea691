"""The suite is self-contained: its fixtures are the project's own, it reads nothing outside
the repository, and a clone with no ``shared/`` folder beside it runs the fixture tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ._harvest_layout import FIXTURES, REPO
from ._require import require
from .fixtures import write_transcripts

# Absolute paths of a machine (a developer's home, this project's work tree, a mount).
OUTSIDE = re.compile(r"(?<![\w.~])/(?:work|root|home|Users|mnt)/")
SCANNED = ("tests", "experiments", "skillopt_sleep")
TEXT = {".py", ".md", ".json", ".jsonl", ".toml", ".txt", ".sh", ".cfg", ".yaml"}


def test_committed_fixtures_are_what_the_writer_writes() -> None:
    rendered = write_transcripts.rendered()
    for name, body in rendered.items():
        assert (FIXTURES / name).read_text("utf-8") == body, \
            f"{name} differs: run python -m tests.fixtures.write_transcripts"
    cli = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("cli-*")}
    on_disk = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()}
    assert on_disk == set(rendered) | cli  # nothing hand-edited or left over
    assert len(cli) == 3


def test_no_path_outside_the_repository() -> None:
    found = []
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix not in TEXT or not path.is_file() or path == Path(__file__):
                continue
            for number, line in enumerate(path.read_text("utf-8", "replace").splitlines(), 1):
                if OUTSIDE.search(line):
                    found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:90]}")
    assert found == []


def _clone(target: Path) -> Path:
    """The working tree's files as git would ship them (tracked and new, not ignored)."""
    git = shutil.which("git")
    require(git is not None and (REPO / ".git").exists(), "not a git checkout")
    assert git is not None
    names = subprocess.run([git, "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True).stdout
    for name in names.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _pytest(clone: Path, *args: str, require_all: bool = False
            ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SKILLOPT_SLEEP_REQUIRE_ALL", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(clone)
    if require_all:
        env["SKILLOPT_SLEEP_REQUIRE_ALL"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rs", *args], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=300)


def test_a_clone_without_shared_beside_it_runs_the_fixture_tests(tmp_path: Path) -> None:
    clone = _clone(tmp_path / "clone")
    assert not (tmp_path / "shared").exists()
    which = subprocess.run([sys.executable, "-c", "import skillopt_sleep; "
                            "print(skillopt_sleep.__file__)"], cwd=clone, capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(clone)}, check=True)
    assert which.stdout.startswith(str(clone))  # the clone's package, not the install's
    done = _pytest(clone, "tests/test_harvest_fixtures.py", "tests/test_harvest_shared_corpus.py",
                   "tests/test_fixtures_own.py", "-k", "not clone")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    counts = dict((kind, int(n)) for n, kind in re.findall(r"(\d+) (passed|skipped)",
                                                            done.stdout))
    assert counts["passed"] >= 25 and counts["skipped"] >= 20, done.stdout[-500:]
    assert "shared public transcripts are not beside the repository" in done.stdout
    # Under SKILLOPT_SLEEP_REQUIRE_ALL=1 the missing corpus fails instead of skipping.
    strict = _pytest(clone, "tests/test_harvest_shared_corpus.py", "-x", require_all=True)
    assert strict.returncode == 1 and "required for the full suite" in strict.stdout
