"""Queries on the per-call log of model use (``model_calls``, ``m0004_model_calls``).

The log is append-only: a night's calls are written once, when its ledger is saved, and
read back for reports. Counting and capping calls is ``models.meter``'s job.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from skillopt_sleep.archive.db import Archive

__all__ = ["LoggedCall", "add_calls", "night_calls"]


class LoggedCall(NamedTuple):
    """One row of the log, without its night id and row number."""

    role: str
    spec: str
    skill: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    latency_s: float
    cost_usd: float
    cached: bool
    error: str
    at: float


def add_calls(archive: Archive, night_id: str, calls: Iterable[LoggedCall]) -> int:
    """Append ``calls`` to the log under ``night_id`` in one transaction; returns how many."""
    rows = [(night_id, c.role, c.spec, c.skill, c.input_tokens, c.output_tokens,
             c.cache_read_tokens, c.latency_s, c.cost_usd, int(c.cached), c.error, c.at)
            for c in calls]
    with archive.transaction() as conn:
        conn.executemany(
            "INSERT INTO model_calls (night_id, role, spec, skill, input_tokens, output_tokens,"
            " cache_read_tokens, latency_s, cost_usd, cached, error, at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    return len(rows)


def night_calls(archive: Archive, night_id: str) -> list[LoggedCall]:
    """The calls logged under ``night_id``, in the order they were written."""
    rows = archive.conn.execute(
        "SELECT role, spec, skill, input_tokens, output_tokens, cache_read_tokens,"
        " latency_s, cost_usd, cached, error, at FROM model_calls WHERE night_id = ?"
        " ORDER BY id", (night_id,))
    return [LoggedCall(role, spec, skill, inp, out, cache_read, latency, cost, bool(cached),
                       error, at)
            for role, spec, skill, inp, out, cache_read, latency, cost, cached, error, at
            in rows]
