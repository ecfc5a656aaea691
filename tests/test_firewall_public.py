"""``lint`` on real public skills: every finding pinned and reviewed, no errors.

The shared corpus (``../shared/fixtures/skills-public``, 118 files from 30 repositories)
is required under ``SKILLOPT_SLEEP_REQUIRE_ALL=1``; a few of its files are copied into
``tests/fixtures/skills-public`` (provenance in FIREWALL-SOURCES.md) so the default suite
reads real skills too."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from skillopt_sleep.cli.app import app
from tests._firewall_pins import pinned, reading
from tests._require import require

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "fixtures" / "skills-public"
OWN = REPO / "tests" / "fixtures" / "skills-public"


def test_the_shared_corpus_reads_as_pinned() -> None:
    require(SHARED.is_dir(), f"the shared skills corpus is not at {SHARED}")
    assert reading(SHARED) == pinned()


def test_the_copied_real_skills_read_as_their_pins() -> None:
    own = reading(OWN)
    assert own, "no real skills copied into the repository"
    assert set(own) <= set(pinned())  # same bytes, same findings as in the shared corpus
    classes = {line.split()[2] for line in own}
    assert {"run_fetched_code", "reach_host", "frontmatter_shape"} <= classes


def test_lint_on_real_skills_exits_zero_and_speaks_json_lines() -> None:
    done = CliRunner().invoke(app, ["lint", "--json", str(OWN)])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in done.output.splitlines()]
    *findings, summary = rows
    copied = [p for p in OWN.rglob("*.md") if p.name in ("SKILL.md", "skill.md",
              "copilot-instructions.md") or p.name.endswith(".instructions.md")]
    assert summary["summary"]["errors"] == 0 and summary["summary"]["files"] == len(copied) >= 5
    assert all({"path", "line", "rule", "severity", "excerpt", "capability"} <= set(r)
               for r in findings)
    installs = [r for r in findings if r["rule"] == "run_fetched_code"]
    assert installs and all(r["severity"] == "warning" for r in installs)


def test_security_guidance_that_names_attacks_grants_nothing() -> None:
    auditor = [line for line in reading(OWN) if "skill-security-auditor" in line]
    assert not [line for line in auditor if " warning " in line or " error " in line]
