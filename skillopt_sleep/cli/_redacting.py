"""Standard output and error redacted line by line for the length of a command. Apart
from ``_console`` so that a command that prints plain lines does not load rich.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, TextIO

from skillopt_sleep.secrets import redact


class RedactingStream:
    """A text stream that redacts what it passes on, a line at a time (a secret written
    in two pieces is still seen whole); ``flush`` passes on an unfinished line too."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self._line = ""

    def write(self, text: str) -> int:
        self._line += text
        end = self._line.rfind("\n") + 1
        if end:
            done, self._line = self._line[:end], self._line[end:]
            self._stream.write(redact(done)[0])
        return len(text)

    def flush(self) -> None:
        if self._line:
            line, self._line = self._line, ""
            self._stream.write(redact(line)[0])
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        # isatty, fileno, encoding, buffer (a binary writer, such as the MCP transport,
        # is left alone: what it sends is redacted where it is made).
        return getattr(self._stream, name)


@contextmanager
def guarded() -> Iterator[None]:
    """Standard output and error redacted for the length of the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):  # a closed pipe: nothing more can be said
                stream.flush()
        sys.stdout, sys.stderr = out, err
