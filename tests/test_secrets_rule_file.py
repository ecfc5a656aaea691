"""detect-secrets' vendor rules kept in a file (``secrets.rule_file``): the next process
gets the same rules without importing detect-secrets, and a changed plugin file, a damaged
or foreign file, or a folder that cannot be written falls back to reading the plugins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from skillopt_sleep.secrets import rule_file, vendor

REPO = Path(__file__).resolve().parents[1]

# Reads the rules with a rule file named, and says whether detect-secrets was imported.
_PROBE = (
    "import sys, json\n"
    "from pathlib import Path\n"
    "from skillopt_sleep.secrets import vendor\n"
    "vendor.keep_rules_in(lambda: Path(sys.argv[1]))\n"
    "rules = vendor.vendor_rules()\n"
    "print(json.dumps({'rules': [[k, r.pattern, r.flags] for k, r in rules],\n"
    "                  'imported': 'detect_secrets' in sys.modules}))\n"
)


def _probe(where: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(where)], capture_output=True,
                          text=True, timeout=120, check=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    found: dict[str, object] = json.loads(done.stdout)
    return found


def _read() -> list[list[object]]:
    return [[k, r.pattern, r.flags] for k, r in vendor._read_rules()]


def test_the_next_process_reads_the_same_rules_from_the_file(tmp_path: Path) -> None:
    where = tmp_path / "cache" / "vendor-rules.json"
    first = _probe(where)
    assert first["imported"] is True and where.is_file()
    second = _probe(where)
    assert second["imported"] is False
    assert second["rules"] == first["rules"] == _read()
    assert len(_read()) > 20


def test_a_damaged_or_foreign_file_is_read_again_and_rewritten(tmp_path: Path) -> None:
    where = tmp_path / "vendor-rules.json"
    for text in ("not json", json.dumps({"key": ["another"], "rules": []}),
                 json.dumps({"rules": [["aws", "(", 0]]})):
        where.write_text(text, encoding="utf-8")
        found = _probe(where)
        assert found["imported"] is True and found["rules"] == _read()
        assert json.loads(where.read_text(encoding="utf-8"))["rules"] == _read()


def test_a_changed_plugin_file_changes_the_key(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    plugins = vendor._PLUGINS
    key = rule_file._key(plugins, vendor._KINDS)
    assert key is not None
    folder = Path(key[1])
    real_stat = Path.stat

    def touched(self: Path, *args: object, **kwargs: object) -> object:
        found = real_stat(self, *args, **kwargs)  # type: ignore[arg-type]
        if self == folder / f"{plugins[0]}.py":  # rewritten by an upgrade, same size
            return SimpleNamespace(st_size=found.st_size, st_mtime_ns=found.st_mtime_ns + 1)
        return found

    monkeypatch.setattr(Path, "stat", touched)
    assert rule_file._key(plugins, vendor._KINDS) != key
    monkeypatch.undo()
    assert rule_file._key(plugins, {**vendor._KINDS, "aws": "aws_key"}) != key
    assert rule_file._key(plugins[1:], vendor._KINDS) != key


def test_a_folder_that_cannot_be_written_still_gives_the_rules(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    rules = rule_file.load(blocked / "vendor-rules.json", vendor._PLUGINS, vendor._KINDS,
                           vendor._read_rules)
    assert [[k, r.pattern, r.flags] for k, r in rules] == _read()


def test_redaction_with_kept_rules_finds_what_the_plugins_find(tmp_path: Path) -> None:
    from skillopt_sleep.secrets import redact

    token = "ghp_R8sKq2ZxW4mN7pLvT1cY9bH3dF6gJ0aE5uQi"
    vendor.keep_rules_in(lambda: tmp_path / "vendor-rules.json")
    try:
        vendor.vendor_rules()  # written
        vendor.vendor_rules.cache_clear()
        assert redact(f"key {token} here")[0] == "key [REDACTED:github_token] here"
    finally:
        vendor.keep_rules_in(None)
