"""Core commands: ``prove`` (the proof run) and ``lint`` (the edit firewall on skill files)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from skillopt_sleep.cli._console import console
from skillopt_sleep.cli._json import emit
from skillopt_sleep.config import MIN_LIFT
from skillopt_sleep.errors import AssertionFailed, SkillOptError
from skillopt_sleep.tables import BUDGET_SCHEDULES, GATE_TESTS

# The night, the simulator and scipy load only when a command needs them: every process
# imports this module (the idle daemon included) and should stay small.


def _models(spec: Any, persona_name: str) -> Any:
    """A model factory when a real backend is named or calls are recorded or replayed;
    ``None`` keeps the in-process simulator for both."""
    if spec.target == "simulated" and spec.optimizer == "simulated" and not spec.cache:
        return None
    from skillopt_sleep.models.registry import build_llm, resolve_base_urls

    urls = resolve_base_urls(
        {"target": spec.target, "optimizer": spec.optimizer},
        {"target": spec.target_base_url, "optimizer": spec.optimizer_base_url}, spec.base_url)
    cache = None
    if spec.cache:
        from skillopt_sleep.models.cache import Cache

        cache = Cache(mode=spec.cache)

    def factory(name: str, role: str, seed: int) -> Any:
        return build_llm(
            name, base_url=urls.get(role), persona=persona_name, seed=seed, role=role,
            cache=cache
        )

    return factory


def _print_summary(s: dict[str, Any], out: Console) -> None:
    table = Table(title=f"proof: persona {s['persona']}, seed {s['seed']}, {s['nights']} nights")
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows = [
        ("held-out test score before", s["baseline_test"]),
        ("held-out test score after (gated)", s["after_test"]),
        ("held-out test score after (gate off)", s["ungated_after_test"]),
        ("edits proposed / accepted", f"{s['edits_proposed']} / {s['edits_accepted']}"),
        ("correct rules proposed / accepted", f"{s['correct_proposed']} / {s['correct_accepted']}"),
        ("harmful proposed / accepted", f"{s['harmful_proposed']} / {s['harmful_accepted']}"),
        ("overfit proposed / accepted", f"{s['overfit_proposed']} / {s['overfit_accepted']}"),
        ("neutral proposed / accepted", f"{s['neutral_proposed']} / {s['neutral_accepted']}"),
        ("refused by the firewall", s["firewall_rejected"]),
        ("model calls: live, from the cache", f"{s['live_calls']}, {s['cached_calls']}"),
        ("cost", f"${s['cost_usd']:.4f}"),
        ("seconds", s["seconds"]),
    ]
    for skill, t in (s.get("triggers") or {}).items():  # a persona with several skills
        rows.insert(-2, (f"{skill}: trigger recall / false triggers",
                         f"{t['recall_before']} → {t['recall_after']} / "
                         f"{t['false_trigger_before']} → {t['false_trigger_after']}"))
    for name, value in rows:
        table.add_row(name, str(value))
    out.print(table)


Opt = typer.Option
Persona = Annotated[str, Opt(help="a shipped persona's name or a persona .toml path")]
Flag = Annotated[bool, Opt()]
Improves = Annotated[bool, Opt("--assert-improves",
                               help=f"exit 1 unless test lift ≥ {MIN_LIFT} and no harmful "
                                    "edit (cross-skill ones included)")]
Full = Annotated[bool, Opt("--full", help="the whole flow: transcripts, harvest, mining, "
                                          "stage, adopt, rollback")]
Schedule = Annotated[str, Opt(help=f"edit budget schedule: {BUDGET_SCHEDULES.valid()}")]
GateTest = Annotated[str, Opt(help=f"the gate's paired test: {GATE_TESTS.valid()}")]


def prove_cmd(
    persona: Persona = "researcher",
    seed: Annotated[int, Opt(help="seed for tasks, splits and the simulator")] = 0,
    nights: Annotated[int, Opt(min=1, help="consecutive nights to run")] = 3,
    steps: Annotated[int, Opt(min=1, help="reflect→gate rounds per night")] = 3,
    val_repeats: Annotated[int, Opt(min=1, help="samples per validation task")] = 3,
    alpha: Annotated[float, Opt(min=0.0, max=1.0, help="the gate's significance level")] = 0.05,
    margin: Annotated[float, Opt(help="mean improvement an edit must exceed")] = 0.0,
    gate_test: GateTest = "sequential",
    no_regression: Annotated[bool, Opt("--no-regression", help="no validation task may drop")]
    = False,
    budget_schedule: Schedule = "cosine",
    no_gate: Annotated[bool, Opt("--no-gate", help="accept every edit (ablation)")] = False,
    assert_improves: Improves = False,
    target: Annotated[str, Opt(help="target model spec")] = "simulated",
    optimizer: Annotated[str, Opt(help="optimizer model spec")] = "simulated",
    base_url: Annotated[str | None, Opt(help="base URL for both roles, if they name one "
                                              "backend")] = None,
    target_base_url: Annotated[str | None, Opt(help="the target model's base URL")] = None,
    optimizer_base_url: Annotated[str | None, Opt(help="the optimizer's base URL")] = None,
    record: Annotated[bool, Opt("--record", help="record model calls for replay")] = False,
    replay_only: Annotated[bool, Opt("--replay-only", help="answer only from recorded calls")]
    = False,
    full: Full = False,
    concurrency: Annotated[int, Opt(min=1, help="replays run at once (same results)")] = 8,
    embedder: Annotated[str, Opt(help="embedder for --full (minilm or hashing)")] = "minilm",
    keep: Annotated[Path | None, Opt(help="with --full: leave the sandbox (agent homes, "
                                          "state, staged nights, report) in this folder")]
    = None,
    as_json: Annotated[bool, Opt("--json", help="print one JSON object")] = False,
) -> None:
    """Run nights over a simulated persona and show that the gate makes the skill better."""
    from skillopt_sleep.night.config import NightConfig
    from skillopt_sleep.sim.prove import ProofSpec

    if gate_test not in GATE_TESTS:
        raise typer.BadParameter(GATE_TESTS.valid(), param_hint="--gate-test")
    if budget_schedule not in BUDGET_SCHEDULES:
        raise typer.BadParameter(BUDGET_SCHEDULES.valid(), param_hint="--budget-schedule")
    if full:
        gate = {"steps": steps, "val_repeats": val_repeats, "alpha": alpha, "margin": margin,
                "gate_test": "accept-all" if no_gate else gate_test,
                "no_regression": no_regression, "budget_schedule": budget_schedule}
        others = {"target": target != "simulated", "optimizer": optimizer != "simulated",
                  "base_url": base_url, "record": record, "replay_only": replay_only}
        _prove_full(_full_spec(persona, seed, nights, embedder, keep, assert_improves, gate,
                               others), as_json)
        return
    if keep is not None:
        raise typer.BadParameter("--keep needs --full (the plain proof writes no files)",
                                 param_hint="--keep")
    config = NightConfig(steps=steps, val_repeats=val_repeats, alpha=alpha, margin=margin,
                         gate_test=gate_test, no_regression=no_regression,
                         schedule=budget_schedule)
    cache = "replay-only" if replay_only else "record" if record else ""
    spec = ProofSpec(persona=persona, seed=seed, nights=nights, gate=not no_gate, config=config,
                     target=target, optimizer=optimizer, base_url=base_url,
                     target_base_url=target_base_url, optimizer_base_url=optimizer_base_url,
                     cache=cache, concurrency=concurrency)
    _prove(spec, assert_improves, as_json)


def _dim(message: str) -> None:
    console(stderr=True).print(f"[dim]{message}[/dim]")


def _prove(spec: Any, assert_improves: bool, as_json: bool) -> None:
    from skillopt_sleep.sim.prove import check, prove

    show = _dim if not as_json else (lambda m: None)
    summary = prove(spec, _models(spec, spec.persona), progress=show)
    failed: AssertionFailed | None = None
    if assert_improves:
        try:
            check(summary)
        except AssertionFailed as exc:
            failed = exc
    if as_json:  # one object, the failed check in it: {"error": {"code", "message"}}
        emit({k: v for k, v in summary.items() if k != "final_skill"}
             | ({"error": {"code": failed.exit_code, "message": str(failed)}} if failed else {}))
    else:
        _print_summary(summary, console())
    if summary["no_valid_edits"] and not as_json:
        console(stderr=True).print(f"[yellow]no valid edits[/yellow]: "
                                   f"{summary['no_valid_edits']}")
    if failed is not None:
        raise failed
    if assert_improves and not as_json:
        console().print(f"[green]proof holds:[/green] test lift {summary['lift']:+.3f} "
                        f"≥ {MIN_LIFT}, no harmful edit accepted (cross-skill ones "
                        "included)")


def _prove_full(spec: Any, as_json: bool) -> None:
    from skillopt_sleep.sim.prove_full import prove_full

    show = _dim if not as_json else (lambda m: None)
    summary = prove_full(spec, progress=show)
    if as_json:
        emit(summary)
        return
    verdict = "[green]full proof holds[/green]" if spec.assert_improves else "full proof done"
    console().print(
        f"{verdict} for {summary['persona']}: "
        f"{summary['written']['claude-code'] + summary['written']['codex']} sessions harvested, "
        f"{summary['mining'].get('families', 0)} families, "
        f"{summary['mining'].get('tasks', 0)} tasks; "
        f"test {summary['baseline_test']:.3f} → {summary['after_test']:.3f} "
        f"(accepted per night {summary['accepted_per_night']}, "
        f"{summary['harmful_accepted']} harmful); adopted, then rolled back to "
        f"v{summary['rolled_back_to']} byte-exact ({summary['seconds']} s)",
        soft_wrap=True,
    )
    for line in summary["abstained"]:
        console(stderr=True).print(f"[yellow]abstained[/yellow] {line}")
    where = "kept in " + summary["sandbox"] if summary["sandbox"] else "removed with the sandbox"
    typer.echo(f"report: {summary['report']} ({where})")


def _full_spec(persona: str, seed: int, nights: int, embedder: str, keep: Path | None,
               assert_improves: bool, gate: dict[str, Any], others: dict[str, Any]) -> Any:
    """``prove --full``'s spec; options the full flow cannot honour are refused by name."""
    from skillopt_sleep.sim.prove_full import FullSpec

    refused = [f"--{k.replace('_', '-')}" for k, v in others.items() if v]
    if refused:
        raise typer.BadParameter(f"{', '.join(refused)} cannot be used with --full "
                                 "(the full proof runs the simulator through the pipeline)",
                                 param_hint="--full")
    return FullSpec(persona=persona, seed=seed, nights=nights, embedder=embedder, keep=keep,
                    assert_improves=assert_improves, gate=gate)


