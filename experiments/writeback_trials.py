"""Kill trials of the write-back: adopt, rollback and recovery killed at every write-class
syscall, at random times and the moment the journal appears; adopt and rollback run
together. Prints every failure class.

    PYTHONPATH=. .venv/bin/python experiments/writeback_trials.py            # the full run
    PYTHONPATH=. .venv/bin/python experiments/writeback_trials.py --quick    # a few seconds

Each trial builds a fresh world of four roots holding different user text (CRLF; LF with
a line of its own; a BOM and no final newline; CRLF with a blank line and a line of its
own) with modes 0644/0640/0600/0664, and a staged night that read them all. ``strace``
kills (``-e inject=SYSCALL:signal=KILL:when=K``) take every invocation K of every
write-class syscall the command makes (counted by a dry run under strace). After the kill
the user's next command runs: ``recover`` then ``adopt`` again for an adopt, ``rollback``
again for a rollback (the retry must end rolled back once when the killed rollback had
begun its write). ``recovery`` trials kill an adopt or rollback mid-write, then kill the
recovery itself at each of its syscalls, then recover again.

Failure classes, each counted per trial: ``torn`` (a root neither its own old nor its
own new bytes and mode), ``mixed`` (roots disagree old/new), ``temps`` (a ``*.tmp``
left), ``journal_left``, ``ledger_disagrees`` (the ledger's last row says adopted and
the roots say not, or back), ``traceback``, ``command_failed`` (the follow-up command
exited non-zero), ``retry_undid_recovery``, ``empty_folders`` and, for pairs,
``not_serial``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillopt_sleep.archive.versions import path_writes
from skillopt_sleep.records import sha256_text
from tests import _writeback_world as w

ROOTS = 4
SYSCALLS = ("write,pwrite64,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,"
            "link,linkat,mkdir,mkdirat,rmdir,fchmod,ftruncate")
# Crash points of a four-root write: 2 the journal is written, 3-6 the temps, 7-10 the
# renames, 11 the ledger commit, 12 the journal's removal. Recovery is killed after a
# kill at 8 (two roots renamed: undone) and at 11 (committed: finished).
RECOVERY_POINTS = (8, 11)
# strace ends itself with its tracee's signal (or exits 128+9 when it cannot).
KILLED_UNDER_STRACE = (-signal.SIGKILL, 128 + signal.SIGKILL)
CLASSES = ("torn", "mixed", "temps", "journal_left", "ledger_disagrees", "traceback",
           "command_failed", "retry_undid_recovery", "empty_folders")


def _driver(command: str, base: Path, wait: float = 0.0) -> list[str]:
    return [sys.executable, "-m", "tests._writeback_world", command, str(base), str(wait)]


def _strace(command: str, base: Path, inject: str | None, log: str = "/dev/null") -> list[str]:
    cmd = ["strace", "-f", "-qq", "-o", log, "-e", f"trace={SYSCALLS}"]
    if inject:
        cmd += ["-e", f"inject={inject}:signal=KILL"]
    return [*cmd, *_driver(command, base)]


def _run(cmd: list[str], errors: list[str]) -> int:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
    errors.append(done.stderr)
    return done.returncode


def fresh(base: Path, adopted: bool = False) -> w.World:
    """A world with its archive made (migrations done), adopted first when asked."""
    world = w.build(base, ROOTS)
    world.archive().close()
    if adopted:
        assert subprocess.run(_driver("adopt", base), check=False,
                              capture_output=True).returncode == 0
    return world


def count_syscalls(base: Path, command: str, adopted: bool,
                   before: tuple[str, int] | None = None) -> Counter[str]:
    """How often ``command`` calls each write-class syscall (a dry run under strace)."""
    world = fresh(base, adopted)
    if before:
        _crash(world, *before)
    log = base / "strace.log"
    subprocess.run(_strace(command, world.base, None, str(log)), capture_output=True,
                   check=False, timeout=180)
    found: Counter[str] = Counter()
    for line in log.read_text().splitlines():
        name = line.split(None, 1)[-1].split("(", 1)[0].strip()
        if name and name[0].isalpha() and "resumed" not in line:
            found[name] += 1
    return found


def _crash(world: w.World, command: str, point: int) -> None:
    env = {**os.environ, "SKILLOPT_SLEEP_CRASH_AT": str(point)}
    subprocess.run(_driver(command, world.base), env=env, capture_output=True, check=False,
                   timeout=180)


def _disk(world: w.World) -> tuple[tuple[bytes | None, int | None], ...]:
    return w.disk(world)


def check(world: w.World, errors: list[str], codes: list[int]) -> dict[str, int]:
    """Every failure class the world shows now (1: present)."""
    state, old, new = _disk(world), world.old_disk(), world.new_disk()
    torn = any(s not in (o, n) for s, o, n in zip(state, old, new, strict=True))
    mixed = not torn and state not in (old, new)
    empty = [d for r in world.roots if r.is_dir() for d in r.iterdir()
             if d.is_dir() and not any(d.iterdir())]
    return {"torn": int(torn), "mixed": int(mixed), "temps": len(w.temps(world)),
            "journal_left": int((world.state / "adopt.journal.json").exists()),
            "ledger_disagrees": int(not ledger_agrees(world)),
            "traceback": int(any("Traceback" in e for e in errors)),
            "command_failed": int(any(c != 0 for c in codes)),
            "retry_undid_recovery": 0, "empty_folders": len(empty)}


def ledger_agrees(world: w.World) -> bool:
    """Each root holds what the ledger's newest write to it left (its own old bytes when
    none was recorded)."""
    archive = world.archive()
    try:
        newest = {pw.path: pw.after_sha256 for pw in path_writes(archive, w.SKILL)}
    finally:
        archive.close()
    for root, (old, _) in zip(world.roots, world.old_disk(), strict=True):
        path = root / w.SKILL / "SKILL.md"
        data = path.read_bytes() if path.exists() else None
        after = newest.get(str(path.resolve()))
        if after is None:
            if data != old:
                return False
        elif after != ("" if data is None else sha256_text(data.decode("utf-8", "replace"))):
            return False
    return True


def _rollbacks(world: w.World) -> int:
    return sum(r.startswith("rollback") for r in w.ledger(world))


def follow_up(world: w.World, command: str, errors: list[str]) -> dict[str, int]:
    """The user's next command after a killed ``command``, then the checks."""
    if command == "adopt":
        codes = [_run(_driver("recover", world.base), errors)]
        if _disk(world) == world.old_disk():
            codes.append(_run(_driver("adopt", world.base), errors))
        return check(world, errors, codes)
    began = (world.state / "adopt.journal.json").exists()
    done_before = _rollbacks(world)
    codes = [_run(_driver("rollback", world.base), errors)]
    found = check(world, errors, codes)
    # The retry must leave the skill rolled back once: unless the killed rollback had
    # finished whole (no journal, its row in), in which case the retry is a second one.
    finished_whole = not began and done_before > 0
    expected = world.new_disk() if finished_whole else world.old_disk()
    found["retry_undid_recovery"] = int(_disk(world) != expected and not found["torn"])
    return found


