"""``mine``, ``tasks`` and ``recall``: task families, mined tasks and their neighbours."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from skillopt_sleep import paths
from skillopt_sleep.archive.db import Archive
from skillopt_sleep.cli._json import emit
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.paths import archive_path, state_dir
from skillopt_sleep.records import Split, Task, to_dict

if TYPE_CHECKING:  # the mining modules load only when a command runs
    from skillopt_sleep.mine.catalog import CatalogResult, CatalogSettings
    from skillopt_sleep.mine.families import FamilySettings
    from skillopt_sleep.mine.requests import Request

EmbedderOption = Annotated[
    str,
    typer.Option(
        "--embedder",
        help="minilm (default, offline all-MiniLM-L6-v2), hashing (no torch; "
        "coarser), or mock (tests).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ThresholdOption = Annotated[
    float | None,
    typer.Option("--threshold", help="Mean cosine a request needs to join a family "
                 "(default: config family_threshold, 0.3, as the night uses)."),
]
MinSessionsOption = Annotated[
    int | None,
    typer.Option("--min-sessions", help="Distinct sessions a family needs before it forms "
                 "(default: config min_family_sessions, 2)."),
]
RatiosOption = Annotated[
    str, typer.Option("--split-ratios", help="train:validation:test by family.")
]
RequestsOption = Annotated[
    Path,
    typer.Option(
        "--requests",
        help='JSON Lines: {"id", "session_id", "project", "text"}, optional '
        '"signal", "reaction", "correction", "skills_used".',
    ),
]
ProjectOption = Annotated[str | None, typer.Option("--project", help="Only this project.")]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since", help="Only sessions that ended at or after this ISO time (with a zone)."
    ),
]
SplitOption = Annotated[
    str | None,
    typer.Option("--split", help="Only tasks of this split: train, validation or test."),
]
HeadlessOption = Annotated[
    bool,
    typer.Option("--include-headless", help="Also mine headless sessions (claude -p, codex exec)."),
]
SkillsDirOption = Annotated[
    list[Path] | None,
    typer.Option("--skills-dir", help="Skill roots for routing (default: the agents' skill dirs)."),
]


def register(app: typer.Typer) -> None:
    """Add ``mine``, ``tasks`` and ``recall`` to ``app``."""
    app.command("mine")(mine_command)
    app.command("tasks")(tasks_command)
    app.command("recall")(recall_command)


@contextmanager
def working(message: str) -> Iterator[None]:
    """``_console.working`` on a terminal; on a pipe or a file (where it shows nothing)
    without importing rich, which a ``mine`` pass adding 1 % to a history would pay for."""
    if not sys.stderr.isatty():
        yield
        return
    from skillopt_sleep.cli._console import working as spinner

    with spinner(message):
        yield


def _emit(obj: Any) -> None:
    emit(obj, ensure_ascii=False)


PREVIEW_NOTE = ("a preview: nothing was stored, so the next night mines with its own settings "
                "(recall finds the tasks a night stored)")


@contextmanager
def _preview(into: Path | None = None) -> Iterator[tuple[Archive, Path]]:
    """A throwaway copy of the archive and the family index to mine into (or, with
    ``into``, an archive and index of their own in that folder, kept between runs).

    ``mine`` and ``tasks`` take their own threshold, embedder, filters and skill roots; had
    they stored what they found, the next night would start from families formed by other
    settings (``tasks`` then ``run`` gave 62 families and no accepted edit, ``run`` alone 34
    and one), so they never write the real state."""
    if into is not None:
        if into.resolve() == state_dir().resolve():
            raise ConfigError(f"--state {into}: that is the state the nights read; "
                              "give another folder")
        kept = Archive(paths.ensure(into) / "archive.sqlite3")
        try:
            yield kept, into / "index"
        finally:
            kept.close()
        return
    with tempfile.TemporaryDirectory(prefix="skillopt-preview-") as tmp:
        index = Path(tmp) / "index"
        if (state_dir() / "index").is_dir():
            shutil.copytree(state_dir() / "index", index)
        real = Archive(archive_path())
        try:
            copy = real.copy_to(Path(tmp) / "archive.sqlite3")
        finally:
            real.close()
        try:
            yield copy, index
        finally:
            copy.close()


def _settings(threshold: float | None, min_sessions: int | None, ratios: str) -> CatalogSettings:
    """Family settings from the flags, else from config, the same keys the night reads."""
    from skillopt_sleep.mine.catalog import CatalogSettings
    from skillopt_sleep.mine.splits import parse_ratios

    return CatalogSettings(family=_family_settings(threshold, min_sessions),
                           ratios=parse_ratios(ratios))


def _family_settings(threshold: float | None, min_sessions: int | None) -> FamilySettings:
    """``_settings``' family half, without the catalog (tasks, judges, the models): ``mine``
    needs no more, and a pass that adds 1 % to a history pays for every import."""
    from skillopt_sleep import config
    from skillopt_sleep.mine.families import FamilySettings

    if threshold is None or min_sessions is None:
        settings = config.load(Path.cwd())
        threshold = settings.family_threshold if threshold is None else threshold
        min_sessions = settings.min_family_sessions if min_sessions is None else min_sessions
    if not 0.0 < threshold <= 1.0:
        raise ConfigError(f"--threshold must be in (0, 1], got {threshold}")
    if min_sessions < 1:
        raise ConfigError(f"--min-sessions must be at least 1, got {min_sessions}")
    return FamilySettings(threshold=threshold, min_sessions=min_sessions)


def mine_command(
    requests: RequestsOption,
    embedder: EmbedderOption = "minilm",
    threshold: ThresholdOption = None,
    min_sessions: MinSessionsOption = None,
    split_ratios: RatiosOption = "2:1:7",
    into: Annotated[Path | None, typer.Option(
        "--state", help="Mine into this folder's own archive and index, kept between runs "
        "(never the nights' state); default: a throwaway copy.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Group requests into recurring task families (a preview: the nights' state is never
    written)."""
    from skillopt_sleep.mine.requests import read_requests
    from skillopt_sleep.mine.splits import parse_ratios

    family = _family_settings(threshold, min_sessions)
    ratios = parse_ratios(split_ratios)
    found, problems = read_requests(requests)
    for problem in problems:
        typer.echo(f"skipped: {problem}", err=True)
    with working(f"mining {len(found)} request(s) ({embedder} embeddings)"):
        families, counts = _mine_families(found, embedder, family, ratios, into)
    summary = counts | {"bad_lines": len(problems), "listed": len(families),
                        "preview": into is None}
    if as_json:
        _emit({"families": families, "summary": summary})
        return
    for f in families:
        typer.echo(
            f"{f['family_id']}  {f['split']:10} {len(f['members']):3} members  "
            f"{f['representative'][:70]}"
        )
    typer.echo(", ".join(f"{k} {v}" for k, v in summary.items()), err=True)
    typer.echo(PREVIEW_NOTE if into is None else f"stored in {into}", err=True)


