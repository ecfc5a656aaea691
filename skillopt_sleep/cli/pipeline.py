"""Pipeline commands: run, status, report (the write-back commands are in ``writeback``)."""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer

from skillopt_sleep import config
from skillopt_sleep.cli._json import emit
from skillopt_sleep.cli._options import JsonOpt
from skillopt_sleep.cli.run_json import exit_code, night, project_dir


def run_cmd(
    project: Annotated[str | None, typer.Option(help="project folder (default: cwd)")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="harvest and mine into a throwaway copy, call no "
                           "model, print the plan: tasks, calls per role, estimated cost")
    ] = False,
    adopt: Annotated[
        str | None, typer.Option(help="review (stage only) or auto (write back)")
    ] = None,
    target: Annotated[str | None, typer.Option(help="target model spec")] = None,
    optimizer: Annotated[str | None, typer.Option(help="optimizer model spec")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="base URL for every role whose backend takes one, if they all name one backend")
    ] = None,
    target_base_url: Annotated[str | None, typer.Option(help="the target model's base URL")
                               ] = None,
    optimizer_base_url: Annotated[str | None, typer.Option(
        help="the optimizer's (and, unless judge is set, the judge's) base URL")] = None,
    max_usd_per_night: Annotated[float | None, typer.Option(help="dollar cap per night")] = None,
    max_usd_per_skill: Annotated[float | None, typer.Option(help="dollar cap per skill")] = None,
    record: Annotated[bool, typer.Option("--record", help="record model calls for replay")] = False,
    concurrency: Annotated[int | None, typer.Option(
        min=1, help="replays run at once (default: the target backend's)")] = None,
    replay_only: Annotated[
        bool, typer.Option("--replay-only", help="answer only from recorded calls")
    ] = False,
    persona: Annotated[str | None, typer.Option(
        help="the persona the simulated backend plays: a shipped persona's name or a persona "
             ".toml path (config key persona)")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="run the night even when nothing changed since the last one")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Harvest what is new, mine tasks, run the night, stage the proposal."""
    where = project_dir(project)
    cache = "replay-only" if replay_only else "record" if record else None
    flags = {
        "target": target,
        "optimizer": optimizer,
        "base_url": base_url,
        "target_base_url": target_base_url,
        "optimizer_base_url": optimizer_base_url,
        "cache": cache,
        "max_usd_per_night": max_usd_per_night,
        "max_usd_per_skill": max_usd_per_skill,
        "concurrency": concurrency,
        "persona": persona,
        "skip_unchanged": False if force else None,
    }
    settings = config.load(where, flags=flags)
    code = night(where, settings, dry_run, adopt) if as_json else \
        exit_code(_run(where, settings, dry_run, adopt))
    if code:
        raise typer.Exit(code)


def _run(where: Path, settings: config.Settings, dry_run: bool, adopt: str | None) -> Any:
    """One night, printed: progress on stderr and a summary (``run_json`` for --json)."""
    from skillopt_sleep.cli._console import console  # rich: not for status's plain lines
    from skillopt_sleep.pipeline.run import run_once

    err = console(stderr=True)
    with err.status("starting the night") as status:

        def say(message: str) -> None:
            err.print(f"[dim]{message}[/dim]")
            status.update(message)

        outcome = run_once(where, settings=settings, dry_run=dry_run, adopt=adopt, progress=say)
    _print_plan(outcome) if outcome.plan is not None else _print_run(outcome)
    return outcome


def _print_plan(outcome: Any) -> None:
    from skillopt_sleep.cli._console import console

    out, plan = console(), outcome.plan
    mined = outcome.counts.get("mining", {})
    out.print(f"{outcome.message}\nharvested {outcome.counts.get('harvest', {}).get('sessions', 0)}"
              f" session(s); {mined.get('tasks', 0)} replayable task(s)")
    if line := budget_line(outcome.counts.get("task_budget", [])):
        out.print(line, soft_wrap=True, highlight=False)
    for role, model in plan["models"].items():
        price = model["price"]
        cost = (f"${price['input_per_mtok']:g}/${price['output_per_mtok']:g} per Mtok in/out"
                if price else "no cost")
        out.print(f"  {role:<10} {model['spec']}  {model['base_url'] or '(default endpoint)'}"
                  f"  {cost}")
        for problem in model["problems"]:
            out.print(f"    [red]problem[/red]: {problem}")
    from rich.table import Table

    table = Table("skill", "train", "val", "test", "target", "optimizer", "judge", "est. $")
    for row in plan["skills"]:
        t, c = row["tasks"], row["calls"]
        note = f" (abstains: {row['abstains']})" if row["abstains"] else ""
        test = str(t["test"]) if row["test_scored"] == t["test"] else (
            f"{row['test_scored']} of {t['test']}")  # the report scores a sample
        table.add_row(row["skill"] + note, str(t["train"]), str(t["validation"]),
                      test, str(c["target"]), str(c["optimizer"]), str(c["judge"]),
                      f"{row['estimated_usd']:.4f}")
    c = plan["calls"]
    table.add_row("total", "", "", "", str(c["target"]), str(c["optimizer"]), str(c["judge"]),
                  f"{plan['estimated_usd']:.4f}")
    out.print(table)
    _print_checks(out, plan["skills"])
    if plan.get("fitted"):
        out.print("fitted to the caps: " + "; ".join(plan["fitted"]), soft_wrap=True,
                  highlight=False)
    caps = plan["caps"]
    verdict = "[green]within the caps[/green]" if plan["within_caps"] else \
        "[yellow]over a cap: the night would stop there, keeping what it validated[/yellow]"
    most = plan.get("estimated_usd_max", plan["estimated_usd"])
    if most > plan["estimated_usd"]:
        # A night asks a second round only after an accept, and most proposals are screened.
        verdict += f"; at most ${most:.4f} if every trigger check asked both its rounds in full"
    out.print(f"caps: ${caps['night']:.2f} a night, ${caps['skill']:.2f} a skill: {verdict}",
              soft_wrap=True)


def _print_checks(out: Any, rows: list[dict[str, Any]]) -> None:
    """Under the plan's table: per skill, what its checks beside its own tasks would ask."""
    for row in rows:
        k = row["check_calls"]
        stored = k.get("trigger_routing_stored", 0)
        reused = f" ({stored} more answered by earlier runs)" if stored else ""
        carried = sum(row.get("carried", {}).values())
        kept = f"; {carried} more served by the last night's answers" if carried else ""
        most = k.get("trigger_routing_max", 0)
        bound = f" (at most {most})" if most > k["trigger_routing"] else ""
        out.print(f"  {row['skill']}: of these, trigger check {k['trigger_routing']}{bound} "
                  f"routing call(s){reused}; cross check {k['cross_replays']} replay(s) and "
                  f"{k['cross_reads']} look(s) with {k['neighbours']} neighbour(s){kept}",
                  soft_wrap=True, highlight=False)
        if size := row.get("sizes"):
            out.print(_size_line(row, size), soft_wrap=True, highlight=False)


