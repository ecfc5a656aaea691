"""The pinned reading of real skills: every finding ``lint`` makes on a file, as one line
``path:line: severity rule target``. Secrets are left out: their rules are ``secrets``'s."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.firewall import lint_document

PINS = Path(__file__).parent / "data" / "firewall_public_pins.txt"
NAMES = ("SKILL.md", "skill.md", "copilot-instructions.md")


def skill_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md")
                  if p.name in NAMES or p.name.endswith(".instructions.md"))


def reading(root: Path) -> list[str]:
    """Every finding on every skill file under ``root``, one line each."""
    out: list[str] = []
    for path in skill_files(root):
        text = path.read_bytes().decode("utf-8", errors="replace")
        folder = path.parent.name if path.name.lower() == "skill.md" else ""
        for f in lint_document(text, folder=folder):
            if f.rule == "secret":
                continue
            target = f.excerpt.split(": ", 1)[0] if f.capability else (
                "" if f.rule == "size" else f.excerpt)
            out.append(f"{path.relative_to(root).as_posix()}:{f.line}: {f.severity} {f.rule}"
                       f" {target}".rstrip())
    return out


def pinned() -> list[str]:
    return [line for line in PINS.read_text("utf-8").splitlines() if line and line[0] != "#"]


if __name__ == "__main__":  # rewrite the pins after a reviewed change of the rules
    import sys

    lines = reading(Path(sys.argv[1]))
    PINS.write_text("# path:line: severity rule target — reviewed by hand; see "
                    "docs-draft/firewall.md\n" + "\n".join(lines) + "\n", "utf-8")
    print(len(lines), "findings pinned")
