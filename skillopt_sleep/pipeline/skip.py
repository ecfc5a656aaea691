"""A night with nothing new: say so and stop, before a single archived session is read.

A night's work is a function of the project's archived sessions (and what was mined from
them), the skill files it trains and the settings that shape a night. When none of them
changed since the project's last completed night, the same night would mine the same tasks
and replay them against the same skills: a night of model calls to learn nothing. So after
harvest (whose checkpoints already skip every unchanged transcript), ``nothing_new``
compares a cheap fingerprint (indexed counts over the sessions and mining tables, a hash of
each ``SKILL.md`` in the write-back roots, a hash of the settings) with the one the last
completed night left; on a match the run stops, records why (``status`` shows it), and
makes no model call.

Only a completed night leaves a fingerprint: a failed night, one stopped at a cost cap or
a dry run never do, so their work is taken up again. ``skip_unchanged = false`` in config
or ``run --force`` runs the night anyway.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skillopt_sleep.archive import night_inputs
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.config import Settings
from skillopt_sleep.stamps import minute

__all__ = ["IGNORED_SETTINGS", "check", "fingerprint", "nothing_new", "remember",
           "skill_hashes"]

IGNORED_SETTINGS = frozenset({
    "hour", "minute", "min_new_sessions", "require_ac_power", "projects", "cache",
    "concurrency", "skip_unchanged",
})
"""Settings that do not change what a night learns (when it runs, how fast, the replay
cache), so changing them does not make a nothing-new night run."""


def skill_hashes(roots: list[Path]) -> dict[str, str]:
    """``<root>/<skill>/SKILL.md`` → sha256 of its bytes, for every skill in ``roots``."""
    found: dict[str, str] = {}
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.glob("*/SKILL.md")):
            try:
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                found[str(path)] = "unreadable"
    return found


def _settings_hash(settings: Settings) -> str:
    shaping = {k: v for k, v in asdict(settings).items() if k not in IGNORED_SETTINGS}
    raw = json.dumps(shaping, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def fingerprint(archive: Archive, settings: Settings, project: str,
                roots: list[Path]) -> dict[str, Any]:
    """What a night of ``project`` would be made of, cheaply (see the module docstring)."""
    return {
        "sessions": night_inputs.session_mark(archive, project, settings.include_headless),
        "mining": night_inputs.mining_mark(archive, project),
        "skills": skill_hashes(roots),
        "settings": _settings_hash(settings),
    }


def nothing_new(archive: Archive, project: str, current: dict[str, Any]) -> str:
    """Why tonight's night can be skipped (recorded for ``status``), or "" to run it."""
    last = night_inputs.last_inputs(archive, project)
    if last is None or last.fingerprint != json.loads(json.dumps(current)):
        return ""
    count = current["sessions"][0]
    since = f"night {last.night_id}" if last.night_id else f"the run at {minute(last.recorded_at)}"
    reason = (f"nothing new since {since}: no new or grown session "
              f"({count} archived), skills and settings unchanged; no model called")
    night_inputs.record_skip(archive, project, reason)
    return reason


def nothing_to_train(archive: Archive, settings: Settings, project: str) -> str:
    """What a night with no recurring, replayable task says, and why that may be."""
    from skillopt_sleep.archive.sessions import headless_count

    message = "no recurring, replayable tasks yet; nothing to train tonight"
    # Scripted sessions (claude -p, codex exec) are left out by default; a user whose
    # history is mostly scripted should learn why a night found nothing.
    headless = 0 if settings.include_headless else headless_count(archive, project)
    if headless:
        message += (f" ({headless} headless session(s) of claude -p, codex exec or "
                    "copilot -p were left out: include_headless = true in the config uses them)")
    return message


def check(archive: Archive, settings: Settings, project: str, roots: list[Path], *,
          dry_run: bool) -> tuple[dict[str, Any], str]:
    """Tonight's fingerprint and why the night can be skipped ("": run it). A dry run
    compares as the night would (so it plans nothing for a night that would be skipped) but
    keeps no fingerprint: it writes no state."""
    current = fingerprint(archive, settings, project, roots)
    skipped = nothing_new(archive, project, current) if settings.skip_unchanged else ""
    return ({} if dry_run else current), skipped


def remember(archive: Archive, project: str, sessions: list[Any], settings: Settings,
             roots: list[Path], night_id: str) -> None:
    """Record a completed night's inputs: the sessions it started from, the mining and the
    skills as they are now (after its own mining and any write-back), the settings."""
    current = {"sessions": sessions, "mining": night_inputs.mining_mark(archive, project),
               "skills": skill_hashes(roots), "settings": _settings_hash(settings)}
    night_inputs.save_inputs(archive, project, current, night_id)
