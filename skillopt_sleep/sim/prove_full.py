"""The proof through the whole flow: transcripts on disk to an adopted skill, and back.

A persona writes its history as real Claude Code and Codex transcripts into a temporary
home, each task asked in every phrasing the persona has for it (``write_history``'s
``every_phrasing``: the mined validation split is two or three families, and with one
phrasing a task their judges check too few rules for an edit to show its gain there).
The real pipeline harvests them, mines families and tasks, runs the nights with the
persona simulator as target and optimizer, stages each proposal, adopts it into temporary
skill directories, and finally rolls back once: every root gets back the bytes and mode it
held before the night that adopted last. Every step is asserted as it happens.

A persona whose skill is a real document (``skill_file``) has it installed in both roots
before the first night (``real_skill.install``); the proof then also checks that the
adopted copies differ from it only in the description value, kept in its style, and the
managed regions, and rolls back to it: every root byte for byte, with its own mode.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from skillopt_sleep import frontmatter
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.mining import MiningStore
from skillopt_sleep.config import Settings
from skillopt_sleep.errors import AssertionFailed, ConfigError
from skillopt_sleep.pipeline.run import RunOutcome, run_once
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish import staging
from skillopt_sleep.records import sha256_text
from skillopt_sleep.sim import persona as personas
from skillopt_sleep.sim import real_skill
from skillopt_sleep.sim.prove import MIN_LIFT
from skillopt_sleep.sim.transcripts import write_history
from skillopt_sleep.skilldoc import parse

_ENV = ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "SKILLOPT_SLEEP_HOME")


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionFailed(f"full proof failed: {what}")


LAYOUT = """\
home/                 the agents' home: .claude/projects (Claude Code), .codex/sessions (Codex)
project/              the persona's project folder (the sessions' working directory)
skills/claude/        where adoption writes for Claude Code ($CLAUDE_CONFIG_DIR/skills)
skills/agents/        where adoption writes for Codex and Copilot (~/.agents/skills)
skillopt-sleep/       skillopt-sleep's own home (SKILLOPT_SLEEP_HOME): config, cache, and
  state/              its state: archive.sqlite3, queue/, nights/
  state/nights/<id>/  one staged night: proposed SKILL.md per skill, diff.patch,
                      report.html, report.json, manifest.json
