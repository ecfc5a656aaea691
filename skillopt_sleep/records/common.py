"""What every record module shares: the prompt sentinel, time, hashing, the message shape."""

from __future__ import annotations

from datetime import UTC, datetime

SENTINEL = "[skillopt-sleep replay]"
"""First line of every prompt the engine sends; harvesters drop sessions containing it."""

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": str}``."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def sha256_text(text: str) -> str:
    import hashlib  # here: OpenSSL's bindings load only when something is hashed

    return hashlib.sha256(text.encode("utf-8")).hexdigest()
