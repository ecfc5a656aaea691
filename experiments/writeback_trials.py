"""Kill -9 and concurrency trials of the write-back (adopt and rollback over two roots).

    PYTHONPATH=. .venv/bin/python experiments/writeback_trials.py [--trials 100] [--pairs 30]
    PYTHONPATH=. .venv/bin/python experiments/writeback_trials.py --strace [--trials 100]

Each kill trial builds a fresh two-root world (roots holding different copies, one CRLF,
modes 0644 and 0640), kills ``adopt`` or ``rollback`` (alternating) at a write point, runs
the next command (recovery), and checks: every root all-old or all-new byte- and
mode-exact, the ledger agreeing with the disk, and no temp file anywhere. The points are
the transaction's numbered crash points, or with ``--strace`` the Nth
write/pwrite64/fsync/rename/unlink syscall (``strace -f -e inject=…:signal=KILL:when=N``).
Then ``--pairs`` adopt and rollback started together (``--wait 30``): every end state must
be one a serial order gives.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import _writeback_world as w

POINTS = 8
SYSCALLS = "write,pwrite64,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat"


def _old() -> tuple:
    return ((w.OLD[0], w.OLD[1]), (w.OLD2[0], w.OLD2[1]))


def _new() -> tuple:
    return ((w.NEW.encode(), w.OLD[1]), (w.NEW.encode(), w.OLD2[1]))


def _strace_run(world: w.World, command: str, when: int) -> int:
    cmd = ["strace", "-f", "-qq", "-o", "/dev/null",
           "-e", f"trace={SYSCALLS}", "-e", f"inject={SYSCALLS}:signal=KILL:when={when}",
           sys.executable, "-m", "tests._writeback_world", command, str(world.base), "0"]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=False,
                          env={**os.environ}).returncode


def kill_trial(base: Path, command: str, point: int, use_strace: bool) -> dict[str, object]:
    world = w.build(base)
    if command == "rollback":
        assert w.run(world, "adopt").returncode == 0
    if use_strace:
        rc = _strace_run(world, command, point)
    else:
        rc = w.run(world, command, crash_at=point).returncode
    killed = rc != 0
    after = w.run(world, "recover")
    state, reasons = w.disk(world), w.ledger(world)
    torn = state not in (_old(), _new()) or after.returncode != 0
    if command == "adopt":
        agrees = ("adopt" in reasons) == (state == _new())
    else:
        agrees = reasons[-1].startswith("rollback") == (state == _old())
    return {"command": command, "point": point, "killed": killed, "torn": torn,
            "ledger_disagrees": not agrees, "temps_left": len(w.temps(world))}


def pair_trial(base: Path) -> bool:
    """True when adopt and rollback run together end in a state a serial order gives."""
    world = w.build(base)
    procs = [subprocess.Popen([sys.executable, "-m", "tests._writeback_world", cmd,
                               str(world.base), "30"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for cmd in ("adopt", "rollback")]
    codes = [p.wait(timeout=120) for p in procs]
    state, reasons = w.disk(world), w.ledger(world)
    if codes[0] != 0:
        return False
    if codes[1] == 0:
        return state == _old() and reasons[-1].startswith("rollback") and not w.temps(world)
    return state == _new() and reasons[-1] == "adopt" and not w.temps(world)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--strace", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    points = 24 if args.strace else POINTS
    rows = []
    with tempfile.TemporaryDirectory(prefix="writeback-trials-") as tmp:
        for i in range(args.trials):
            command = ("adopt", "rollback")[i % 2]
            point = (i // 2) % points + 1
            rows.append(kill_trial(Path(tmp) / f"k{i}", command, point, args.strace))
        pairs = [pair_trial(Path(tmp) / f"p{i}") for i in range(args.pairs)]
    summary = {
        "mode": "strace syscall injection" if args.strace else "crash-point hook",
        "trials": len(rows),
        "killed": sum(bool(r["killed"]) for r in rows),
        "torn_after_recovery": sum(bool(r["torn"]) for r in rows),
        "ledger_disagrees": sum(bool(r["ledger_disagrees"]) for r in rows),
        "temps_left": sum(int(r["temps_left"]) for r in rows),  # type: ignore[call-overload]
        "pairs": len(pairs),
        "pairs_not_serial": pairs.count(False),
    }
    print(json.dumps(summary) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
