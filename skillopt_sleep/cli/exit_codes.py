"""Every exit status the CLI uses: ``--help``'s epilog and the docs' CLI reference quote
this one table."""

from __future__ import annotations

from skillopt_sleep import errors

__all__ = ["EXIT_CODES"]

EXIT_CODES: tuple[tuple[int, str, str], ...] = (
    (0, "success", "success; `run`: the night ran, or there was nothing new"),
    (1, "error", "an error the command reports in one line (a damaged archive, a failed "
        "proof, a skill that cannot be read); `lint`: an error-level finding; `doctor`: a "
        "check failed"),
    (errors.ConfigError.exit_code, "usage or configuration",
     "bad configuration or usage: an unknown option or key, a value out of range, a backend "
     "that cannot run here"),
    (errors.HandoffPending.exit_code, "waiting for hand-off answers",
     "`run` with the `handoff` backend: waiting for answers (a state, not an error; the "
     "next `run` resumes)"),
    (errors.RoleUnavailable.exit_code, "a model stopped answering",
     "a model role stopped answering mid-night; nothing was staged or adopted"),
)
"""Every exit status the CLI uses, with when; ``--help``'s epilog and the docs quote it."""
