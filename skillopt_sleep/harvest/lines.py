"""Reading one transcript file as JSON lines: binary, chunked, lenient, bounded in memory.

``JsonLines`` opens a file once, reads from a start offset up to the size it had when
opened (bytes appended meanwhile are left for the next harvest), and yields each JSON
object line with its offset. It also knows where the last complete line ended, so the
checkpoint of what was read comes from the same open file, not from a second pass.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["MAX_LINE_BYTES", "TAIL_BYTES", "JsonLines", "decode_line", "tail_hash"]

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longer lines are skipped (and counted) without ever being held in memory whole."""

TAIL_BYTES = 4096
_CHUNK = 1 << 20


def decode_line(line: bytes) -> dict[str, Any] | None:
    """The JSON object on ``line``, or None (not JSON, or not an object)."""
    # orjson is several times faster and agrees with the stdlib on valid JSON, except that
    # integers beyond 64 bits come back as floats. What it refuses (invalid UTF-8, lone
    # surrogates, NaN, a BOM) goes to the lenient stdlib path, so nothing more is skipped.
    fast = _ORJSON or _orjson()
    try:
        value = fast.loads(line)
    except fast.JSONDecodeError:
        return _decode_lenient(line)
    return value if type(value) is dict else None


_ORJSON: Any = None
"""orjson, once a line is read: its import (uuid, platform) is a tenth of a nothing-new
night's start-up, and such a night reads no line. A global test per line costs nothing
next to the parse."""


def _orjson() -> Any:
    global _ORJSON
    import orjson

    _ORJSON = orjson
    return orjson


def _decode_lenient(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except UnicodeDecodeError:
        try:
            value = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            return None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def tail_hash(handle: Any, offset: int) -> str:
    """A hash of the ``TAIL_BYTES`` before ``offset``: an append leaves it unchanged."""
    start = max(0, offset - TAIL_BYTES)
    handle.seek(start)
    return hashlib.blake2b(handle.read(offset - start), digest_size=16).hexdigest()


class JsonLines:
    """One open file, read as JSON lines from ``start`` to its size at open.

    Iterating yields ``(offset, record)``. Counters (``bytes_read``, ``lines_read``,
    ``lines_skipped``, ``lines_too_long``) are plain attributes the caller adds to its
    stats. ``end`` is the offset just past the last complete line read; ``past_end`` says
    whether a record was taken from a final line without its newline (a resumed read
    starting at ``end`` would see that line again). With ``stop_at_bad`` reading stops
    at the first bad line (op-logs, where a later line depends on every earlier one).
    """

    def __init__(self, path: Path, *, start: int = 0, max_line: int = MAX_LINE_BYTES,
                 stop_at_bad: bool = False):
        self.handle = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by close()
        try:
            self.stat = os.fstat(self.handle.fileno())
        except OSError:
            self.handle.close()
            raise
        self.size = self.stat.st_size
        self.start = min(start, self.size)
        self.end = self.start
        self.past_end = False
        self._unterminated = False
        self.max_line = max_line
        self.stop_at_bad = stop_at_bad
        self.bytes_read = 0
        self.lines_read = 0
        self.lines_skipped = 0
        self.lines_too_long = 0

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.handle.close()

    def tail_hash(self) -> str:
        return tail_hash(self.handle, self.end)

    def line_at(self, offset: int) -> dict[str, Any] | None:
        """The record on the line starting at ``offset`` (read again, for spilled files)."""
        self.handle.seek(offset)
        parts: list[bytes] = []
        while True:
            part = self.handle.read(64 * 1024)
            cut = part.find(b"\n")
            parts.append(part if cut < 0 else part[:cut])
            if cut >= 0 or not part:
                return decode_line(b"".join(parts))

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        stop_at_bad = self.stop_at_bad
        for offset, line in self._lines():
            if line is None:
                self.lines_too_long += 1
                self.lines_skipped += 1
                if stop_at_bad:
                    return
                continue
            if not line or line.isspace():
                continue
            self.lines_read += 1
            record = decode_line(line)
            if record is None:
                self.lines_skipped += 1
                if stop_at_bad:
                    return
                continue
            if self._unterminated:
                self.past_end = True
            yield offset, record

    def _lines(self) -> Iterator[tuple[int, bytes | None]]:
        """``(offset, line)`` without its newline; None for a line over ``max_line``."""
        handle, max_line = self.handle, self.max_line
        handle.seek(self.start)
        pos = self.start
        parts: list[bytes] = []  # the line still being assembled across blocks
        pending, line_start, overlong = 0, pos, False
        while pos < self.size:
            block = handle.read(min(_CHUNK, self.size - pos))
            if not block:
                break
            base, pos = pos, pos + len(block)
            self.bytes_read += len(block)
            first = block.find(b"\n")
            if first < 0:
                pending += len(block)
                overlong = overlong or pending > max_line
                parts = [] if overlong else [*parts, block]
                continue
            pending += first
            if overlong or pending > max_line:
                yield line_start, None
            else:
                yield line_start, b"".join([*parts, block[:first]]) if parts else block[:first]
            last = block.rfind(b"\n")
            offset = base + first + 1
            if last > first:
                for line in block[first + 1 : last].split(b"\n"):
                    yield offset, line if len(line) <= max_line else None
                    offset += len(line) + 1
            self.end = base + last + 1
            tail = block[last + 1 :]
            parts, pending, line_start = ([tail] if tail else []), len(tail), self.end
            overlong = pending > max_line
        if overlong:
            yield line_start, None
        elif pending:
            self._unterminated = True
            yield line_start, b"".join(parts)
