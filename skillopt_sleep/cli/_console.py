"""The rich consoles every command prints through: the terminal's own width on a terminal,
and no wrapping or truncation at all when the output goes to a pipe or a file.

Rich assumes 80 columns when stdout is not a terminal and hard-wraps there, which breaks a
night id or a path in two for anyone who pipes the output into ``grep`` or a log.

Every text printed through these consoles is redacted before rich lays it out (a wrap
could otherwise split a secret across two lines, past its rule), and ``guarded`` (in
``_redacting``, which loads no rich) redacts whatever else reaches stdout and stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console

from skillopt_sleep.cli._redacting import RedactingStream, guarded
from skillopt_sleep.secrets import redact

__all__ = ["RedactingStream", "console", "guarded", "is_terminal", "working"]

UNWRAPPED = 100_000
"""The width a piped console lays tables out in: wide enough that nothing wraps."""


class _Redacting(Console):
    """A console that redacts each text it is given to print."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(redact(o)[0] if isinstance(o, str) else o for o in objects),
                      **kwargs)


def console(*, stderr: bool = False) -> Console:
    """A console for stdout (or stderr), decided when called: under a test runner or a
    redirect the streams change after import, so never keep one at module level."""
    found = _Redacting(stderr=stderr)
    if found.is_terminal:
        return found
    return _Redacting(stderr=stderr, soft_wrap=True, width=UNWRAPPED)


def is_terminal(*, stderr: bool = True) -> bool:
    """Whether progress (spinners, status lines) belongs on this stream."""
    return Console(stderr=stderr).is_terminal


@contextmanager
def working(message: str) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr naming the slow step under way, on a terminal; nothing when
    stderr is a pipe or a file (no control characters in logs). Yields ``update(message)``."""
    err = Console(stderr=True)
    if not err.is_terminal:
        yield lambda _message: None
        return
    with err.status(message) as status:
        yield lambda text: status.update(text)
