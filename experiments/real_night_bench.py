"""A real night's wall time, calls and dollars: ``skillopt-sleep run`` against loopback models.

    .venv/bin/python experiments/real_night_bench.py [--persona programmer] [--latency 2-8]
        [--errors 0.03] [--concurrency 1,8] [--prices haiku,sonnet] [--deliverables N] [--json]
    .venv/bin/python experiments/real_night_bench.py --latency 0.01-0.05   # a fast smoke run

A persona's history is written as real Claude Code and Codex transcripts into a sandboxed
home (``sim/transcripts.py``; a persona with several skills has them installed in the
sandbox's skill root, and its Claude Code sessions load each task's own), then the real
command ``skillopt-sleep run --json`` runs one night over it, its target an ``anthropic:``
model and its optimizer an ``openai:`` model, both reached through the real SDKs at fake
servers on 127.0.0.1 (``tests/fakes``): one speaking the Anthropic Messages API, one OpenAI
Chat Completions. Each call waits a random latency drawn uniformly from ``--latency``
seconds, and a fraction ``--errors`` of calls is answered 429, 500, 503 or 529 instead (the
client's retry policy takes it from there).

The answers come from the persona simulator (``sim/models.py``): the target server answers
as the simulated target, the optimizer server as the simulated optimizer, so the night has
rules to find and the gate real evidence to weigh. The wire carries no sampling seed, so
the n-th identical prompt is answered with seed n. Token usage is what the server reports:
the request's JSON length / 4 in, the answer's length / 4 out; dollars are the product's
own metering of it at the built-in prices.

Price classes: ``haiku`` = ``anthropic:claude-haiku-4-5`` target + ``openai:gpt-5-mini``
optimizer; ``sonnet`` = ``anthropic:claude-sonnet-4-5`` + ``openai:gpt-5``. The caps are
the defaults ($2 a night, $0.75 a skill) unless ``--max-usd-per-skill`` is given (to see
what a whole night would cost). ``--concurrency N`` is passed to ``run`` when the
installed command has that option; when it does not, the bench says so (``conc 8?``) and
the night runs at the command's built-in concurrency.

``--nights N`` runs N nights in the same sandbox, as a week of the daemon would: after
each night its proposal is adopted (``skillopt-sleep adopt --all``), and the next night
runs over the same history (``run --force``: no new session arrived, so without it the run
would stop as nothing-new). What a night may reuse of the nights before it (the final
skill's answers, the routing replies) shows in the later rows.

``--cluster local:1,local:2,local:4`` runs each night's replays on that many local Dask
worker processes (the ``cluster`` setting, through ``SKILLOPT_SLEEP_CLUSTER``; ``none``: the
night's own threads); ``--concurrency`` is then how many replays are in flight at once.

Identical prompts in flight at once get their seeds in arrival order, so with concurrent
replays the calls and dollars vary by a few per cent from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # tests/fakes is the loopback server, shared with the tests
    sys.path.insert(0, str(ROOT))

from skillopt_sleep.sim import persona as personas  # noqa: E402
from skillopt_sleep.sim.models import SimulatedOptimizer, SimulatedTarget  # noqa: E402
from skillopt_sleep.sim.transcripts import write_history  # noqa: E402
from tests.fakes import FakeLLMServer, RecordedRequest  # noqa: E402
from tests.fakes.llm_wire import Hang, Reply, Status, Text  # noqa: E402

PRICES = {
    "haiku": ("anthropic:claude-haiku-4-5", "openai:gpt-5-mini"),
    "sonnet": ("anthropic:claude-sonnet-4-5", "openai:gpt-5"),
}
ERROR_CODES = (429, 500, 503, 529)


def latency_range(text: str) -> tuple[float, float]:
    """``"2-8"`` → (2.0, 8.0); one number is a fixed latency."""
    low, _, high = text.partition("-")
    lo, hi = float(low), float(high or low)
    if lo < 0 or hi < lo:
        raise argparse.ArgumentTypeError(f"latency must be LOW-HIGH seconds, not {text!r}")
    return lo, hi


def _messages(request: RecordedRequest) -> list[dict[str, str]]:
    """The request's conversation as the simulator reads it: role and plain text."""
    body = request.body if isinstance(request.body, dict) else {}

    def text(content: Any) -> str:
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return ""

    found = [{"role": "system", "content": text(body["system"])}] if body.get("system") else []
    return found + [{"role": str(m.get("role", "user")), "content": text(m.get("content"))}
                    for m in body.get("messages", []) if isinstance(m, dict)]