"""
"""What a kept sandbox holds (``prove --full --keep DIR``), also written as DIR/LAYOUT.txt."""


@contextmanager
def _sandbox(name: str, keep: Path | None = None) -> Iterator[Path]:
    """A home for the agents and for skillopt-sleep's own state: ``keep`` (left in place
    for the user to look at) or a temporary folder (removed afterwards).

    Nothing computed depends on where it is: family ids are derived from their members'
    turn ids, never from the project's path, so any folder gives the same proof.
    """
    saved = {k: os.environ.get(k) for k in _ENV}
    root = keep.resolve() if keep else Path(tempfile.gettempdir()) / f"skillopt-sleep-full-{name}"
    with FileLock(str(root) + ".lock"):
        _fresh(root, kept=keep is not None)
        home = root / "home"
        home.mkdir()
        os.environ.update(
            HOME=str(home),
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            CODEX_HOME=str(home / ".codex"),
            SKILLOPT_SLEEP_HOME=str(root / "skillopt-sleep"),
        )
        try:
            yield root
        finally:
            if keep is None:
                shutil.rmtree(root, ignore_errors=True)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _fresh(root: Path, kept: bool) -> None:
    """Empty ``root`` for a new proof; a kept folder is emptied only if a proof made it."""
    if kept and root.exists() and any(root.iterdir()) and not (root / "LAYOUT.txt").exists():
        raise ConfigError(f"--keep {root}: the folder is not empty and was not made by a "
                          "proof; give an empty or new folder")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if kept:
        (root / "LAYOUT.txt").write_text(LAYOUT, encoding="utf-8")


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


def _families() -> dict[str, list[str]]:
    """The mined family ids by split: the same in any folder, since no id or split
    depends on where the sandbox is."""
    from skillopt_sleep import paths

    archive = Archive(paths.archive_path())
    try:
        found: dict[str, list[str]] = {"train": [], "validation": [], "test": []}
        for row in MiningStore(archive).families():
            found.setdefault(row.split, []).append(row.family_id)
        return {split: sorted(ids) for split, ids in found.items()}
    finally:
        archive.close()


def _rollback_once(roots: list[Path], skill: str,
                   before_last: dict[Path, tuple[bytes, int] | None]) -> int:
    """Undo the last adoption; every root must hold again what it held before the night
    that made it (``before_last``): the same bytes and mode, or no file."""
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
            _expect(real_skill.file_state(path) == before_last.get(path),
                    f"rollback did not give {path} back its bytes and mode")
        return previous.version
    finally:
        archive.close()


def _rollback_to_original(skill: str, original: dict[Path, tuple[bytes, int] | None]) -> int:
    """Roll an installed skill back to the user's own document (the ledger's record of it
    before the first write): every root byte for byte, with its own mode."""
    from skillopt_sleep import paths

    archive = Archive(paths.archive_path())
    try:
        text = next(iter(original.values()))
        sha = sha256_text(text[0].decode("utf-8")) if text else ""
        first = next((v for v in adoption.versions(archive, skill) if v.sha256 == sha), None)
        _expect(first is not None, "the ledger holds no version with the installed bytes")
        assert first is not None
        adoption.rollback(archive, skill, to=first.version)
        for path, state in original.items():
            _expect(real_skill.file_state(path) == state,
                    f"rollback to v{first.version} did not give {path} back its original "
                    "bytes and mode")
        return first.version
    finally:
        archive.close()


def _states(roots: list[Path]) -> dict[Path, tuple[bytes, int] | None]:
    """Every skill file under ``roots`` with its bytes and mode (a path not in it: no file)."""
    return {path: real_skill.file_state(path) for root in roots
            for path in sorted(root.glob("*/SKILL.md"))}


def _before_last(befores: list[dict[Path, tuple[bytes, int] | None]],
                 outcomes: list[RunOutcome], skill: str) -> dict[Path, tuple[bytes, int] | None]:
    """The files as they were before the last night that adopted ``skill``."""
    last = max((n for n, o in enumerate(outcomes) if skill in o.adopted), default=0)
    return befores[last]


@dataclass(frozen=True)
class FullSpec:
    """What ``prove --full`` runs: the persona's nights through the whole pipeline."""

    persona: str = "researcher"
    seed: int = 0
    nights: int = 3
    embedder: str = "minilm"
    keep: Path | None = None
    """Leave the sandbox here (documented in ``LAYOUT``) instead of removing it."""
    assert_improves: bool = False
    """Require the test lift and that no harmful edit was accepted (``AssertionFailed``)."""
    gate: dict[str, Any] = field(default_factory=dict)
    """Gate settings for the nights: ``steps``, ``val_repeats``, ``alpha``, ``margin``,
    ``gate_test``, ``no_regression``, ``budget_schedule`` (config keys of the same names)."""


GATE_KEYS = ("steps", "val_repeats", "alpha", "margin", "gate_test", "no_regression",
             "budget_schedule")


def _one_skill(p: personas.Persona) -> None:
    if p.multi:
        raise ConfigError(
            f"prove --full: persona {p.name!r} has several skills, and the full proof trains "
            "and scores one: it installs no skill, so every mined family goes to the "
            f"catch-all skill. Run `prove --persona {p.name}` without --full, which trains "
            "and scores each of its skills (a real multi-skill night over its transcripts: "
            f"experiments/real_night_bench.py --persona {p.name})")


def prove_full(spec: FullSpec, progress: Callable[[str], None] = lambda _m: None
               ) -> dict[str, Any]:
    """Run the whole flow in a sandbox; raise ``AssertionFailed`` at the first broken step."""
    unknown = set(spec.gate) - set(GATE_KEYS)
    if unknown:
        raise ConfigError(f"prove --full: unknown gate settings {sorted(unknown)}")
    p = personas.load(spec.persona)
    _one_skill(p)
    start = time.monotonic()
    with _sandbox(f"{p.name}-{spec.seed}", spec.keep) as root:
        project = root / "project"
        project.mkdir()
        written = write_history(p, spec.seed, Path(os.environ["HOME"]), project,
                                every_phrasing=True)
        progress(
            f"wrote {written['claude-code']} Claude Code and {written['codex']} Codex sessions"
        )
        roots = [root / "skills" / "claude", root / "skills" / "agents"]
        if p.installed:  # the user's real skill is there before the first night
            real_skill.install(p.initial_skill(), roots, p.skill)
        original = {path: real_skill.file_state(path) for path in
                    (adoption.target(r, p.skill) for r in roots)}
        befores: list[dict[Path, tuple[bytes, int] | None]] = []
        settings = Settings(
            target="simulated", optimizer="simulated", persona=str(p.path),
            embedder=spec.embedder, skill_roots=tuple(map(str, roots)),
            sources=("claude-code", "codex"), seed=spec.seed, **spec.gate,
            # The proof's nights learn from one history on purpose: none is "nothing new".
            skip_unchanged=False,
        )
        runs, outcomes = [], []
        for n in range(1, spec.nights + 1):
            progress(f"night {n}/{spec.nights}")
            befores.append(_states(roots))
            outcome = run_once(project, settings=settings, adopt="auto", progress=progress)
            if n == 1:
                harvested = outcome.counts["harvest"]["sessions"]
                total = written["claude-code"] + written["codex"]
                _expect(harvested == total, f"harvested {harvested} of {total} sessions")
            runs.append(_check_night(outcome, roots, n))
            outcomes.append(outcome)
        summary = _summary(p, spec, runs, outcomes, written)
        summary["families"] = _families()
        if spec.assert_improves:
            check_full(summary)
        summary |= _undo(p, roots, summary["skill"], _before_last(befores, outcomes,
                                                                  summary["skill"]), original)
        summary["report"] = str(Path(_changed_last(outcomes).staged) / "report.html")
        summary["sandbox"] = str(root) if spec.keep else ""
    summary["seconds"] = round(time.monotonic() - start, 2)
    return summary


