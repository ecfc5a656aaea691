"""This package's secrets engine beside detect-secrets and CredSweeper, on one corpus.

    .venv/bin/python experiments/secrets_compare.py [--credsweeper PATH] [--json]

The corpus is the tests' generated one (``tests/_secret_shapes.py``): every credential
shape in every placement (prompt, command, tool output, file, answer), one file each, and
every benign look-alike in every placement. A shape counts as caught when the tool
reports (or, for this engine, removes) its value; a benign file counts as altered when the
tool reports anything in it. Speed is over the project's transcript fixtures (whole
JSONL files: the worst case, every record at once). detect-secrets runs in-process with
its default plugins; CredSweeper (a separate install: about 400 MB with onnxruntime,
pandas and numpy, so it is not a dependency) runs from ``--credsweeper`` (its
executable), with its ML filter (default) and without (``--ml_threshold 0``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.secrets import redact  # noqa: E402
from tests._secret_shapes import BENIGN, PLACEMENTS, shapes  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"


def corpus(folder: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Files of shapes (path → the value that must go) and of benign lines (path → text)."""
    secret_files: dict[str, str] = {}
    benign_files: dict[str, str] = {}
    for i, (_, line, value) in enumerate(shapes()):
        for name, template in PLACEMENTS.items():
            path = folder / f"shape{i:03d}_{name}.txt"
            path.write_text(template.format(line=line), "utf-8")
            secret_files[str(path)] = value
    for i, line in enumerate(BENIGN):
        for name, template in PLACEMENTS.items():
            path = folder / f"benign{i:03d}_{name}.txt"
            path.write_text(template.format(line=line), "utf-8")
            benign_files[str(path)] = line
    return secret_files, benign_files


def _caught(value: str, reported: list[str]) -> bool:
    return any(len(r) >= 4 and (r in value or value in r) for r in reported)


def score(found: dict[str, list[str]], secret_files: dict[str, str],
          benign_files: dict[str, str], seconds: float, mb: float) -> dict[str, Any]:
    caught = sum(_caught(v, found.get(p, [])) for p, v in secret_files.items())
    altered = sum(bool(found.get(p)) for p in benign_files)
    return {"recall": round(caught / len(secret_files), 3), "caught": caught,
            "shapes": len(secret_files), "benign_altered": altered,
            "benign": len(benign_files), "seconds_on_fixtures": round(seconds, 2),
            "mb_per_s": round(mb / seconds, 2) if seconds else None}


def fixture_texts() -> list[str]:
    return [p.read_text("utf-8", "replace") for p in sorted(FIXTURES.rglob("*.json*"))]


def this_engine(secret_files: dict[str, str], benign_files: dict[str, str]
                ) -> tuple[dict[str, list[str]], float]:
    """Caught: the value is gone from the redacted text; altered: anything was replaced."""
    found: dict[str, list[str]] = {}
    for path, value in secret_files.items():
        clean, _ = redact(Path(path).read_text("utf-8"))
        found[path] = [] if value in clean else [value]
    for path in benign_files:
        _, count = redact(Path(path).read_text("utf-8"))
        found[path] = ["(altered)"] if count else []
    start = time.process_time()
    for text in fixture_texts():
        redact(text)
    return found, time.process_time() - start


def detect_secrets_scan(files: list[str]) -> tuple[dict[str, list[str]], float]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    found: dict[str, list[str]] = {}
    with default_settings():
        collection = SecretsCollection()
        for path in files:
            collection.scan_file(path)
        for filename, secret in collection:
            found.setdefault(str(Path(filename).resolve()), []).append(
                secret.secret_value or "")
        with tempfile.TemporaryDirectory() as tmp:
            copies: list[str] = []
            for i, text in enumerate(fixture_texts()):
                target = Path(tmp) / f"f{i}.jsonl"
                target.write_text(text, "utf-8")
                copies.append(str(target))
            start = time.process_time()
            timing = SecretsCollection()
            for name in copies:
                timing.scan_file(name)
            seconds = time.process_time() - start
    return {str(Path(p).resolve()): v for p, v in found.items()}, seconds


def credsweeper_scan(exe: str, folder: Path, extra: list[str]) -> tuple[dict[str, list[str]],
                                                                         float]:
    out = folder.parent / "credsweeper.json"
    subprocess.run([exe, "--path", str(folder), "--save-json", str(out), *extra],
                   capture_output=True, check=True)
    found: dict[str, list[str]] = {}
    for candidate in json.loads(out.read_text("utf-8")):
        for line in candidate["line_data_list"]:
            found.setdefault(str(Path(line["path"]).resolve()), []).append(line["value"] or "")
    start = time.perf_counter()
    subprocess.run([exe, "--path", str(FIXTURES), "--save-json", str(out), *extra],
                   capture_output=True, check=True)
    return found, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--credsweeper", help="path of a credsweeper executable")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    mb = sum(len(t.encode()) for t in fixture_texts()) / 2**20
    results: dict[str, Any] = {"fixtures_mb": round(mb, 2)}
    with tempfile.TemporaryDirectory(prefix="secrets-compare-") as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        secret_files, benign_files = corpus(folder)
        secret_files = {str(Path(p).resolve()): v for p, v in secret_files.items()}
        benign_files = {str(Path(p).resolve()): v for p, v in benign_files.items()}
        files = [*secret_files, *benign_files]
        found, seconds = this_engine(secret_files, benign_files)
        results["skillopt_sleep.secrets"] = score(found, secret_files, benign_files,
                                                  seconds, mb)
        found, seconds = detect_secrets_scan(files)
        results["detect-secrets 1.5.0"] = score(found, secret_files, benign_files,
                                                seconds, mb)
        if args.credsweeper:
            for label, extra in (("credsweeper (ML filter)", []),
                                 ("credsweeper (rules only)", ["--ml_threshold", "0"])):
                found, seconds = credsweeper_scan(args.credsweeper, folder, extra)
                results[label] = score(found, secret_files, benign_files, seconds, mb)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"corpus: {len(secret_files)} shape placements, {len(benign_files)} benign; "
          f"speed over {mb:.1f} MB of transcript fixtures")
    for tool, r in results.items():
        if isinstance(r, dict):
            print(f"{tool:28} recall {r['recall']:.3f} ({r['caught']}/{r['shapes']}), "
                  f"benign altered {r['benign_altered']}/{r['benign']}, "
                  f"{r['seconds_on_fixtures']} s ({r['mb_per_s']} MB/s)")


if __name__ == "__main__":
    main()