@dataclass
class Responder:
    """Answers one server's requests as a simulated model, late and now and then wrongly."""

    model: SimulatedTarget | SimulatedOptimizer
    latency: tuple[float, float]
    errors: float
    seed: int = 0
    served: Counter[str] = field(default_factory=Counter)
    _seen: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = _messages(request)
        key = json.dumps(messages, sort_keys=True)
        with self._lock:
            wait = self._rng.uniform(*self.latency)
            failed = self._rng.random() < self.errors
            code = self._rng.choice(ERROR_CODES)
            self.served["error" if failed else "answer"] += 1
            repeat = self._seen[key]
            # A retried request is the same sample again: only an answer moves the seed on.
            self._seen[key] += 0 if failed else 1
        if failed:
            return Hang(wait / 4, Status(code))
        answer = self.model.complete(messages, seed=repeat)  # type: ignore[arg-type]
        return Hang(wait, Text(answer.text))


def _supports(option: str, env: dict[str, str]) -> bool:
    # Wide enough that rich never wraps an option name in the help table.
    done = subprocess.run([sys.executable, "-m", "skillopt_sleep", "run", "--help"],
                          capture_output=True, text=True, env=env | {"COLUMNS": "240"},
                          timeout=120)
    return option in done.stdout


def _sandbox(base: Path, persona: personas.Persona, seed: int, embedder: str) -> dict[str, Any]:
    home, project = base / "home", base / "project"
    home.mkdir(parents=True)
    project.mkdir()
    written = write_history(persona, seed, home, project)
    if persona.multi:
        # The skills the transcripts load are installed, as on the developer's machine.
        for spec in persona.skills:
            folder = base / "skills" / "claude" / spec.name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(spec.initial_text(), encoding="utf-8")
    (project / ".skillopt-sleep.toml").write_text(
        f'embedder = "{embedder}"\nsources = ["claude-code", "codex"]\n'
        f"skill_roots = {json.dumps([str(base / 'skills' / 'claude')])}\n",
        encoding="utf-8",
    )
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), SKILLOPT_SLEEP_HOME=str(base / "state"),
               ANTHROPIC_API_KEY="bench-key", OPENAI_API_KEY="bench-key",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                         os.environ.get("PYTHONPATH")])))
    return {"project": project, "env": env, "written": written}


def one_night(
    persona: personas.Persona, prices: str, concurrency: int, args: argparse.Namespace,
    say: Callable[[str], None] = lambda _m: None,
) -> list[dict[str, Any]]:
    """Run ``args.nights`` nights in a fresh sandbox; each night's figures."""
    # The project path is part of every family id, and so of every split: a path fixed per
    # persona and seed keeps one configuration's night the same from run to run.
    base = Path(tempfile.gettempdir()) / f"skillopt-bench-{persona.name}-{args.seed}"
    with FileLock(str(base) + ".lock"):
        shutil.rmtree(base, ignore_errors=True)
        try:
            return _night_in(base, persona, prices, concurrency, args, say)
        finally:
            shutil.rmtree(base, ignore_errors=True)