def lint_cmd(
    paths: Annotated[list[Path], typer.Argument(help="skill documents or folders holding them")],
    allow_host: Annotated[list[str] | None, typer.Option(help="host a skill may name")] = None,
    max_tokens: Annotated[int, typer.Option(help="size budget in tokens")] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, then a summary")] = False,
) -> None:
    """Check skill documents with the edit firewall's rules, one finding per line; exit 1
    only when an error (what a night would refuse in an edit) is found."""
    from skillopt_sleep.firewall import SEVERITIES, lint_document

    files = _skill_files(paths)
    allowed = frozenset(h.lower() for h in (allow_host or []))
    counts = dict.fromkeys(SEVERITIES, 0)
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise SkillOptError(f"cannot read {path}: {exc}") from exc
        # A skill's name should be its folder's; an instruction file has no such folder.
        folder = path.parent.name if path.name.lower() == "skill.md" else ""
        for f in lint_document(text, max_tokens, folder=folder):
            if f.rule == "reach_host" and f.excerpt.split(":", 1)[0] in allowed:
                continue
            counts[f.severity] += 1
            if as_json:
                emit({"path": str(path), "line": f.line, "rule": f.rule,
                      "severity": f.severity, "excerpt": f.excerpt,
                      "capability": f.capability})
            else:
                typer.echo(f"{path}:{f.line}: {f.severity}: {f.rule}: {f.excerpt}")
    if as_json:
        emit({"summary": {"files": len(files), "errors": counts["error"],
                          "warnings": counts["warning"], "notes": counts["note"]}})
    else:
        typer.echo(f"{len(files)} file(s): {counts['error']} error(s), "
                   f"{counts['warning']} warning(s), {counts['note']} note(s)")
    if counts["error"]:
        raise typer.Exit(1)


_SKILL_NAMES = ("SKILL.md", "skill.md", "copilot-instructions.md")


def _skill_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.md") if p.name in _SKILL_NAMES
                                or p.name.endswith(".instructions.md")))
        elif path.exists():
            files.append(path)
        else:
            raise SkillOptError(f"no such file or folder: {path}")
    return files


def register(app: typer.Typer) -> None:
    """Add the core commands to ``app``."""
    app.command("prove")(prove_cmd)
    app.command("lint")(lint_cmd)
