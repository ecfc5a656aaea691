"""What the pipeline has done, as plain data: the last nights, what awaits review, what is
adopted where and whether the files on disk still hold it; and which staged night a
command means when it names none.

``skillopt-sleep status``, ``report`` and ``adopt`` render these; nothing here prints.

A project whose last ``FAILED_IN_A_ROW`` nights all failed gets an alert, which ``status``
puts first: an unattended daemon would otherwise keep making empty nights unnoticed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from skillopt_sleep import paths
from skillopt_sleep.archive import night_inputs
from skillopt_sleep.archive import versions as ledger
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.errors import StoreError
from skillopt_sleep.pipeline import failures
from skillopt_sleep.publish import staging
from skillopt_sleep.publish.recovery import pending_note
from skillopt_sleep.records import sha256_text

__all__ = [
    "FAILED_IN_A_ROW",
    "AdoptedSkill",
    "FailingProject",
    "NightSummary",
    "PendingReview",
    "Status",
    "disk_state",
    "pending",
    "staged_night",
    "status",
]

RECENT_NIGHTS = 10
"""How many of the newest nights ``status`` lists."""

FAILED_IN_A_ROW = 3
"""Failed nights in a row after which ``status`` leads with an alert. One failed night can be a
passing outage and the daemon tries again the next night; three mean nobody has fixed it."""


@dataclass
class NightSummary:
    """One skill's night, as the archive recorded it."""

    night_id: str
    skill: str
    project: str
    status: str
    accepted: int
    baseline_val: float | None
    """None for a night that failed or abstained: it measured no score."""
    after_val: float | None
    abstained: str
    stopped: str
    failed: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class FailingProject:
    """A project whose newest nights failed, how many in a row, and the latest reason."""

    project: str
    failed_in_a_row: int
    last_night: str
    reason: str

    @property
    def alert(self) -> str:
        return (f"{self.failed_in_a_row} nights in a row failed for {self.project}: "
                f"{self.reason}")


@dataclass
class PendingReview:
    """A staged skill with accepted edits that nobody has adopted yet."""

    night_id: str
    skill: str
    accepted: int


@dataclass
class AdoptedSkill:
    """A skill's newest recorded version and the state of each file it was written to."""

    skill: str
    version: int
    night_id: str | None
    reason: str
    targets: list[str]
    on_disk: dict[str, str]


@dataclass
class SkippedRun:
    """A project whose newest run stopped because nothing had changed (``pipeline.skip``)."""

    project: str
    at: str
    reason: str


@dataclass
class Status:
    """Everything ``skillopt-sleep status`` reports."""

    nights: list[NightSummary]
    pending: list[PendingReview]
    adopted: list[AdoptedSkill]
    failing: list[FailingProject] = field(default_factory=list)
    """Projects whose newest night failed (``alerts`` are those at ``FAILED_IN_A_ROW``)."""
    skipped: list[SkippedRun] = field(default_factory=list)
    journal: list[str] = field(default_factory=list)
    """A write-back waiting for recovery, or a journal moved aside unreplayed."""

    @property
    def alerts(self) -> list[str]:
        return [f.alert for f in self.failing if f.failed_in_a_row >= FAILED_IN_A_ROW]


def pending(archive: Archive) -> list[PendingReview]:
    """Each skill's newest staged change that nobody adopted, newest night first.

    An older proposal for the same skill is superseded, not pending: it was trained on a
    skill that has moved on since, and listing it forever would hide what is current. So
    is a proposal older than the skill's latest adoption. ``adopt NIGHT`` still takes one.
    """
    done = ledger.adopted_nights(archive)
    latest = _latest_adoption(done)
    rows, seen = [], set()
    for m in staging.nights(paths.staging_dir()):  # newest first
        for s in m.skills:
            if not s.changed or s.name in seen:
                continue
            seen.add(s.name)
            if (m.night_id, s.name) not in done and m.night_id > latest.get(s.name, ""):
                rows.append(PendingReview(night_id=m.night_id, skill=s.name, accepted=s.accepted))
    return rows


def _latest_adoption(done: set[tuple[str, str]]) -> dict[str, str]:
    """Skill -> the newest night adopted for it (night ids sort by their time)."""
    latest: dict[str, str] = {}
    for night, skill in done:
        latest[skill] = max(night, latest.get(skill, ""))
    return latest


def night_state(recorded: str, night_id: str, skill: str, done: set[tuple[str, str]],
                waiting: set[tuple[str, str]]) -> str:
    """What a night's proposal is now: the archive records ``staged`` when it stages, and
    only adoption or a newer proposal changes what that means."""
    if recorded not in ("staged", "adopted"):
        return recorded
    if (night_id, skill) in done:
        return "adopted"
    return "staged" if (night_id, skill) in waiting else "superseded"