def _night_in(
    base: Path, persona: personas.Persona, prices: str, concurrency: int,
    args: argparse.Namespace, say: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Write the history under ``base``, start both servers, run the nights, measure them."""
    target_spec, optimizer_spec = PRICES[prices]
    box = _sandbox(base, persona, args.seed, args.embedder)
    env = box["env"]
    where = getattr(args, "cluster_now", "none")
    if where != "none":
        env["SKILLOPT_SLEEP_CLUSTER"] = where
    target = Responder(SimulatedTarget(persona, args.seed), args.latency, args.errors,
                       seed=args.seed)
    optimizer = Responder(SimulatedOptimizer(persona, args.seed), args.latency, args.errors,
                          seed=args.seed + 1)
    per_role = _supports("--target-base-url", env)
    concurrent = _supports("--concurrency", env)
    with FakeLLMServer(default=target) as t_server, \
            FakeLLMServer(default=optimizer) as o_server:
        command = [sys.executable, "-m", "skillopt_sleep", "run", "--json",
                   "--project", str(box["project"]),
                   "--target", target_spec, "--optimizer", optimizer_spec]
        if per_role:
            command += ["--target-base-url", t_server.url,
                        "--optimizer-base-url", o_server.openai_base_url]
        else:
            # One URL for both roles: the optimizer's calls reach the target's server,
            # which answers them by their wire (see ``_route``).
            t_server.default = _route(target, optimizer)
            command += ["--base-url", t_server.url]
        command += _options(concurrency if concurrent else None, args.max_usd_per_skill)
        rows = []
        for night in range(1, args.nights + 1):
            say(f"{prices} prices, concurrency {concurrency}: running night {night}")
            force = ["--force"] if night > 1 else []
            ahead = len(t_server.model_requests()) + len(o_server.model_requests())
            planned = _planned(command + force, env, args.timeout)
            before = (len(t_server.model_requests()) + len(o_server.model_requests()),
                      target.served + optimizer.served)
            planned["dry_run_http"] = before[0] - ahead
            start = time.monotonic()
            done = subprocess.run(command + force, capture_output=True, text=True, env=env,
                                  timeout=args.timeout)
            wall = time.monotonic() - start
            if done.returncode != 0:
                raise RuntimeError(f"run failed (rc {done.returncode}): {done.stderr[-2000:]}")
            requests = len(t_server.model_requests()) + len(o_server.model_requests())
            rows.append(_figures(json.loads(done.stdout), prices, concurrency, concurrent, wall,
                                 requests - before[0],
                                 target.served + optimizer.served - before[1],
                                 box["written"]) | {"night": night} | planned)
            if night < args.nights:
                _adopt(box, env)
    return rows


def _planned(command: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """What ``run --dry-run`` estimated for the night about to run: its calls (all roles)
    and dollars (a dry run calls no model: the caller counts the requests it made)."""
    done = subprocess.run([*command, "--dry-run"], capture_output=True, text=True, env=env,
                          timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"dry run failed (rc {done.returncode}): {done.stderr[-2000:]}")
    plan = json.loads(done.stdout)["plan"]
    return {"planned_calls": sum(plan["calls"].values()), "planned_usd": plan["estimated_usd"]}


def _options(concurrency: int | None, max_usd_per_skill: float | None) -> list[str]:
    """``run``'s options for a concurrency and a skill cap (``None``: the command's own)."""
    found = ["--concurrency", str(concurrency)] if concurrency is not None else []
    if max_usd_per_skill is not None:
        found += ["--max-usd-per-skill", str(max_usd_per_skill)]
    return found


def _adopt(box: dict[str, Any], env: dict[str, str]) -> None:
    """Adopt every pending proposal, as the daemon's ``adopt = "auto"`` would."""
    done = subprocess.run([sys.executable, "-m", "skillopt_sleep", "adopt", "--all", "--json",
                           "--project", str(box["project"])],
                          capture_output=True, text=True, env=env, timeout=600)
    # Nothing pending (a night that accepted nothing) is not a failure of the bench.
    if done.returncode != 0 and "nothing" not in (done.stdout + done.stderr).lower():
        raise RuntimeError(f"adopt failed (rc {done.returncode}): {done.stderr[-2000:]}")


def _route(target: Responder, optimizer: Responder) -> Callable[[RecordedRequest], Reply]:
    def answer(request: RecordedRequest) -> Reply:
        return target(request) if request.wire == "anthropic" else optimizer(request)

    return answer


