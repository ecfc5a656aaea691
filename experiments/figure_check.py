"""Re-run the quick figures the docs quote and say which moved.

Each figure of ``experiments/figures.toml`` names the doc that quotes it (a line of the doc
holds its ``quote``, which holds the quoted value), the commit the doc says it was
measured at (within a few lines of the quote), the command that measures it and how to
read the value from that command's output (a key path into its JSON, or a regular
expression's first group). Each command runs once, however many figures read it.

    python experiments/figure_check.py                 # every figure
    python experiments/figure_check.py --list          # what would run, nothing run
    python experiments/figure_check.py --figure prove-after --figure full-after

Prints one row per figure (status, doc file:line, quoted, measured, commit quoted) and
exits 1 when a figure moved beyond its tolerance, a quote or its commit is no longer in
the doc, or a command failed; 0 when every figure holds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REGISTRY = REPO / "experiments" / "figures.toml"
# How far from its quote a figure's commit may be written (a sentence wraps over lines).
COMMIT_WINDOW = 4
_NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Command:
    name: str
    run: list[str]
    seconds: float
    """About how long it takes on a quiet machine (for ``--list``)."""


@dataclass(frozen=True)
class Figure:
    name: str
    command: str
    doc: str
    quote: str
    value: float
    commit: str
    tolerance: float
    json: str = ""
    regex: str = ""


@dataclass(frozen=True)
class Located:
    """Where a figure's quote stands in its doc (line 0: not found) and what is wrong."""

    line: int
    problem: str = ""


@dataclass(frozen=True)
class Outcome:
    figure: Figure
    where: str
    status: str
    measured: float | None = None
    detail: str = ""


def load(path: Path) -> tuple[dict[str, Command], list[Figure]]:
    """The registry: its commands by name and its figures, each figure's command known."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    commands = {name: Command(name, list(c["run"]), float(c.get("seconds", 0)))
                for name, c in data.get("command", {}).items()}
    figures = [Figure(**f) for f in data.get("figure", [])]
    for f in figures:
        if f.command not in commands:
            raise ValueError(f"figure {f.name!r} names no known command {f.command!r}")
        if bool(f.json) == bool(f.regex):
            raise ValueError(f"figure {f.name!r} needs one of `json` or `regex`")
    names = [f.name for f in figures]
    if len(set(names)) != len(names):
        raise ValueError("figure names repeat: " + ", ".join(sorted(
            {n for n in names if names.count(n) > 1})))
    return commands, figures


def numbers(text: str) -> list[float]:
    """Every number written in ``text`` (thousands commas dropped, a typographic minus
    read as one)."""
    return [float(m.replace(",", "").replace("−", "-")) for m in _NUMBER.findall(text)]


def locate(figure: Figure, lines: list[str]) -> Located:
    """The doc line holding the figure's quote, checked: the quote holds the figure's
    value, and its commit is written within ``COMMIT_WINDOW`` lines of it."""
    if not any(math_close(n, figure.value) for n in numbers(figure.quote)):
        return Located(0, f"the quote {figure.quote!r} does not hold the value {figure.value}")
    hits = [i for i, line in enumerate(lines) if figure.quote in line]
    if not hits:
        return Located(0, f"the quote {figure.quote!r} is no longer in {figure.doc}")
    i = hits[0]
    near = lines[max(0, i - COMMIT_WINDOW): i + COMMIT_WINDOW + 1]
    if not any(figure.commit in line for line in near):
        return Located(i + 1, f"no commit {figure.commit} within {COMMIT_WINDOW} lines")
    return Located(i + 1)


def math_close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def read_value(figure: Figure, output: str) -> float:
    """The figure's value in a command's standard output; ``ValueError`` when absent."""
    if figure.regex:
        m = re.search(figure.regex, output, re.MULTILINE)
        if m is None:
            raise ValueError(f"no match for {figure.regex!r}")
        return numbers(m.group(1))[0]
    doc: Any = json.loads(output)
    for key in figure.json.split("."):
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    if not isinstance(doc, (int, float)) or isinstance(doc, bool):
        raise ValueError(f"{figure.json} is {doc!r}, not a number")
    return float(doc)


def compare(figure: Figure, measured: float) -> str:
    """``held`` within the figure's tolerance (a hair of float slack), else ``moved``."""
    return "held" if abs(measured - figure.value) <= figure.tolerance + 1e-9 else "moved"


def run(command: Command) -> tuple[str, str]:
    """The command's standard output, and '' or why it failed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, *command.run], cwd=REPO, env=env, text=True,
                          capture_output=True, check=False)
    if done.returncode != 0:
        return done.stdout, f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return done.stdout, ""


def check(figures: list[Figure], outputs: dict[str, tuple[str, str]], root: Path = REPO
          ) -> list[Outcome]:
    """Each figure's outcome, given every command's output (``run``'s pair); the docs are
    read under ``root``."""
    found = []
    for f in figures:
        located = locate(f, (root / f.doc).read_text(encoding="utf-8").splitlines())
        where = f"{f.doc}:{located.line}" if located.line else f.doc
        out, failed = outputs[f.command]
        if failed:
            found.append(Outcome(f, where, "failed", None, failed))
            continue
        try:
            measured = read_value(f, out)
        except (ValueError, KeyError, IndexError) as exc:
            found.append(Outcome(f, where, "failed", None, f"cannot read it: {exc}"))
            continue
        status = compare(f, measured)
        if located.problem and status == "held":
            status = "doc"
        found.append(Outcome(f, where, status, measured, located.problem))
    return found


def show(outcomes: list[Outcome]) -> None:
    print("status | figure | doc | quoted | measured | commit quoted | note")
    for o in outcomes:
        measured = "—" if o.measured is None else f"{o.measured:g}"
        print(f"{o.status} | {o.figure.name} | {o.where} | {o.figure.value:g} "
              f"(± {o.figure.tolerance:g}) | {measured} | {o.figure.commit} | {o.detail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--registry", type=Path, default=REGISTRY)
    ap.add_argument("--figure", action="append", default=[], help="only this figure "
                    "(repeatable)")
    ap.add_argument("--list", action="store_true", help="list the figures and commands")
    ap.add_argument("--json", action="store_true", help="one JSON line per figure")
    args = ap.parse_args(argv)
    commands, figures = load(args.registry)
    if args.figure:
        unknown = set(args.figure) - {f.name for f in figures}
        if unknown:
            ap.error("unknown figure(s): " + ", ".join(sorted(unknown)))
        figures = [f for f in figures if f.name in args.figure]
    needed = sorted({f.command for f in figures})
    if args.list:
        for name in needed:
            c = commands[name]
            print(f"{name} (~{c.seconds:g} s): python {' '.join(c.run)}")
            for f in figures:
                if f.command == name:
                    print(f"  {f.name}: {f.value:g} ± {f.tolerance:g} ({f.doc}, {f.commit})")
        return 0
    outputs = {}
    for name in needed:
        start = time.monotonic()
        outputs[name] = run(commands[name])
        print(f"ran {name} in {time.monotonic() - start:.0f} s", file=sys.stderr)
    outcomes = check(figures, outputs)
    if args.json:
        for o in outcomes:
            print(json.dumps({"figure": o.figure.name, "status": o.status, "doc": o.where,
                              "quoted": o.figure.value, "measured": o.measured,
                              "commit": o.figure.commit, "note": o.detail}))
    else:
        show(outcomes)
    bad = [o for o in outcomes if o.status != "held"]
    print(f"{len(outcomes) - len(bad)} of {len(outcomes)} figures held", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
