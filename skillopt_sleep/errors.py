"""The one exception tree of skillopt-sleep.

    SkillOptError
    ├── ConfigError            bad or unknown configuration key, value, flag or spec
    │   ├── UnknownModelError  a model spec names no known backend (message lists the valid ones)
    │   └── NotReady           a configured backend cannot work here: CLI missing, not logged in,
    │                          no key, endpoint unreachable (found before mining, no model call)
    ├── SkillDocError          a SKILL.md that cannot be parsed (a start marker, no end marker)
    ├── HarvestError           a transcript source that cannot be read at all (never one bad line)
    ├── ModelError             a model call that failed after its retries
    │   ├── AuthError          not logged in / 401: stops the night, never scored as a wrong answer
    │   ├── BudgetExceeded     a dollar cap was reached
    │   ├── HandoffPending     prompts written for the user's own agent to answer (exit code 3)
    │   └── Unreachable        no CLI, connection refused, unknown host, 404: retrying cannot help
    ├── RoleUnavailable        a role's model cannot answer (a fatal call, or too many failed in a
    │                          row): the night stops and is recorded failed (exit code 4)
    ├── JudgeError             an invalid judge spec (rejected at load)
    ├── StoreError             archive, staging, adoption or rollback failure
    │   ├── LockHeld           another night (or daemon) holds the state-dir lock
    │   └── StaleSkillError    the live skill changed since the night read it
    └── AssertionFailed        `prove --assert-improves` did not hold

Per-item failures (one bad line, one failed call, one unparseable judgement) are
counted outcomes, not exceptions; these classes are for what must stop a command.
"""

from __future__ import annotations

from skillopt_sleep.secrets import redact


class SkillOptError(Exception):
    """Base of every error skillopt-sleep raises on purpose. Its message is redacted when
    the error is made: an error carries a URL, a command or a model's reply to a terminal,
    the archive (a failed night's reason) and the staged manifest, and a base URL may hold a
    password (``https://user:pass@proxy/v1``)."""

    exit_code = 1

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a)[0] if isinstance(a, str) else a for a in args))

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt with its attributes (``role``, ``why`` …) when it crosses a process: a
        # night's replays can run in a process pool or on a cluster's workers.
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(kind: type[SkillOptError], args: tuple[object, ...],
             attrs: dict[str, object]) -> SkillOptError:
    error = Exception.__new__(kind)
    error.args = args
    error.__dict__.update(attrs)
    return error


class ConfigError(SkillOptError):
    exit_code = 2


class UnknownModelError(ConfigError):
    pass


class NotReady(ConfigError):
    pass


class SkillDocError(SkillOptError):
    pass


class HarvestError(SkillOptError):
    pass


class ModelError(SkillOptError):
    pass


class AuthError(ModelError):
    pass


class BudgetExceeded(ModelError):
    pass


class HandoffPending(ModelError):
    exit_code = 3


class Unreachable(ModelError):
    """A backend that cannot be reached at all; ``why`` says how, ``where`` names what.

    ``why`` is ``missing-cli`` (``where``: the binary), ``refused`` or ``unknown-host``
    (``where``: the URL) or ``not-found`` (``where``: the URL that answered 404).
    """

    def __init__(self, message: str, *, why: str = "", where: str = ""):
        super().__init__(message)
        self.why = why
        self.where = redact(where)[0]


class RoleUnavailable(SkillOptError):
    """The model of one role (target, optimizer, judge, miner) cannot answer tonight.

    Not a ``ModelError`` on purpose: every layer that turns a failed call into a counted
    outcome catches ``ModelError``, and this one must reach the pipeline, which records the
    night as failed. ``role``, ``spec`` and ``reason`` are what the faces show.
    """

    exit_code = 4

    def __init__(self, message: str, *, role: str = "", spec: str = "", reason: str = ""):
        super().__init__(message)
        self.role = role
        self.spec = spec
        self.reason = redact(reason)[0]


class JudgeError(SkillOptError):
    pass


class StoreError(SkillOptError):
    pass


class LockHeld(StoreError):
    pass


class StaleSkillError(StoreError):
    pass


class AssertionFailed(SkillOptError):
    pass
