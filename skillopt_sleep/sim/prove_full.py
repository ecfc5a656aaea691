"""The proof through the whole flow: transcripts on disk to an adopted skill, and back.

A persona writes its history as real Claude Code and Codex transcripts into a temporary
home; the real pipeline harvests them, mines families and tasks, runs the nights with the
persona simulator as target and optimizer, stages each proposal, adopts it into temporary
skill directories, and finally rolls back once. Every step is asserted as it happens.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.errors import AssertionFailed
from skillopt_sleep.pipeline.run import RunOutcome, run_once
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.records import sha256_text
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim.prove import MIN_LIFT
from skillopt_sleep.sim.transcripts import write_history

_ENV = ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "SKILLOPT_SLEEP_HOME")


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionFailed(f"full proof failed: {what}")


@contextmanager
def _sandbox(name: str) -> Iterator[Path]:
    """A temporary home for the agents and for skillopt-sleep's own state.

    Its path is fixed per persona and seed: the project path is part of every family id,
    and so of every split, so a random path would make the proof differ run to run.
    """
    saved = {k: os.environ.get(k) for k in _ENV}
    root = Path(tempfile.gettempdir()) / f"skillopt-sleep-full-{name}"
    with FileLock(str(root) + ".lock"):
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        home = root / "home"
        home.mkdir()
        os.environ.update(
            HOME=str(home),
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            CODEX_HOME=str(home / ".codex"),
            SKILLOPT_SLEEP_HOME=str(root / "state"),
        )
        try:
            yield root
        finally:
            shutil.rmtree(root, ignore_errors=True)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _check_night(outcome: RunOutcome, roots: list[Path], n: int) -> dict[str, Any]:
    _expect(len(outcome.nights) >= 1, f"night {n}: no skill was trained")
    folder = Path(outcome.staged)
    _expect((folder / staging.MANIFEST).exists(), f"night {n}: no manifest in {folder}")
    for result in outcome.nights:
        if result.skill in outcome.adopted:
            staged = staging.proposal(folder.parent, outcome.night_id, result.skill)
            for root in roots:
                live = adoption.target(root, result.skill).read_text(encoding="utf-8")
                _expect(live == staged, f"night {n}: {root} does not hold the adopted proposal")
    return outcome.to_dict()


def _rollback_once(roots: list[Path], skill: str) -> int:
    from skillopt_sleep import paths

    archive = Archive(paths.archive_path())
    try:
        history = adoption.versions(archive, skill)
        _expect(len(history) >= 2, "nothing was adopted, so nothing can be rolled back")
        previous = history[-2]
        adoption.rollback(archive, skill, roots)
        for root in roots:
            path = adoption.target(root, skill)
            text = path.read_text(encoding="utf-8") if path.exists() else ""
            _expect(
                path.exists() != (previous.reason == adoption.ABSENT),
                f"rollback to v{previous.version} left {path} in the wrong state",
            )
            _expect(
                sha256_text(text) == previous.sha256,
                f"rollback did not restore v{previous.version} in {root}",
            )
        return previous.version
    finally:
        archive.close()


def prove_full(
    persona: str = "researcher",
    seed: int = 0,
    nights: int = 3,
    embedder: str = "minilm",
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Run the whole flow in a sandbox; raise ``AssertionFailed`` at the first broken step."""
    p = personas.load(persona)
    start = time.monotonic()
    with _sandbox(f"{p.name}-{seed}") as root:
        project = root / "project"
        project.mkdir()
        written = write_history(p, seed, Path(os.environ["HOME"]), project)
        progress(
            f"wrote {written['claude-code']} Claude Code and {written['codex']} Codex sessions"
        )
        roots = [root / "skills" / "claude", root / "skills" / "agents"]
        settings = Settings(
            target="simulated",
            optimizer="simulated",
            persona=str(p.path),
            embedder=embedder,
            skill_roots=tuple(map(str, roots)),
            sources=("claude-code", "codex"),
        )
        runs = []
        for n in range(1, nights + 1):
            progress(f"night {n}/{nights}")
            outcome = run_once(project, settings=settings, adopt="auto", progress=progress)
            if n == 1:
                harvested = outcome.counts["harvest"]["sessions"]
                total = written["claude-code"] + written["codex"]
                _expect(harvested == total, f"harvested {harvested} of {total} sessions")
            runs.append(_check_night(outcome, roots, n))
        first, last = runs[0]["skills"][0], runs[-1]["skills"][0]
        lift = (last["after_test"] or 0.0) - (first["baseline_test"] or 0.0)
        _expect(lift >= MIN_LIFT, f"test lift {lift:+.3f} < {MIN_LIFT}")
        restored = _rollback_once(roots, first["skill"])
    return {
        "persona": p.name,
        "seed": seed,
        "nights": nights,
        "written": written,
        "mining": runs[0]["counts"]["mining"],
        "baseline_test": first["baseline_test"],
        "after_test": last["after_test"],
        "lift": round(lift, 4),
        "accepted_per_night": [r["skills"][0]["accepted"] for r in runs],
        "adopted": [r["adopted"] for r in runs],
        "rolled_back_to": restored,
        "seconds": round(time.monotonic() - start, 2),
    }