def _size_line(row: dict[str, Any], size: dict[str, Any]) -> str:
    """What the skill's size costs the night, and what the target's prompt cache saves."""
    if size["cached_prefix_tokens"]:
        cache = (f"caching saves ${row['caching_saves_usd']:.4f} (the skill's block, "
                 f"{size['cached_prefix_tokens']} tokens, read from the prompt cache)")
    elif size["cache_floor"]:
        cache = (f"no caching: the skill's block is under the {size['cache_floor']} tokens "
                 "the target's provider caches")
    else:
        cache = "no caching (the target's backend has no prompt cache)"
    return (f"  {row['skill']}: {size['skill_tokens']} skill tokens in every replay, "
            f"${row['skill_usd']:.4f} of the estimate; answers of {size['answer_tokens']} "
            f"tokens ({size['answer_source']}); {cache}")


def _print_run(outcome: Any) -> None:
    from skillopt_sleep.cli._console import console

    out = console()
    for skill in outcome.to_dict()["skills"]:
        if skill["failed"]:
            out.print(f"{skill['skill'] or 'the night'}: [red]failed[/red] (no scores)")
            continue
        if skill["abstained"]:
            out.print(f"{skill['skill']}: [yellow]abstained[/yellow], {skill['abstained']}")
            continue
        note = skill["stopped"]
        out.print(
            f"{skill['skill']}: {skill['accepted']} edit(s) accepted; validation "
            f"{skill['baseline_val']:.3f} → {skill['after_val']:.3f}"
            + (f"  [yellow]{note}[/yellow]" if note else "")
        )
    if line := budget_line(outcome.counts.get("task_budget", [])):
        out.print(line, soft_wrap=True, highlight=False)
    for warning in outcome.warnings:
        out.print(f"[yellow]warning[/yellow]: {warning}")
    if outcome.failed and outcome.report:
        out.print(f"report of the failed night: skillopt-sleep report {outcome.night_id} --open")
    elif outcome.staged:
        out.print(
            f"staged: {outcome.staged}  (review: skillopt-sleep report {outcome.night_id} --open)"
        )
    for skill, version in outcome.adopted.items():
        out.print(f"adopted {skill} as version {version}")
    if outcome.skipped_skills:
        out.print(skipped_line(outcome.skipped_skills), highlight=False)
    if outcome.message:
        out.print(outcome.message)