def _figures(
    run: dict[str, Any], prices: str, concurrency: int, concurrent: bool, wall: float,
    requests: int, served: Counter[str], written: dict[str, int],
) -> dict[str, Any]:
    counts = run.get("counts", {})
    cost = counts.get("cost_by_role", {})
    skills = run.get("skills", [])
    return {
        "prices": prices,
        "target": PRICES[prices][0],
        "optimizer": PRICES[prices][1],
        # Without the option the night runs at whatever the command does on its own.
        "concurrency": concurrency if concurrent else None,
        "concurrency_asked": concurrency,
        "wall_s": round(wall, 1),
        "calls": counts.get("calls", 0),
        "http_requests": requests,
        "errors_served": served["error"],
        "usd": round(sum(cost.values()), 4),
        "usd_by_role": {k: round(v, 4) for k, v in cost.items()},
        "stopped": [s["stopped"] for s in skills if s.get("stopped")],
        "skills": [{k: s.get(k) for k in ("skill", "accepted", "baseline_val", "after_val",
                                          "model_calls", "cost_usd", "abstained")}
                   for s in skills],
        "sessions": written["claude-code"] + written["codex"],
        "tasks": counts.get("mining", {}).get("tasks", 0),
        # The trigger check's routing calls: asked tonight, and answered from the store.
        "routing": counts.get("routing", {}),
        "ok": run.get("ok", False),
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persona", default="programmer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=latency_range, default=(2.0, 8.0),
                        help="seconds per call, uniform LOW-HIGH (default 2-8)")
    parser.add_argument("--errors", type=float, default=0.03,
                        help="fraction of calls answered 429/500/503/529 (default 0.03)")
    parser.add_argument("--concurrency", default="1,8", help="comma list (default 1,8)")
    parser.add_argument("--prices", default="haiku,sonnet", help="comma list of price classes")
    parser.add_argument("--deliverables", type=int, default=0,
                        help="keep only the persona's first N deliverables (0: all)")
    parser.add_argument("--max-usd-per-skill", type=float, default=None,
                        help="passed to run (default: the product's own cap, $0.50)")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--nights", type=int, default=1,
                        help="nights in one sandbox, each proposal adopted before the next")
    parser.add_argument("--timeout", type=float, default=4 * 3600)
    parser.add_argument("--cluster", default="none",
                        help="comma list of cluster settings: none, local:N (default none)")
    parser.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    persona = personas.load(args.persona)
    if args.deliverables:
        kept = dict(list(persona.deliverables.items())[: args.deliverables])
        persona = replace(persona, deliverables=kept)
    classes = [p for p in args.prices.split(",") if p]
    unknown = [p for p in classes if p not in PRICES]
    if unknown:
        parser.error(f"unknown price class {unknown[0]!r}; known: {', '.join(PRICES)}")
    levels = [int(c) for c in args.concurrency.split(",") if c]
    if args.nights < 1:
        parser.error(f"--nights must be at least 1, not {args.nights}")

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    clusters = [c for c in args.cluster.split(",") if c]

    def nights(p: str, c: int, say: Callable[[str], None] = lambda _m: None,
               ) -> Iterator[dict[str, Any]]:
        for where in clusters:
            args.cluster_now = where
            for row in one_night(persona, p, c, args, say):
                yield row | {"cluster": where}

    if args.json:
        rows = [row for p in classes for c in levels for row in nights(p, c)]
        print(json.dumps({"persona": persona.name, "latency": args.latency,
                          "errors": args.errors, "nights": rows}))
        return 0
    print(f"persona {persona.name}: latency {args.latency[0]}-{args.latency[1]} s, "
          f"{args.errors:.0%} errors; each configuration's nights printed when they are done")
    print("night  prices  conc  cluster   wall s  calls  http  errors  dollars  "
          "planned calls, $  accepted  stopped")
    unsupported = False
    for p in classes:
        for c in levels:
            for row in nights(p, c, say):
                unsupported |= row["concurrency"] is None
                print(_row(row), flush=True)
    if unsupported:
        print("conc N?: asked for N, but this skillopt-sleep run has no --concurrency option; "
              "the night ran at its built-in concurrency")
    return 0


def _row(r: dict[str, Any]) -> str:
    """One night as a table row; ``8?``: asked for 8, but ``run`` has no such option."""
    conc = str(r["concurrency"]) if r["concurrency"] is not None else f"{r['concurrency_asked']}?"
    accepted = sum(s["accepted"] or 0 for s in r["skills"])
    return (f"{r['night']:<6} {r['prices']:<7} {conc:<5} {r['cluster']:<9} {r['wall_s']:>7} "
            f"{r['calls']:>6} "
            f"{r['http_requests']:>5} {r['errors_served']:>7} {r['usd']:>8.3f} "
            f"{r['planned_calls']:>8} {r['planned_usd']:>7.3f} "
            f"{accepted:>9}  {'; '.join(r['stopped']) or '-'}")


if __name__ == "__main__":
    sys.exit(main())
