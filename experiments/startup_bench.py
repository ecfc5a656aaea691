"""Start-up of ``skillopt-sleep --help`` and ``status`` against upstream's CLI, and a
nothing-new night against ``status``: paired, interleaved runs, the median of the ratios.

Upstream is microsoft/SkillOpt's ``skillopt_sleep`` (the ``skillopt`` 0.2.0 wheel on PyPI,
an argparse CLI). It is not a dependency; unpack it anywhere and pass the folder::

    pip download skillopt==0.2.0 --no-deps -d /tmp/up && unzip -q /tmp/up/*.whl -d /tmp/up/whl
    .venv/bin/python experiments/startup_bench.py --upstream /tmp/up/whl [--rounds 21]

Without ``--upstream`` the baseline is ``startup_baseline.py`` beside this file: a minimal
argparse CLI with our 18 commands and their one-line helps, whose ``status`` opens the
archive with sqlite3 and prints one JSON line (the floor any Python CLI pays, not
upstream's figure). Both sides run under the same interpreter with ``python -m``, in fresh
state folders, so the interpreter's own start-up and ``site`` are in both.

Each round runs every command once, in a shuffled order, and each figure is the child's
CPU time (user + system, from ``getrusage``; wall time drifts with the load of a shared
machine, CPU time much less); a ratio is taken within a round and the median over rounds is
printed. ``status`` is timed on an empty state and with one project enrolled (whose next
run, without a daemon, is apscheduler's answer kept until it passes: ``daemon.next_run``).
The nothing-new night uses real SDK backends (Anthropic and OpenAI specs) whose endpoints
were up for a first night and are closed for the timed ones: the issue asks for exit 0, no
SDK imported (``tests/test_nothing_new_free.py`` checks that) and at most 1.5x the CPU of
``status``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).with_name("startup_baseline.py")


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """The child's CPU seconds (user + system); it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-800:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def nothing_new_project(base: Path, env: dict[str, str]) -> Path:
    """A project whose first night ran against live fake endpoints (now closed)."""
    sys.path.insert(0, str(ROOT))
    from tests.fakes.llm_server import FakeLLMServer

    project = base / "project"
    project.mkdir()
    with FakeLLMServer() as server:
        (project / ".skillopt-sleep.toml").write_text(
            'target = "anthropic:claude-haiku-4-5"\noptimizer = "openai:gpt-4.1-mini"\n'
            f'target_base_url = "{server.url}"\n'
            f'optimizer_base_url = "{server.openai_base_url}"\n'
            'embedder = "hashing"\nsources = ["claude-code"]\n'
            f'skill_roots = ["{base / "skills"}"]\n', encoding="utf-8")
        cpu_of([sys.executable, "-m", "skillopt_sleep", "run", "--json"], env, project)
    return project


def commands(upstream: Path | None, base: Path) -> dict[str, tuple[list[str], dict, Path]]:
    """Every command timed, with its environment and working folder. Bytecode is written
    (to a cache folder of the run's own) as an installed package has it: a checkout run with
    PYTHONDONTWRITEBYTECODE would compile every module on every start, on both sides."""
    common = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    common["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    ours = common | {"PYTHONPATH": str(ROOT), "SKILLOPT_SLEEP_HOME": str(base / "ours"),
                         "HOME": str(base / "home"), "ANTHROPIC_API_KEY": "k",
                         "OPENAI_API_KEY": "k"}
    (base / "home").mkdir()
    theirs = common | {"HOME": str(base / "home-upstream"),
                           "SKILLOPT_SLEEP_HOME": str(base / "upstream")}
    (base / "home-upstream").mkdir()
    if upstream is not None:
        theirs["PYTHONPATH"] = str(upstream)
        base_cmd = [sys.executable, "-m", "skillopt_sleep"]
    else:
        base_cmd = [sys.executable, str(BASELINE)]
    project = nothing_new_project(base, ours)
    me = [sys.executable, "-m", "skillopt_sleep"]
    enrolled = ours | {"SKILLOPT_SLEEP_HOME": str(base / "ours-enrolled")}
    config = base / "ours-enrolled" / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[projects."{project}"]\nhour = 4\nminute = 30\n', encoding="utf-8")
    return {
        "ours --help": ([*me, "--help"], ours, base),
        "base --help": ([*base_cmd, "--help"], theirs, base),
        "ours status": ([*me, "status"], ours, base),
        "ours status, a project enrolled": ([*me, "status"], enrolled, base),
        "base status": ([*base_cmd, "status"], theirs, base),
        "ours nothing-new run": ([*me, "run", "--json"], ours, project),
    }


def measure(rounds: int, upstream: Path | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        table = commands(upstream, Path(tmp))
        cpu: dict[str, list[float]] = {name: [] for name in table}
        for argv, env, cwd in table.values():  # warm-up: writes both sides' bytecode
            cpu_of(argv, env, cwd)
        for _ in range(rounds):
            order = list(table)
            random.shuffle(order)
            for name in order:
                argv, env, cwd = table[name]
                cpu[name].append(cpu_of(argv, env, cwd))
    ratios = {
        "--help / baseline": [a / b for a, b in zip(cpu["ours --help"], cpu["base --help"],
                                                    strict=True)],
        "status / baseline": [a / b for a, b in zip(cpu["ours status"], cpu["base status"],
                                                    strict=True)],
        "status, a project enrolled / baseline": [a / b for a, b in zip(
            cpu["ours status, a project enrolled"], cpu["base status"], strict=True)],
        "nothing-new run / status": [a / b for a, b in zip(
            cpu["ours nothing-new run"], cpu["ours status"], strict=True)],
    }
    return {
        "baseline": f"upstream at {upstream}" if upstream else f"argparse ({BASELINE.name})",
        "rounds": rounds,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "median_cpu_ms": {k: round(1000 * statistics.median(v), 1) for k, v in cpu.items()},
        "median_ratio": {k: round(statistics.median(v), 3) for k, v in ratios.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--upstream", type=Path, default=None,
                        help="folder holding upstream's skillopt_sleep package")
    args = parser.parse_args()
    if args.upstream is not None and not (args.upstream / "skillopt_sleep").is_dir():
        parser.error(f"{args.upstream} holds no skillopt_sleep package")
    print(json.dumps(measure(args.rounds, args.upstream), indent=2))


if __name__ == "__main__":
    main()
