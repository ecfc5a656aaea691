"""Fakes that speak real wire formats, for tests that drive real clients offline."""

from .llm_server import (
    FakeLLMServer,
    Hang,
    Malformed,
    RecordedRequest,
    Reply,
    Status,
    Text,
    ToolThenText,
    ToolUse,
)

__all__ = [
    "FakeLLMServer",
    "Hang",
    "Malformed",
    "RecordedRequest",
    "Reply",
    "Status",
    "Text",
    "ToolThenText",
    "ToolUse",
]
