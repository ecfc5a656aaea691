"""Figures of the hand-written secrets probes (``tests/data/secrets_probe.py``, ``…2.py``).

    PYTHONPATH=. .venv/bin/python experiments/secrets_probe.py [--verbose]

Each case in each placement (prompt, command, output, file, answer), as written and
JSON-encoded once and twice: a case counts as redacted only when its secret is gone from
all fifteen texts. A benign line counts as altered when any of its fifteen texts changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.secrets import redact  # noqa: E402
from tests._secret_shapes import PLACEMENTS  # noqa: E402
from tests.data import secrets_probe, secrets_probe2  # noqa: E402


def texts(line: str) -> list[str]:
    """``line`` in every placement, as written and JSON-encoded once and twice."""
    out = []
    for template in PLACEMENTS.values():
        text = template.format(line=line)
        out += [text, json.dumps({"content": text}), json.dumps(json.dumps(text))]
    return out


def survives(line: str, secret: str) -> bool:
    return any(secret in redact(t)[0] for t in texts(line))


def altered(line: str) -> bool:
    return any(redact(t)[1] for t in texts(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    for number, probe in ((1, secrets_probe), (2, secrets_probe2)):
        print(f"probe {number}:")
        report(probe.CASES, probe.BENIGN, args.verbose)


def report(cases: list[tuple[str, str, str]], benign: list[str], verbose: bool) -> None:
    total: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    for cls, line, secret in cases:
        total[cls] += 1
        if survives(line, secret):
            if verbose:
                print(f"MISS {cls}: {line!r}")
        else:
            caught[cls] += 1
    bad = [line for line in benign if altered(line)]
    for line in bad if verbose else []:
        print(f"ALTERED: {line!r} -> {redact(line)[0]!r}")
    for cls in total:
        print(f"  {cls:12} {caught[cls]}/{total[cls]}")
    print(f"  {'all':12} {sum(caught.values())}/{len(cases)} redacted in every placement; "
          f"benign altered {len(bad)}/{len(benign)}")


if __name__ == "__main__":
    main()
