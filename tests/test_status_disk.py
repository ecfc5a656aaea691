"""``status`` tells whether each written file is still the version written, byte for byte."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.archive.versions import Version
from skillopt_sleep.pipeline.status import disk_state
from skillopt_sleep.records import sha256_text


def _version(text: str, *targets: Path) -> Version:
    return Version("fix", 2, sha256_text(text), "n1", "adopt", [str(t) for t in targets], "t")


def test_a_crlf_skill_written_byte_exact_is_current(tmp_path: Path) -> None:
    text = "---\r\nname: fix\r\ndescription: d\r\n---\r\nFix bugs.\r\n"
    crlf, changed, gone = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "c.md"
    crlf.write_bytes(text.encode())
    changed.write_bytes(text.replace("\r\n", "\n").encode())  # line endings changed since
    state = disk_state(_version(text, crlf, changed, gone))
    assert state == {str(crlf): "current", str(changed): "modified since", str(gone): "missing"}
