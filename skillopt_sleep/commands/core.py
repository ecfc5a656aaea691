"""Core commands: ``prove`` (the proof run) and ``lint`` (the edit firewall on skill files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import SkillOptError
from ..night.config import MIN_LIFT

# The night, the simulator and scipy load only when a command needs them: every process
# imports this module (the idle daemon included) and should stay small.
err = Console(stderr=True)


def _models(spec: Any, persona_name: str) -> Any:
    """A model factory when a real backend is named; ``None`` keeps the simulator for both."""
    if spec.target == "simulated" and spec.optimizer == "simulated":
        return None
    from ..models.registry import build_llm

    cache = None
    if spec.cache:
        from ..models.cache import Cache

        cache = Cache(mode=spec.cache)

    def factory(name: str, role: str, seed: int) -> Any:
        # --base-url belongs to the openai kinds; Anthropic reads ANTHROPIC_BASE_URL itself.
        url = spec.base_url if name.startswith("openai") else None
        return build_llm(
            name, base_url=url, persona=persona_name, seed=seed, role=role, cache=cache
        )

    return factory


def _print_summary(s: dict[str, Any], console: Console) -> None:
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
        ("model calls, cost", f"{s['model_calls']}, ${s['cost_usd']:.4f}"),
        ("seconds", s["seconds"]),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)


def prove_cmd(
    persona: Annotated[
        str, typer.Option(help="persona name from personas/ or a .toml path")
    ] = "researcher",
    seed: Annotated[int, typer.Option(help="seed for tasks, splits and the simulator")] = 0,
    nights: Annotated[int, typer.Option(min=1, help="consecutive nights to run")] = 3,
    steps: Annotated[int, typer.Option(min=1, help="reflect→gate rounds per night")] = 3,
    val_repeats: Annotated[int, typer.Option(min=1, help="samples per validation task")] = 3,
    no_gate: Annotated[
        bool, typer.Option("--no-gate", help="accept every edit (ablation)")
    ] = False,
    assert_improves: Annotated[
        bool,
        typer.Option(
            "--assert-improves", help=f"exit 1 unless test lift ≥ {MIN_LIFT} and no harmful edit"
        ),
    ] = False,
    target: Annotated[str, typer.Option(help="target model spec")] = "simulated",
    optimizer: Annotated[str, typer.Option(help="optimizer model spec")] = "simulated",
    base_url: Annotated[str | None, typer.Option(help="base URL for openai kinds")] = None,
    record: Annotated[bool, typer.Option("--record", help="record model calls for replay")] = False,
    replay_only: Annotated[
        bool, typer.Option("--replay-only", help="answer only from recorded calls")
    ] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="through the whole flow: transcripts, harvest, mining, stage, adopt, rollback",
        ),
    ] = False,
    embedder: Annotated[
        str, typer.Option(help="embedder for --full (minilm or hashing)")
    ] = "minilm",
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Run nights over a simulated persona and show that the gate makes the skill better."""
    from ..night.config import NightConfig
    from ..prove import ProofSpec, check, prove

    if full:
        _prove_full(persona, seed, nights, embedder, as_json)
        return
    spec = ProofSpec(
        persona=persona,
        seed=seed,
        nights=nights,
        gate=not no_gate,
        config=NightConfig(steps=steps, val_repeats=val_repeats),
        target=target,
        optimizer=optimizer,
        base_url=base_url,
        cache="replay-only" if replay_only else "record" if record else "",
    )
    show = (lambda m: err.print(f"[dim]{m}[/dim]")) if not as_json else (lambda m: None)
    summary = prove(spec, _models(spec, persona), progress=show)
    if as_json:
        typer.echo(json.dumps({k: v for k, v in summary.items() if k != "final_skill"}))
    else:
        _print_summary(summary, Console())
    if summary["no_valid_edits"] and not as_json:
        err.print(f"[yellow]no valid edits[/yellow]: {summary['no_valid_edits']}")
    if assert_improves:
        check(summary)
        if not as_json:
            Console().print(
                f"[green]proof holds:[/green] test lift {summary['lift']:+.3f} "
                f"≥ {MIN_LIFT}, no harmful edit accepted"
            )


def _prove_full(persona: str, seed: int, nights: int, embedder: str, as_json: bool) -> None:
    from ..prove_full import prove_full

    show = (lambda m: err.print(f"[dim]{m}[/dim]")) if not as_json else (lambda m: None)
    summary = prove_full(persona, seed, nights, embedder, progress=show)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    Console().print(
        f"[green]full proof holds[/green] for {summary['persona']}: "
        f"{summary['written']['claude-code'] + summary['written']['codex']} sessions harvested, "
        f"{summary['mining'].get('families', 0)} families, "
        f"{summary['mining'].get('tasks', 0)} tasks; "
        f"test {summary['baseline_test']:.3f} → {summary['after_test']:.3f} "
        f"(accepted per night {summary['accepted_per_night']}); adopted, then rolled back to "
        f"v{summary['rolled_back_to']} byte-exact ({summary['seconds']} s)"
    )


def lint_cmd(
    paths: Annotated[list[Path], typer.Argument(help="SKILL.md files or folders holding them")],
    allow_host: Annotated[list[str] | None, typer.Option(help="host a skill may name")] = None,
    max_tokens: Annotated[int, typer.Option(help="size budget in tokens")] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, then a summary")] = False,
) -> None:
    """Check skill documents with the edit firewall's rules; exit 1 if anything is found."""
    from ..firewall import Context, lint_document

    files = _skill_files(paths)
    ctx_hosts = frozenset(h.lower() for h in (allow_host or []))
    total = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise SkillOptError(f"cannot read {path}: {exc}") from exc
        findings = [
            f
            for f in lint_document(text, max_tokens)
            if not (f.rule == "foreign_url" and f.excerpt in Context(ctx_hosts).allowed_hosts)
        ]
        total += len(findings)
        for f in findings:
            if as_json:
                typer.echo(
                    json.dumps(
                        {"path": str(path), "line": f.line, "rule": f.rule, "excerpt": f.excerpt}
                    )
                )
            else:
                typer.echo(f"{path}:{f.line}: {f.rule}: {f.excerpt}")
    if as_json:
        typer.echo(json.dumps({"summary": {"files": len(files), "findings": total}}))
    elif total == 0:
        typer.echo(f"{len(files)} file(s) clean")
    if total:
        raise typer.Exit(1)


def _skill_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.rglob("SKILL.md")))
        elif path.exists():
            files.append(path)
        else:
            raise SkillOptError(f"no such file or folder: {path}")
    return files


def register(app: typer.Typer) -> None:
    """Add the core commands to ``app``."""
    app.command("prove")(prove_cmd)
    app.command("lint")(lint_cmd)
