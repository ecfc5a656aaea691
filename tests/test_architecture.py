"""The house rules, checked on the source: data flows one way and SQL lives in one room.

The stage order is written once, here (ARCHITECTURE.md draws the same picture). A module
may import from its own stage and from earlier ones, never from a later one; no two
modules import each other, directly or around a loop, whether at the top of the file or
inside a function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "skillopt_sleep"

STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("_codec", "errors", "records", "paths", "secrets", "atomic", "config",
                    "tables", "frontmatter", "skilldoc", "skill_names", "firewall", "resources",
                    "stamps")),
    ("harvest", ("harvest",)),
    ("archive", ("archive",)),
    ("models", ("models",)),
    ("judges", ("judges",)),
    ("mine", ("mine",)),
    ("night", ("night",)),
    ("publish", ("publish",)),
    ("pipeline", ("pipeline",)),
    ("sim", ("sim",)),
    ("faces", ("cli", "daemon", "__main__")),
    ("api", ("",)),  # skillopt_sleep/__init__.py: the public API re-exports every stage
]

SQL = re.compile(
    r"\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TABLE|INDEX)|PRAGMA\s+\w+|sqlite3\.connect)"
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _stage(module: str) -> int:
    head = module.split(".")[0]
    for index, (_, heads) in enumerate(STAGES):
        if head in heads:
            return index
    raise AssertionError(f"module {module!r} belongs to no stage: add it to STAGES")


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Every project module ``module`` imports, wherever in the file the import is."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            names = [stem] + [f"{stem}.{a.name}" for a in node.names]
        for name in names:
            if name == "skillopt_sleep" or name.startswith("skillopt_sleep."):
                name = name.removeprefix("skillopt_sleep").removeprefix(".")
            elif node.__class__ is ast.Import or not getattr(node, "level", 0):
                continue
            if name in known and name != module:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {m: _imports(m, p, known) for m, p in modules.items()}


def test_every_module_has_a_stage():
    for module in _modules():
        _stage(module)


def test_no_module_imports_from_a_later_stage():
    graph = _graph()
    backwards = sorted(
        f"{m} ({STAGES[_stage(m)][0]}) imports {d} ({STAGES[_stage(d)][0]})"
        for m, deps in graph.items()
        for d in deps
        if _stage(d) > _stage(m) and not _is_parent_package(d, m)
    )
    assert not backwards, "\n".join(backwards)


def _is_parent_package(dep: str, module: str) -> bool:
    # importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__``: not an import of their code
    return module.startswith(dep + ".") or dep == ""


def test_no_import_circle():
    graph = {m: {d for d in deps if not _is_parent_package(d, m)} for m, deps in _graph().items()}
    circles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                circles.append([*trail[trail.index(dep):], dep] if dep in trail else [node, dep])
            elif dep not in state:
                visit(dep, [*trail, dep])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


def test_sql_lives_only_in_the_archive():
    outside = []
    for module, path in _modules().items():
        if module.split(".")[0] == "archive":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if SQL.search(line):
                outside.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not outside, "\n".join(outside)


def test_the_checks_would_catch_a_violation(tmp_path):
    """The rules above are not vacuous: a backward import and a circle are both seen."""
    assert _stage("night.run") > _stage("harvest.base")
    code = "from skillopt_sleep.night.run import Night\n"
    fake = tmp_path / "base.py"
    fake.write_text(code)
    assert _imports("harvest.base", fake, {"night.run", "harvest.base"}) == {"night.run"}
    assert SQL.search('conn.execute("SELECT skill FROM skill_versions")')
