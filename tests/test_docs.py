"""The documentation: a short README, a MkDocs site that builds with ``--strict``, and
reference pages that cannot drift from the code."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import config
from skillopt_sleep.cli import reference
from tests._require import require

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 200


def test_readme_is_a_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    for heading in ("## Install for daily use", "## Set-up: two commands", "## The daily loop",
                    "## Agents"):
        assert heading in text
    # The two set-up commands the CI and a new user rely on.
    assert "make demo" in text and "make test" in text


def test_every_relative_link_of_the_readme_and_the_site_resolves() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_every_setting_has_its_docstring() -> None:
    docs = reference.field_docs()
    missing = [f.name for f in dataclasses.fields(config.Settings) if not docs.get(f.name)]
    assert missing == []


@pytest.mark.parametrize("page", sorted(reference.PAGES))
def test_reference_pages_match_the_code(page: str) -> None:
    committed = (ROOT / "docs" / "reference" / page).read_text(encoding="utf-8")
    assert committed == reference.PAGES[page](), (
        f"docs/reference/{page} is stale: run python -m skillopt_sleep.cli.reference "
        "docs/reference")


def test_the_configuration_page_names_every_key_its_default_and_range() -> None:
    page = reference.config_reference()
    for spec in dataclasses.fields(config.Settings):
        assert f"## `{spec.name}`" in page
    section = page.split("## `max_usd_per_skill`")[1].split("## ")[0]
    assert f"default: `{config.Settings().max_usd_per_skill}`" in section
    assert "range: 0 or more" in section
    assert "environment: `SKILLOPT_SLEEP_MAX_USD_PER_SKILL`" in section


def test_the_cli_page_lists_every_command_and_the_exit_codes() -> None:
    import typer

    from skillopt_sleep.cli.app import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root)
    page = reference.cli_reference()
    for name in root.list_commands(ctx):  # type: ignore[attr-defined]
        sub = root.get_command(ctx, name)  # type: ignore[attr-defined]
        if sub is not None and not sub.hidden:
            assert f"## `skillopt-sleep {name}" in page
    assert "`--dry-run`" in page
    for code, _, _ in reference.EXIT_CODES:
        assert f"\n| {code} |" in page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require(importlib.util.find_spec("mkdocs") is not None
            and importlib.util.find_spec("material") is not None,
            "mkdocs-material is not installed (pip install -e '.[dev]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    for page in ("index.html", "install/index.html", "privacy/index.html",
                 "reference/configuration/index.html", "reference/cli/index.html"):
        assert (site / page).is_file(), page


def test_the_site_renders_in_headless_chromium(site: Path, tmp_path: Path) -> None:
    exe = shutil.which("chromium")
    require(exe is not None, "headless chromium is not installed (Debian package: chromium)")
    assert exe is not None
    page = site / "reference" / "configuration" / "index.html"
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
           page.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False).stdout
    assert "Configuration reference" in dom
    assert 'id="max_usd_per_night"' in dom
    # The navigation lists the reference beside the pages a user starts with.
    assert "The daily loop" in dom and "Privacy and the trust boundary" in dom
