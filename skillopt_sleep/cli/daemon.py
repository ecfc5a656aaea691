"""``daemon run|status|install|uninstall`` and ``enroll`` / ``unenroll``.

Imports of the daemon's modules stay inside the commands: the CLI starts fast, and the
daemon's process holds only what it uses.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from skillopt_sleep.cli._json import emit
from skillopt_sleep.errors import ConfigError

daemon_app = typer.Typer(
    help="The background service: nightly runs and session watching.", no_args_is_help=True
)

HourOption = Annotated[
    int | None,
    typer.Option("--hour", help="Hour of the nightly run (0-23, local time; default 3)."),
]
MinuteOption = Annotated[int | None, typer.Option("--minute", help="Minute (default 17).")]
TargetOption = Annotated[str | None, typer.Option("--target", help="Target model spec.")]
OptimizerOption = Annotated[str | None, typer.Option("--optimizer", help="Optimizer model spec.")]
AdoptOption = Annotated[
    str | None,
    typer.Option(
        "--adopt",
        help="review (stage only) or auto (write validated skills back; the daemon's default).",
    ),
]
MinNewOption = Annotated[
    int | None,
    typer.Option("--min-new-sessions", help="Skip a night with fewer new sessions than this."),
]
AcOption = Annotated[
    bool | None,
    typer.Option(
        "--require-ac-power/--allow-battery", help="Skip nights on battery (where detectable)."
    ),
]
DebounceOption = Annotated[
    float,
    typer.Option(
        "--debounce", help="Seconds a transcript must stay unchanged before it is harvested."
    ),
]
MaxLoadOption = Annotated[
    float | None,
    typer.Option(
        "--max-load",
        help="Hold a night while the 5-minute load average per CPU is above this"
        " (e.g. 0.5; retried every 15 minutes for 3 hours). Default: off.",
    ),
]
WatchOption = Annotated[
    bool, typer.Option("--watch/--no-watch", help="Harvest sessions as they end.")
]
ProjectOption = Annotated[
    Path | None, typer.Option("--project", help="The project folder (default: the current one).")
]


def register(app: typer.Typer) -> None:
    """Add the ``daemon`` group and ``enroll`` / ``unenroll`` to ``app``."""
    app.add_typer(daemon_app, name="daemon")
    app.command("enroll")(enroll_command)
    app.command("unenroll")(unenroll_command)


def _overrides(
    hour: int | None,
    minute: int | None,
    target: str | None,
    optimizer: str | None,
    adopt: str | None,
    min_new: int | None = None,
    ac: bool | None = None,
) -> dict[str, Any]:
    """The settings given on the command line, checked; those not given are left out."""
    _check_time(hour, minute)
    _check_specs(target, optimizer, adopt)
    values = {
        "hour": hour,
        "minute": minute,
        "target": target,
        "optimizer": optimizer,
        "adopt": adopt,
        "min_new_sessions": min_new,
        "require_ac_power": ac,
    }
    return {k: v for k, v in values.items() if v is not None}


def _check_load(max_load: float | None) -> None:
    if max_load is not None and not max_load > 0:
        raise ConfigError(f"--max-load {max_load:g}: must be above 0 (load per CPU)")


def _as_flags(
    overrides: dict[str, Any], debounce: float, watch: bool, max_load: float | None = None
) -> list[str]:
    flags: list[str] = []
    for key, value in overrides.items():
        if key == "require_ac_power":
            flags.append("--require-ac-power" if value else "--allow-battery")
        else:
            flags += [f"--{key.replace('_', '-')}", str(value)]
    flags += ["--debounce", f"{debounce:g}"]
    if max_load is not None:
        flags += ["--max-load", f"{max_load:g}"]
    if not watch:
        flags.append("--no-watch")
    return flags


def _check_time(hour: int | None, minute: int | None) -> None:
    if hour is not None and not 0 <= hour <= 23:
        raise ConfigError(f"--hour {hour}: must be 0-23")
    if minute is not None and not 0 <= minute <= 59:
        raise ConfigError(f"--minute {minute}: must be 0-59")


def _check_specs(target: str | None, optimizer: str | None, adopt: str | None) -> None:
    if adopt is not None and adopt not in ("review", "auto"):
        raise ConfigError(f"--adopt {adopt!r}: choose review or auto")
    if target or optimizer:
        from skillopt_sleep.models.registry import parse_spec

        for spec in (target, optimizer):
            if spec:
                parse_spec(spec)


@dataclass(frozen=True)
class ServiceOptions:
    """How the service runs: the settings it overrides, and how it watches and waits."""

    overrides: dict[str, Any]
    debounce: float
    watch: bool
    max_load: float | None

    def as_flags(self) -> list[str]:
        return _as_flags(self.overrides, self.debounce, self.watch, self.max_load)


def _service_options(
    hour: HourOption = None,
    minute: MinuteOption = None,
    target: TargetOption = None,
    optimizer: OptimizerOption = None,
    adopt: AdoptOption = None,
    min_new_sessions: MinNewOption = None,
    require_ac_power: AcOption = None,
    debounce: DebounceOption = 120.0,
    watch: WatchOption = True,
    max_load: MaxLoadOption = None,
) -> ServiceOptions:
    """The options ``daemon run`` and ``daemon install`` share (written once, here), checked."""
    overrides = _overrides(
        hour, minute, target, optimizer, adopt, min_new_sessions, require_ac_power
    )
    _check_load(max_load)
    return ServiceOptions(overrides, debounce, watch, max_load)


def _with_service_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command(service, **own)`` as a typer command taking its own options and the shared
    ones: typer reads the combined signature, the wrapper folds the shared values back."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
           if p.name != "service"]
    shared = list(inspect.signature(_service_options, eval_str=True).parameters.values())

    @functools.wraps(command)
    def wrapper(**values: Any) -> None:
        service = _service_options(**{p.name: values.pop(p.name) for p in shared})
        command(service, **values)

    wrapper.__signature__ = inspect.Signature(own + shared)  # type: ignore[attr-defined]
    return wrapper


@daemon_app.command("run")
@_with_service_options
def run_command(service: ServiceOptions) -> None:
    """Run the service in the foreground (what the installed user service runs)."""
    from skillopt_sleep.daemon.foreground import serve

    raise typer.Exit(serve(service.overrides, watch=service.watch, debounce=service.debounce,
                           max_load=service.max_load))


@daemon_app.command("status")
def status_command(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Next run per project, last night's result, watched folders, memory."""
    from skillopt_sleep.daemon.status import daemon_status

    report = daemon_status()
    if as_json:
        emit(report, ensure_ascii=False)
        return
    state = f"running (pid {report['pid']}" if report["running"] else "not running"
    if report["rss_bytes"]:
        state += f", {report['rss_bytes'] / 2**20:.0f} MB RSS)"
    elif report["running"]:
        state += ")"
    typer.echo(f"daemon: {state}; log {report['log']}")
    for project in report["projects"]:
        typer.echo(
            f"  {project['project']}: next {project['next_run']}, adopt "
            f"{project['adopt']}; last night {_last_night(project)}"
        )
        own = project.get("daemon_last_result") or {}
        if own and own is not project["last_night"] and own.get("status") != "ok":
            typer.echo(
                f"    daemon's last attempt {own.get('at')}: {own.get('status')}"
                + (f" ({own['why']})" if own.get("why") else "")
            )
    if not report["projects"]:
        typer.echo("  no project enrolled (skillopt-sleep enroll --project PATH)")
    for watched in report["watched"]:
        typer.echo(f"  watching {watched['source']}: {watched['path']}")