def disk_state(version: ledger.Version) -> dict[str, str]:
    """For each path a version was written to: is it still that version on disk?

    ``current`` (same bytes), ``modified since``, ``missing`` (deleted), or ``absent``
    (the version is the recorded absence of the skill, and the file is indeed gone).
    """
    from skillopt_sleep.publish.writes import ABSENT  # writes' machinery: only for this

    found = {}
    for target in version.targets:
        path = Path(target)
        if not path.is_file():
            found[target] = "absent" if version.reason == ABSENT else "missing"
        else:
            # Bytes decoded as they are: read_text would turn CRLF into LF and call a
            # byte-exact CRLF copy "modified since".
            try:
                text = path.read_bytes().decode("utf-8", errors="replace")
            except OSError as exc:
                raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from exc
            same = sha256_text(text) == version.sha256
            found[target] = "current" if same else "modified since"
    return found


def status(archive: Archive) -> Status:
    """The newest nights, the pending reviews and every versioned skill's newest version."""
    done = ledger.adopted_nights(archive)
    waiting = pending(archive)
    keys = {(p.night_id, p.skill) for p in waiting}
    nights = [
        NightSummary(
            night_id=r.night_id,
            skill=r.skill,
            project=r.project,
            status=night_state(st, r.night_id, r.skill, done, keys),
            accepted=len(r.accepted),
            baseline_val=None if r.failed or r.abstained else r.baseline_val,
            after_val=None if r.failed or r.abstained else r.after_val,
            abstained=r.abstained,
            stopped=r.stopped,
            failed=r.failed,
            warnings=list(r.warnings),
        )
        for st, r in archive.nights(limit=RECENT_NIGHTS)
    ]
    adopted = [
        AdoptedSkill(
            skill=s,
            version=v.version,
            night_id=v.night_id,
            reason=v.reason,
            targets=sorted(files := write_state(archive, v)),
            on_disk=files,
        )
        for s in ledger.skills(archive)
        for v in ledger.versions(archive, s)[-1:]
    ]
    skipped = [SkippedRun(r.project, r.skipped_at or "", r.skip_reason or "")
               for r in night_inputs.skipped_runs(archive)]
    return Status(nights=nights, pending=waiting, adopted=adopted,
                  failing=failing(archive), skipped=skipped,
                  journal=pending_note(Path(archive.path).parent))


def write_state(archive: Archive, version: ledger.Version) -> dict[str, str]:
    """``disk_state`` for every file of the write ``version`` ends (each root holds its own
    text), compared with what the write left there; older writes by their rows' targets."""
    writes = ledger.path_writes(archive, version.skill, version.version)
    if not writes or any(w.after_sha256 is None for w in writes):
        return disk_state(version)
    found = {}
    for write in writes:
        path = Path(write.path)
        if not path.is_file():
            found[write.path] = "absent" if write.after_sha256 == "" else "missing"
            continue
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from exc
        found[write.path] = "current" if sha256_text(text) == write.after_sha256 \
            else "modified since"
    return found


def failing(archive: Archive, scan: int = 200) -> list[FailingProject]:
    """Each project whose newest night failed, with how many of its nights failed in a row.

    A night is one id over several skills' rows; it failed when any of its rows did."""
    by_project: dict[str, dict[str, str | None]] = {}
    for st, r in archive.nights(limit=scan):  # newest first
        nights = by_project.setdefault(r.project, {})
        if st == "failed":
            nights[r.night_id] = nights.get(r.night_id) or failures.reason(r.failed)
        else:
            nights.setdefault(r.night_id, None)
    found = []
    for project, nights in by_project.items():
        reasons = list(nights.values())
        streak = 0
        while streak < len(reasons) and reasons[streak] is not None:
            streak += 1
        if streak:
            found.append(FailingProject(project, streak, next(iter(nights)), reasons[0] or ""))
    return sorted(found, key=lambda f: -f.failed_in_a_row)


def staged_night(night: str | None, archive: Archive | None = None) -> Path:
    """The folder of staged night ``night``; without one, the newest night with a pending
    review (when ``archive`` is given to tell), else the newest staged night."""
    root = paths.staging_dir()
    if night:
        folder = root / night
        if not (folder / staging.MANIFEST).exists():
            raise StoreError(f"no staged night {night!r} in {root}")
        return folder
    if archive is not None:
        waiting = pending(archive)
        if waiting:
            return root / waiting[0].night_id
    found = staging.nights(root)
    if not found:
        raise StoreError("no staged nights yet; run `skillopt-sleep run` first")
    return root / found[0].night_id
