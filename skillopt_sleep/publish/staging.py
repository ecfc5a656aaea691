"""Staged proposals: one directory per night, and only a directory with a manifest counts.

``<state>/nights/<night_id>/`` holds, per skill, the proposed ``SKILL.md`` and its unified
``diff.patch``, then ``report.html``, ``report.json`` and, last, ``manifest.json`` with the
sha256 of every live file the night read and of each proposal. The directory is built under
a temporary name and renamed into place, so a crash never leaves a half-staged night.

A night that failed (a model could not answer) stages no proposal: its directory holds the
report and a manifest with no skills and the reason in ``failed``, so ``report`` finds it
and ``adopt`` has nothing to take.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.atomic import write_atomic
from skillopt_sleep.errors import StoreError
from skillopt_sleep.records import sha256_text, to_dict, utcnow
from skillopt_sleep.secrets import redact, redact_tree

if TYPE_CHECKING:
    from skillopt_sleep.archive.db import Archive
    from skillopt_sleep.records import NightResult

MANIFEST = "manifest.json"


@dataclass
class StagedSkill:
    name: str
    live: dict[str, str | None]
    """Live path -> sha256 of what the night read there (None: the file did not exist)."""
    proposal_sha256: str
    changed: bool
    accepted: int
    granted: list[list[str]] = field(default_factory=list)
    """Capabilities the proposal may bring because the user's own requests did
    (``NightResult.granted``): adoption's re-check grants these and nothing else new."""


@dataclass
class Manifest:
    night_id: str
    project: str
    created_at: str
    skills: list[StagedSkill] = field(default_factory=list)
    failed: str = ""

    def skill(self, name: str) -> StagedSkill:
        for s in self.skills:
            if s.name == name:
                return s
        raise StoreError(f"night {self.night_id} has no proposal for skill {name!r}")


def diff(before: str, after: str, name: str) -> str:
    import difflib  # here, as shutil below: ``status`` reads manifests and stages nothing

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{name}/SKILL.md",
            tofile=f"b/{name}/SKILL.md",
        )
    )


def _publish(tmp: Path, final: Path, results: list[NightResult], manifest: Manifest,
             html: str) -> Path:
    # The reports are read and shared by people: the one secrets rule set runs over them
    # once more, whatever reached the night (the proposals are left exact; the firewall
    # keeps secrets out of them).
    import shutil

    write_atomic(tmp / "report.html", redact(html)[0].encode("utf-8"))
    _write_json(tmp / "report.json", [to_dict(r) for r in results])
    _write_json(tmp / MANIFEST, to_dict(manifest))
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    return final


def _write_json(path: Path, data: Any) -> None:
    """Every JSON file a night stages, each string redacted (a failed night's reason may
    name a model endpoint; a report quotes tasks and answers)."""
    write_atomic(path, json.dumps(redact_tree(data), indent=1).encode())


def _fresh(root: Path, night_id: str) -> tuple[Path, Path]:
    import shutil

    final, tmp = root / night_id, root / f".{night_id}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp, final


def stage_report(root: Path, night_id: str, project: str, results: list[NightResult],
                 html: str, failed: str) -> Path:
    """A failed night's directory: its report and a manifest without proposals."""
    tmp, final = _fresh(root, night_id)
    manifest = Manifest(night_id, project, utcnow().isoformat(), failed=failed)
    return _publish(tmp, final, results, manifest, html)


def stage(
    root: Path,
    night_id: str,
    project: str,
    results: list[NightResult],
    live: dict[str, dict[str, str | None]],
    html: str,
) -> Path:
    """Write a night's proposal dir atomically; return its path."""
    tmp, final = _fresh(root, night_id)
    manifest = Manifest(night_id, project, utcnow().isoformat())
    for r in results:
        folder = tmp / "skills" / r.skill
        write_atomic(folder / "SKILL.md", r.skill_after.encode("utf-8"))
        write_atomic(folder / "diff.patch", diff(r.skill_before, r.skill_after, r.skill).encode())
        manifest.skills.append(
            StagedSkill(
                r.skill,
                live.get(r.skill, {}),
                sha256_text(r.skill_after),
                r.changed,
                len(r.accepted),
                r.granted,
            )
        )
    return _publish(tmp, final, results, manifest, html)


def clean_orphans(root: Path) -> list[Path]:
    """Remove half-built night dirs left by a crash; return what was removed."""
    removed = []
    if root.is_dir():
        for path in root.iterdir():
            if (path.name.startswith(".") and path.name.endswith(".tmp") and path.is_dir()) or (
                path.is_dir() and not (path / MANIFEST).exists()
            ):
                import shutil

                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def load_manifest(folder: Path) -> Manifest:
    try:
        data: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StoreError(f"{folder} is not a staged night: {exc}") from exc
    skills = [StagedSkill(**s) for s in data.pop("skills", [])]
    return Manifest(skills=skills, **data)


def nights(root: Path) -> list[Manifest]:
    """Every staged night, newest first (only directories with a manifest)."""
    found = []
    if root.is_dir():
        for folder in root.iterdir():
            if folder.is_dir() and (folder / MANIFEST).exists():
                found.append(load_manifest(folder))
    return sorted(found, key=lambda m: m.night_id, reverse=True)


def proposal(root: Path, night_id: str, skill: str) -> str:
    path = root / night_id / "skills" / skill / "SKILL.md"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StoreError(f"no staged proposal {path}: {exc}") from exc


def stage_night(
    archive: Archive, root: Path, night_id: str, project: str, nights: list[NightResult],
    live: dict[str, dict[str, str | None]], warnings: list[str], failed: str = "",
) -> Path:
    """Render tonight's report (with the project's earlier nights for the plots) and stage
    it with the proposals; a ``failed`` night stages its report and the reason alone."""
    from skillopt_sleep.publish.report.html import render  # the report loads with a night

    history = [r for _, r in reversed(archive.nights(project, limit=60))]
    diffs = {n.skill: diff(n.skill_before, n.skill_after, n.skill) for n in nights}
    html = render(nights, history=history, diffs=diffs,
                  title=f"skillopt-sleep night {night_id}", warnings=warnings)
    if failed:
        return stage_report(root, night_id, project, nights, html, failed)
    return stage(root, night_id, project, nights, live, html)