def budget_line(rows: list[dict[str, Any]]) -> str:
    """One line when the task budget left tasks out (``night.task_budget``), else ""."""
    cut = [r for r in rows if r["chosen"] < r["available"]]
    if not cut:
        return ""
    parts = [f"{r['skill']} {r['chosen']} of {r['available']}" for r in cut]
    return ("task budget (max_tasks_per_skill, max_tasks_per_night): replaying "
            + "; ".join(parts) + " tasks")


def skipped_line(skipped: list[dict[str, Any]]) -> str:
    """One line for every loaded skill the night did not train, with the reason."""
    parts = [
        f"{s['skill']} ({s['reason']}; {s['families']} famil"
        f"{'y' if s['families'] == 1 else 'ies'} trained {', '.join(s['routed_to'])} instead)"
        for s in skipped
    ]
    return f"skipped {len(skipped)} skill(s): " + "; ".join(parts)


def status_cmd(as_json: JsonOpt = False) -> None:
    """What the last nights did, what is pending review, what is adopted where."""
    from skillopt_sleep.cli.status import show  # the entry point runs it without typer

    show(as_json)


def report_cmd(
    night: Annotated[str | None, typer.Argument(help="night id (default: latest)")] = None,
    open_: Annotated[bool, typer.Option("--open", help="open in a browser")] = False,
    full: Annotated[bool, typer.Option(
        "--full", help="with --json: every result as report.json holds it (100 KB and more), "
        "not the summary of at most 8 KB")] = False,
    as_json: JsonOpt = False,
) -> None:
    """The night's HTML report (--json: a summary per skill, at most 8 KB)."""
    from skillopt_sleep.pipeline.status import staged_night
    from skillopt_sleep.publish.digest import night_digest

    if full and not as_json:
        raise typer.BadParameter("--full goes with --json", param_hint="--full")
    folder = staged_night(night)
    html = folder / "report.html"
    if as_json:
        emit(night_digest(folder, full=full))
    else:
        typer.echo(str(html))
    if open_ and not webbrowser.open(html.as_uri()):
        print(f"skillopt-sleep: no browser could be opened; open {html} yourself",
              file=sys.stderr)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the pipeline commands to ``app``."""
    app.command("run")(run_cmd)
    app.command("status")(status_cmd)
    app.command("report")(report_cmd)
