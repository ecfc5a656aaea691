"""Mutation score of the modules that carry the README's promises.

Each module of ``experiments/mutation_targets.toml`` (or those named with ``--modules``) is
mutated by ``mutmut`` (3.x; ``pip install 'mutmut==3.8.1'``) in a scratch copy of the
repository's tracked files, against the test files the table names, and the score is
printed per module: killed / (mutants − equivalent), a timeout counting as killed (the
mutant hangs the tests, which fail). Equivalent mutants are listed in the table by name,
with the reason and the diff line that makes them so; a listed name whose diff no longer
matches is counted as a survivor and reported.

    python experiments/mutation_score.py                       # the default modules
    python experiments/mutation_score.py --modules skillopt_sleep/night/gate.py --survivors
    python experiments/mutation_score.py --modules skillopt_sleep/secrets.py   # opt-in ones

Why mutmut and not cosmic-ray: see docs-draft/mutation.md (mutmut runs each mutant in a
fork of one warmed-up pytest and only the tests that reach the mutated function;
cosmic-ray starts the whole test command once per mutant).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGETS = REPO / "experiments" / "mutation_targets.toml"
KILLED = {"killed", "timeout", "caught by type check"}
_RESULT = re.compile(r"^\s+(\S+): (.+)$")


@dataclass
class Target:
    module: str
    tests: list[str]
    functions: list[str] = field(default_factory=list)
    deselect: list[str] = field(default_factory=list)
    default: bool = True


@dataclass
class Score:
    module: str
    statuses: dict[str, str]
    equivalent: dict[str, str]
    stale: list[str]
    seconds: float

    @property
    def counted(self) -> dict[str, str]:
        return {k: v for k, v in self.statuses.items() if k not in self.equivalent}

    @property
    def killed(self) -> int:
        return sum(v in KILLED for v in self.counted.values())

    @property
    def survivors(self) -> list[str]:
        return sorted(k for k, v in self.counted.items() if v not in KILLED)

    @property
    def score(self) -> float | None:
        return self.killed / len(self.counted) if self.counted else None

    def row(self) -> dict[str, Any]:
        by = {s: sum(v == s for v in self.counted.values())
              for s in sorted(set(self.statuses.values()))}
        return {"module": self.module, "mutants": len(self.statuses),
                "equivalent": len(self.equivalent), "killed": self.killed,
                "not_killed": len(self.survivors), "by_status": by,
                "score": None if self.score is None else round(self.score, 4),
                "stale_equivalent": self.stale, "survivors": self.survivors,
                "seconds": round(self.seconds, 1)}


def load_targets(path: Path) -> tuple[list[Target], dict[str, dict[str, str]]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    targets = [Target(**t) for t in data.get("target", [])]
    return targets, data.get("equivalent", {})


def choose(targets: list[Target], names: list[str] | None, tests: list[str] | None
           ) -> list[Target]:
    if not names:
        return [t for t in targets if t.default]
    by_module = {t.module: t for t in targets}
    chosen = []
    for name in names:
        if name in by_module:
            chosen.append(by_module[name] if not tests else Target(name, tests))
        elif tests:
            chosen.append(Target(name, tests))
        else:
            raise SystemExit(f"error: {name} is not in {TARGETS.name}; name its tests with "
                             "--tests")
    return chosen


def scratch_copy(into: Path) -> None:
    """The repository's files at HEAD (the score is of a commit; edits not committed are
    not measured, and a hand-applied mutation in the worktree cannot leak into a run)."""
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=REPO,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def configure(work: Path, target: Target, timeout_multiplier: float) -> None:
    """mutmut reads its settings from the scratch copy's pyproject.toml."""
    settings = {
        "source_paths": ["skillopt_sleep"],
        "only_mutate": [target.module],
        "pytest_add_cli_args_test_selection": target.tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-m", "not slow",
                                *(f"--deselect={d}" for d in target.deselect)],
        "timeout_multiplier": timeout_multiplier,
        "use_git_change_detection": False,
    }
    lines = ["", "[tool.mutmut]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    with (work / "pyproject.toml").open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def mutmut(work: Path, *args: str, timeout: float | None = None
           ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def _function(mutant: str) -> str:
    """``pkg.mod.x_check__mutmut_3`` → ``check``; a method's ``xǁClassǁname__mutmut_1`` →
    ``name``."""
    base = mutant.rsplit(".", 1)[-1].split("__mutmut_")[0]
    return base.split("ǁ")[-1] if "ǁ" in base else base.removeprefix("x_")


def measure(target: Target, equivalent: dict[str, dict[str, str]], children: int,
            timeout_multiplier: float, keep: Path | None) -> Score:
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="mutation-", dir=keep))
    try:
        scratch_copy(work)
        configure(work, target, timeout_multiplier)
        done = mutmut(work, "run", "--max-children", str(children))
        listed = mutmut(work, "results", "--all", "true")
        statuses = {m.group(1): m.group(2) for line in listed.stdout.splitlines()
                    if (m := _RESULT.match(line))}
        if not statuses:
            raise SystemExit(f"error: mutmut found no mutants in {target.module}:\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        if target.functions:
            statuses = {k: v for k, v in statuses.items() if _function(k) in target.functions}
        honoured, stale = {}, []
        for name in statuses:
            if name in equivalent:
                shown = mutmut(work, "show", name).stdout
                if equivalent[name].get("diff", "\0") in shown:
                    honoured[name] = equivalent[name]["reason"]
                else:
                    stale.append(name)
        return Score(target.module, statuses, honoured, stale, time.monotonic() - start)
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def show_survivors(score: Score, keep: Path | None) -> None:
    for name in score.survivors:
        print(f"  survivor {name} ({score.statuses[name]})")


def commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                           capture_output=True, text=True).stdout.strip()
    return head + (" (uncommitted edits are not measured)" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", help="comma-separated module paths (default: the table's "
                    "default ones)")
    ap.add_argument("--tests", help="comma-separated test files for --modules (overrides "
                    "the table)")
    ap.add_argument("--targets", type=Path, default=TARGETS, help="the table to read")
    ap.add_argument("--max-children", type=int, default=2, help="mutants run at once")
    ap.add_argument("--timeout-multiplier", type=float, default=5.0,
                    help="a mutant times out after this many times its tests' clean time")
    ap.add_argument("--survivors", action="store_true", help="list the mutants not killed")
    ap.add_argument("--keep", type=Path, help="keep each scratch copy under this folder "
                    "(then `mutmut show NAME` there shows a mutant)")
    ap.add_argument("--json", action="store_true", help="one JSON line per module")
    args = ap.parse_args(argv)
    targets, equivalent = load_targets(args.targets)
    chosen = choose(targets, args.modules.split(",") if args.modules else None,
                    args.tests.split(",") if args.tests else None)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"mutmut over {len(chosen)} module(s) at commit {commit()}", file=sys.stderr)
    total_killed = total_counted = 0
    for target in chosen:
        score = measure(target, equivalent, args.max_children, args.timeout_multiplier,
                        args.keep)
        row = score.row()
        total_killed += score.killed
        total_counted += len(score.counted)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            pct = "n/a" if score.score is None else f"{100 * score.score:.1f} %"
            print(f"{target.module}: {pct} ({score.killed} of {len(score.counted)} killed, "
                  f"{len(score.equivalent)} equivalent, by status {row['by_status']}, "
                  f"{row['seconds']} s)", flush=True)
            if args.survivors:
                show_survivors(score, args.keep)
        for name in score.stale:
            print(f"  stale equivalent entry (diff moved): {name}", file=sys.stderr)
    if total_counted:
        print(f"all: {100 * total_killed / total_counted:.1f} % "
              f"({total_killed} of {total_counted} non-equivalent mutants killed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