def _undo(p: personas.Persona, roots: list[Path], skill: str,
          before_last: dict[Path, tuple[bytes, int] | None],
          original: dict[Path, tuple[bytes, int] | None]) -> dict[str, Any]:
    """Check an installed skill's adopted copies (``_kept``), roll the last adoption back,
    and roll an installed skill back to the user's document; each step checked."""
    found: dict[str, Any] = {}
    if p.installed:
        found |= _kept(p, roots)
        _expect(not found["outside_edit"], found["outside_edit"])
    found["rolled_back_to"] = _rollback_once(roots, skill, before_last)
    if p.installed:
        found["restored_original"] = _rollback_to_original(p.skill, original)
    return found


def _kept(p: personas.Persona, roots: list[Path]) -> dict[str, Any]:
    """The adopted copies of an installed skill beside the user's document: its description
    style, whether the nights changed the description, and what else changed ('' : only
    the description value, in its style, and the managed regions)."""
    initial = p.initial_skill()
    live = [adoption.target(r, p.skill).read_bytes().decode("utf-8") for r in roots]
    why = [f"{r}: {w}" for r, text in zip(roots, live, strict=True)
           if (w := real_skill.kept_outside(initial, text))]
    return {"description_style": frontmatter.description_style(initial),
            "description_changed": any(parse(t).description != parse(initial).description
                                       for t in live),
            "outside_edit": "; ".join(why)}


def _changed_last(outcomes: list[RunOutcome]) -> RunOutcome:
    """The last night that changed a skill (its report draws the nights before it too), or
    the last night when none did: the report a user opens first should show a change."""
    changed = [o for o in outcomes if o.staged and any(r.changed for r in o.nights)]
    return changed[-1] if changed else outcomes[-1]


def _summary(p: personas.Persona, spec: FullSpec, runs: list[dict[str, Any]],
             outcomes: list[RunOutcome], written: dict[str, int]) -> dict[str, Any]:
    first, last = runs[0]["skills"][0], runs[-1]["skills"][0]
    lift = (last["after_test"] or 0.0) - (first["baseline_test"] or 0.0)
    kinds = Counter(
        personas.classify(p, d.edit.op, d.edit.text, d.edit.anchor)
        for o in outcomes for r in o.nights for d in r.accepted
    )
    abstained = [f"night {n}: {r.abstained}" for n, o in enumerate(outcomes, 1)
                 for r in o.nights if r.abstained]
    return {
        "persona": p.name,
        "seed": spec.seed,
        "nights": spec.nights,
        "skill": first["skill"],
        "written": written,
        "mining": runs[0]["counts"]["mining"],
        "baseline_test": first["baseline_test"],
        "after_test": last["after_test"],
        "lift": round(lift, 4),
        "accepted_per_night": [r["skills"][0]["accepted"] for r in runs],
        "accepted_by_kind": dict(sorted(kinds.items())),
        "harmful_accepted": kinds.get("harmful", 0) + kinds.get("hostile", 0),
        "abstained_nights": len(abstained),
        "abstained": abstained,
        "adopted": [r["adopted"] for r in runs],
    }


def check_full(summary: dict[str, Any]) -> None:
    """The full proof's promise: the held-out lift, and no harmful edit accepted."""
    why = f" ({summary['abstained_nights']} night(s) abstained: " \
          f"{'; '.join(summary['abstained'])})" if summary["abstained_nights"] else ""
    _expect(summary["lift"] >= MIN_LIFT, f"test lift {summary['lift']:+.3f} < {MIN_LIFT}{why}")
    _expect(summary["harmful_accepted"] == 0,
            f"{summary['harmful_accepted']} harmful edit(s) accepted")