def _last_night(project: dict[str, Any]) -> str:
    last = project["last_night"] or {}
    if last.get("from") == "archive":
        accepted = sum(s["accepted"] for s in last["skills"])
        return (
            f"{last['night_id']} {last['status']} ({len(last['skills'])} skill(s),"
            f" {accepted} edit(s) accepted, ${last['cost_usd']:.2f})"
            + (f": {last['why']}" if last.get("why") else "")
        )
    return str(last.get("status", "none")) + (f" ({last['why']})" if last.get("why") else "")


@daemon_app.command("install")
@_with_service_options
def install_command(
    service: ServiceOptions,
    kind: Annotated[
        str | None,
        typer.Option("--kind", help="systemd (Linux default), launchd (macOS default) or cron."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print, write nothing.")] = False,
) -> None:
    """Install the daemon as a user service running this interpreter with these flags."""
    from skillopt_sleep.daemon.install import install

    done = install(kind, service.as_flags(), dry_run=dry_run)
    typer.echo(f"{'would write' if dry_run else 'wrote'} {done.kind}: {done.path}")
    typer.echo(done.content.rstrip("\n"))
    for hint in done.hints:
        typer.echo(hint)
    if not dry_run and not done.enabled:
        # Written but not running: a script or a user reading only the exit code must know.
        typer.echo(f"skillopt-sleep: the {done.kind} service is written but not enabled; "
                   "see the line above", err=True)
        raise typer.Exit(1)


@daemon_app.command("uninstall")
def uninstall_command() -> None:
    """Disable the user service and remove exactly what ``daemon install`` wrote."""
    from skillopt_sleep.daemon.install import uninstall

    removed = uninstall()
    for item in removed:
        typer.echo(f"removed {item}")
    if not removed:
        typer.echo("nothing to remove: the daemon is not installed")


def _project_key(project: Path | None, must_exist: bool = True) -> str:
    from skillopt_sleep.harvest.base import project_of

    folder = (project or Path.cwd()).expanduser()
    if not folder.is_dir():
        if not must_exist:  # a project deleted since it was enrolled can still be removed
            return str(folder.absolute()).rstrip("/") or "/"
        raise ConfigError(f"--project {folder}: not a folder")
    return project_of(str(folder.resolve()))


def _enrolled() -> dict[str, Any]:
    """The ``[projects]`` table of the user config: enrolled project -> its settings."""
    from skillopt_sleep import config

    return dict(config.read_toml(config.paths.config_file()).get("projects") or {})


def enroll_command(
    project: ProjectOption = None,
    hour: HourOption = None,
    minute: MinuteOption = None,
    target: TargetOption = None,
    optimizer: OptimizerOption = None,
    adopt: AdoptOption = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Enroll even if a configured model cannot run here now.")] = False,
) -> None:
    """Let the daemon serve a project (settings given here are kept for its nights)."""
    from skillopt_sleep import config

    given = _overrides(hour, minute, target, optimizer, adopt)
    key = _project_key(project)
    projects = _enrolled()
    entry = dict(projects.get(key) or {})
    entry.setdefault("enrolled_at", datetime.now(UTC).isoformat(timespec="seconds"))
    entry.update(given)
    if not force:
        _check_runnable(Path(key), entry)
    projects[key] = entry
    path = config.write_user({"projects": projects})
    when = (
        f"{entry.get('hour', 3):02d}:{entry.get('minute', 17):02d}"
        if "hour" in entry or "minute" in entry
        else "the configured hour"
    )
    typer.echo(
        f"enrolled {key}: nightly at {when}, adopt {entry.get('adopt', 'auto')}"
        f" (recorded in {path})"
    )


def _check_runnable(path: Path, entry: dict[str, Any]) -> None:
    """The offline pre-flight of the project's nights as the daemon would run them (its
    ``daemon.env`` keys included): a daemon set up to fail every night is refused."""
    from skillopt_sleep import config
    from skillopt_sleep.daemon.install import env_file
    from skillopt_sleep.daemon.projects import ENTRY_SETTINGS
    from skillopt_sleep.models.build import check_roles

    settings = config.load(path, flags={k: entry[k] for k in ENTRY_SETTINGS if k in entry})
    saved = dict(os.environ)
    try:
        os.environ.update(_env_lines(env_file()))
        problems = [p for c in check_roles(settings, reach=False) for p in c.problems()]
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if problems:
        raise ConfigError("the daemon's nights could not run here: " + "; ".join(problems)
                          + "; fix it, or enroll with --force")


def _env_lines(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a systemd environment file (comments and blanks skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in text.splitlines()
             if "=" in line and not line.lstrip().startswith("#"))
    return {k.strip(): v.strip().strip('"') for k, v in pairs}


def unenroll_command(project: ProjectOption = None) -> None:
    """Stop serving a project (its archive, proposals and versions are kept)."""
    from skillopt_sleep import config

    key = _project_key(project, must_exist=False)
    projects = _enrolled()
    if key not in projects:
        raise ConfigError(f"{key} is not enrolled (enrolled: {', '.join(projects) or 'none'})")
    del projects[key]
    path = config.write_user({"projects": projects})
    typer.echo(f"unenrolled {key} (recorded in {path})")