def strace_trial(base: Path, command: str, syscall: str, k: int) -> dict[str, int]:
    world = fresh(base, adopted=command == "rollback")
    killed = _run(_strace(command, world.base, f"{syscall}:when={k}"), [])
    return {**follow_up(world, command, []), "killed": int(killed in KILLED_UNDER_STRACE)}


def random_trial(base: Path, command: str, delay: float) -> dict[str, int]:
    world = fresh(base, adopted=command == "rollback")
    proc = subprocess.Popen(_driver(command, world.base), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    killed = proc.wait() == -signal.SIGKILL
    return {**follow_up(world, command, []), "killed": int(killed)}


def journal_trial(base: Path, command: str) -> dict[str, int]:
    """Kill the moment the journal appears."""
    world = fresh(base, adopted=command == "rollback")
    journal = world.state / "adopt.journal.json"
    proc = subprocess.Popen(_driver(command, world.base), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    while proc.poll() is None and not journal.exists():
        time.sleep(0.0005)
    proc.send_signal(signal.SIGKILL)
    killed = proc.wait() == -signal.SIGKILL
    return {**follow_up(world, command, []), "killed": int(killed)}


def recovery_trial(base: Path, command: str, point: int, syscall: str, k: int
                   ) -> dict[str, int]:
    """Kill ``command`` mid-write, kill its recovery at one syscall, recover again."""
    world = fresh(base, adopted=command == "rollback")
    _crash(world, command, point)
    killed = _run(_strace("recover", world.base, f"{syscall}:when={k}"), [])
    return {**follow_up(world, command, []), "killed": int(killed in KILLED_UNDER_STRACE)}


def pair_trial(base: Path) -> dict[str, int]:
    """adopt and rollback started together: the end state must be a serial order's."""
    world = fresh(base)
    procs = [subprocess.Popen(_driver(cmd, world.base, 60), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for cmd in ("adopt", "rollback")]
    codes = [p.wait(timeout=300) for p in procs]
    errors = [p.stderr.read() if p.stderr else "" for p in procs]
    found = check(world, [e for e in errors if "Traceback" in e and "StoreError" not in e],
                  [codes[0]])
    serial = (_disk(world) == world.old_disk()) if codes[1] == 0 else (
        _disk(world) == world.new_disk())
    found["not_serial"] = int(not serial)
    return found


def plan(tmp: Path, quick: bool, rng: random.Random) -> list[tuple[str, tuple[object, ...]]]:
    """Every trial to run: (kind, arguments)."""
    jobs: list[tuple[str, tuple[object, ...]]] = []
    for command in ("adopt", "rollback"):
        counts = count_syscalls(tmp / f"count-{command}", command, command == "rollback")
        calls = [(s, k) for s, n in sorted(counts.items()) for k in range(1, n + 1)]
        if quick:
            calls = rng.sample(calls, 1)
        jobs += [("strace", (command, s, k)) for s, k in calls]
        for point in RECOVERY_POINTS:
            recovering = count_syscalls(tmp / f"count-rec-{command}-{point}", "recover",
                                        command == "rollback", before=(command, point))
            rec = [(s, k) for s, n in sorted(recovering.items()) for k in range(1, n + 1)]
            if quick:
                rec = rng.sample(rec, 1)
            jobs += [("recovery", (command, point, s, k)) for s, k in rec]
        jobs += [("journal", (command,))] * (1 if quick else 20)
        jobs += [("random", (command, rng.uniform(0.3, 1.6))) for _ in range(1 if quick else 40)]
    jobs += [("pair", ())] * (1 if quick else 30)
    return jobs


RUNNERS = {"strace": strace_trial, "random": random_trial, "journal": journal_trial,
           "recovery": recovery_trial, "pair": pair_trial}


def run_all(quick: bool, workers: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="writeback-trials-") as name:
        tmp = Path(name)
        jobs = plan(tmp, quick, rng)

        def one(i: int) -> tuple[str, dict[str, int]]:
            kind, args = jobs[i]
            base = tmp / f"t{i}"
            try:
                found = RUNNERS[kind](base, *args)  # type: ignore[operator]
            finally:
                shutil.rmtree(base, ignore_errors=True)
            killed[kind] += found.pop("killed", 0)
            if any(v > 0 for v in found.values()):
                examples.append({"kind": kind, "args": [str(a) for a in args],
                                 "classes": [c for c, v in found.items() if v > 0]})
            return kind, found

        examples: list[dict[str, object]] = []
        killed: Counter[str] = Counter()

        with ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(one, range(len(jobs))))
    by_kind = Counter(kind for kind, _ in results)
    failures = {c: sum(r.get(c, 0) > 0 for _, r in results) for c in (*CLASSES, "not_serial")}
    return {"trials": len(results), "killed": sum(killed.values()),
            "by_kind": dict(by_kind), "killed_by_kind": dict(killed), "failures": failures,
            "failed_trials": sum(any(v > 0 for v in r.values()) for _, r in results),
            "examples": examples[:20]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one trial of each kind")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if shutil.which("strace") is None:
        sys.exit("strace is needed (apt-get install strace)")
    print(json.dumps(run_all(args.quick, args.workers, args.seed), indent=1))


if __name__ == "__main__":
    main()