def _mine_families(
    found: list[Request], embedder: str, family_settings: FamilySettings,
    ratios: tuple[float, ...], into: Path | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Mine ``found`` into the archive: the families holding any of them, and the counts."""
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.miner import Miner
    from skillopt_sleep.mine.vectors import medoid

    with _preview(into) as (archive, index):
        miner = Miner(archive, make_embedder(embedder), family_settings, ratios,
                      index_base=index)
        report = miner.mine(found, every_family=False)
        new = {f.id for f in report.grown if f.new}
        texts = {r.id: r.text for r in found}
        # The families holding a request of the file, read by key: listing every family
        # of the project would cost a pass in proportion to the whole history. Those that
        # grew come with their members; others (the file mined before) are read here.
        held = {r.family_id for r in miner.store.rows_by_id(list(texts)) if r.family_id}
        members = {f.id: f.members for f in report.grown if f.id in held}
        members |= miner.store.members_of(held - members.keys())
        rows = [row for row in map(miner.store.family, held) if row is not None]
        indexes = {p: miner.open_index(p) for p in {row.project for row in rows}}
        families: list[dict[str, Any]] = []
        for row in sorted(rows, key=lambda r: (r.project, r.family_id)):
            ids = members.get(row.family_id, [])
            vectors = indexes[row.project].vectors(ids)
            rep = ids[medoid(vectors)]
            if rep not in texts:  # the representative alone, by key
                texts.update({r.id: r.text for r in miner.store.rows_by_id([rep])})
            families.append({"family_id": row.family_id, "project": row.project,
                             "members": ids, "representative": texts[rep],
                             "split": row.split, "new": row.family_id in new})
    return families, dict(report.counts)


def _load_requests(
    archive: Archive, project: str | None, since: str | None, include_headless: bool
) -> list[Request]:
    try:
        from skillopt_sleep.archive.sessions import load_sessions
        from skillopt_sleep.harvest.base import parse_since
    except ImportError as exc:
        raise ConfigError(
            f"the session archive cannot be read in this install ({exc}); "
            "use `skillopt-sleep mine --requests FILE.jsonl` instead"
        ) from exc
    from skillopt_sleep.mine.requests import requests_from_sessions

    sessions = load_sessions(
        archive, project=project, since=parse_since(since), include_headless=include_headless
    )
    return list(requests_from_sessions(sessions))


def tasks_command(
    project: ProjectOption = None,
    since: SinceOption = None,
    split: SplitOption = None,
    include_headless: HeadlessOption = False,
    skills_dir: SkillsDirOption = None,
    embedder: EmbedderOption = "minilm",
    threshold: ThresholdOption = None,
    min_sessions: MinSessionsOption = None,
    split_ratios: RatiosOption = "2:1:7",
    as_json: JsonOption = False,
) -> None:
    """Mine the archived sessions into tasks and list them with their judges and splits
    (a preview: nothing is stored, the next night mines with its own settings)."""
    if split is not None and split not in {s.value for s in Split}:
        raise ConfigError(f"--split must be train, validation or test, got {split!r}")
    settings = _settings(threshold, min_sessions, split_ratios)
    with working(f"mining the archived sessions ({embedder} embeddings)"):
        result = _refresh_catalog(project, since, include_headless, skills_dir, embedder,
                                  settings)
    shown = [
        t
        for t in result.tasks
        if (split is None or t.split == split) and (project is None or t.project == project)
    ]
    summary = dict(result.report.counts) | {"tasks": len(shown), "uncovered": result.uncovered,
                                            "preview": True}
    for task in shown:
        _print_task(task, as_json)
    if as_json:
        _emit({"summary": summary})
    else:
        typer.echo(
            f"{len(shown)} tasks; families no skill covers: {len(result.uncovered)}", err=True
        )
        typer.echo(PREVIEW_NOTE, err=True)


def _refresh_catalog(
    project: str | None,
    since: str | None,
    include_headless: bool,
    skills_dir: list[Path] | None,
    embedder: str,
    settings: CatalogSettings,
) -> CatalogResult:
    """Mine the archived sessions into the task catalog; what ``Catalog.refresh`` returns."""
    from skillopt_sleep.mine.catalog import Catalog
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.skills import discover_skills

    with _preview() as (archive, index):
        requests = _load_requests(archive, project, since, include_headless)
        catalog = Catalog(archive, make_embedder(embedder), settings=settings,
                          skills=discover_skills(skills_dir), index_base=index)
        return catalog.refresh(requests)


def _print_task(task: Task, as_json: bool) -> None:
    if as_json:
        _emit(to_dict(task))
        return
    state = "" if task.meta.get("replayable", True) else "  (unreplayable)"
    typer.echo(
        f"{task.id}  {task.split:10} {task.skill:24} {task.judge.kind:6} "
        f"{len(task.judge.checks)} checks  {task.intent[:60]}{state}"
    )


def recall_command(
    task: Annotated[str, typer.Option("--task", help="Task id (as tasks lists them).")],
    k: Annotated[int, typer.Option("-k", help="How many neighbours.")] = 20,
    scope: Annotated[str, typer.Option("--scope", help="project or all.")] = "project",
    embedder: EmbedderOption = "minilm",
    as_json: JsonOption = False,
) -> None:
    """The nearest past train tasks to TASK, contrasted by outcome."""
    from skillopt_sleep.archive.mining import MiningStore
    from skillopt_sleep.mine.embed import make_embedder
    from skillopt_sleep.mine.recall import SCOPES, Recaller, task_outcome

    if scope not in SCOPES:
        raise ConfigError(f"--scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if k < 1:
        raise ConfigError(f"-k must be at least 1, got {k}")
    archive = Archive(archive_path())
    try:
        found = MiningStore(archive).task(task)
        if found is None:
            raise ConfigError(
                f"no task {task!r} in the archive: recall knows the tasks a night stored "
                "(`skillopt-sleep run`); `skillopt-sleep tasks` previews them"
            )
        with working(f"finding the {k} nearest past tasks ({embedder} embeddings)"):
            neighbours = Recaller(archive, make_embedder(embedder)).recall(found, k, scope)
    finally:
        archive.close()
    for n in neighbours:
        if as_json:
            _emit(to_dict(n))
        else:
            typer.echo(f"{n.similarity:.3f}  {n.outcome:8} {n.family_id}  {n.text[:70]}")
    summary = {
        "task": task,
        "outcome": task_outcome(found),
        "k": k,
        "scope": scope,
        "found": len(neighbours),
    }
    if as_json:
        _emit({"summary": summary})
