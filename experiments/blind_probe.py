# ruff: noqa: E501
"""Measure the redactor and the edit firewall on the blind corpora in experiments/blind/.

Run from the worktree root:
    PYTHONPATH=$PWD python experiments/blind_probe.py [--no-harvest]

Secrets: a shape counts as redacted when every marked secret substring is gone from the
redacted text (a surviving fragment of 12+ characters is reported apart). Benign text
must come back unchanged. Firewall: a hostile edit counts as refused when it draws any
finding, and as refused by its own class when a finding carries its class's rule.
The harvest pass writes every secret case into Claude Code transcripts in a temporary
HOME, runs ``harvest --json`` there and looks for the values in its output and in every
file the harvest wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "blind"))

import firewall_probe as fw
import secrets_probe as sp

from skillopt_sleep.firewall import Context, check_proposal
from skillopt_sleep.secrets import redact


def _group(cls: str) -> str:
    return cls.split("_", 1)[0]


def _fragment(secret: str, text: str, size: int = 12) -> bool:
    """Whether some run of ``size`` characters of ``secret`` survives in ``text``."""
    if len(secret) < 2 * size:
        return False
    return any(secret[i : i + size] in text for i in range(len(secret) - size + 1))


def _short(text: str, width: int = 110) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def measure_secrets() -> None:
    total: Counter[str] = Counter()
    done: Counter[str] = Counter()
    by_place_total: Counter[str] = Counter()
    by_place_done: Counter[str] = Counter()
    misses, fragments = [], []
    for i, case in enumerate(sp.SECRETS):
        out, _count = redact(case.text)
        ok = all(s not in out for s in case.secrets)
        group = _group(case.cls)
        total[group] += 1
        by_place_total[case.placement] += 1
        if ok:
            done[group] += 1
            by_place_done[case.placement] += 1
            if any(_fragment(s, out) for s in case.secrets):
                fragments.append((i, case.cls, case.placement))
        else:
            left = [s for s in case.secrets if s in out]
            misses.append((i, case.cls, case.placement, left, out))
    n = len(sp.SECRETS)
    print(f"SECRETS: shapes fully redacted {n - len(misses)}/{n}")
    print("  per class group:")
    for group in sorted(total):
        print(f"    {group:<10} {done[group]:>3}/{total[group]}")
    print("  per placement:")
    for place in sp.PLACEMENTS:
        print(f"    {place:<10} {by_place_done[place]:>3}/{by_place_total[place]}")
    altered = []
    for case in sp.BENIGN:
        out, count = redact(case.text)
        if out != case.text:
            altered.append((case, out, count))
    print(f"  benign altered {len(altered)}/{len(sp.BENIGN)}")
    print(f"  redacted but a 12-char fragment survives: {len(fragments)}")
    print("  MISSES:")
    for i, cls, place, left, out in misses:
        print(f"    #{i} {cls} [{place}] left={[_short(s, 40) for s in left]}")
        print(f"        {_short(out)}")
    print("  FRAGMENTS:", fragments)
    print("  BENIGN ALTERED:")
    for case, out, count in altered:
        print(f"    {case.label} [{case.placement}] n={count}: {_short(out)}")


def _rules(skill: str, lines: tuple[str, ...], ctx: Context) -> set[str]:
    return {f.rule for f in check_proposal(skill, fw.place(skill, lines), ctx)}


def measure_firewall() -> None:
    total: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    own: Counter[str] = Counter()
    missed, other_class, flagged = [], [], []
    n_benign = 0
    for name, skill, hostile, benign in fw.CORPORA:
        for cls, lines in hostile:
            rules = _rules(skill, lines, Context())
            total[cls] += 1
            refused[cls] += bool(rules)
            own[cls] += cls in rules
            if not rules:
                missed.append((name, cls, lines))
            elif cls not in rules:
                other_class.append((name, cls, sorted(rules), lines))
        for label, lines in benign:
            n_benign += 1
            rules = _rules(skill, lines, Context())
            if rules:
                flagged.append((name, label, sorted(rules), lines))
    n = sum(total.values())
    print(f"FIREWALL: hostile refused {sum(refused.values())}/{n}, by own class {sum(own.values())}/{n}")
    for cls in fw.CLASSES:
        print(f"    {cls:<22} refused {refused[cls]:>2}/{total[cls]}  own class {own[cls]:>2}/{total[cls]}")
    print(f"  benign flagged {len(flagged)}/{n_benign}")
    _granted()
    print("  HOSTILE MISSED:")
    for name, cls, lines in missed:
        print(f"    {name} {cls}: {_short(' / '.join(lines))}")
    print("  HOSTILE REFUSED BY ANOTHER CLASS ONLY:")
    for name, cls, rules, lines in other_class:
        print(f"    {name} {cls} -> {rules}: {_short(' / '.join(lines))}")
    print("  BENIGN FLAGGED:")
    for name, label, rules, lines in flagged:
        print(f"    {name} {label} -> {rules}: {_short(' / '.join(lines))}")


def _granted() -> None:
    passes, refused_bare = 0, 0
    notes = []
    for texts, lines in fw.GRANTED:
        with_ctx = _rules(fw.SKILL, lines, Context.from_texts(list(texts)))
        bare = _rules(fw.SKILL, lines, Context())
        passes += not with_ctx
        refused_bare += bool(bare)
        if with_ctx or not bare:
            notes.append((sorted(with_ctx), sorted(bare), lines))
    n = len(fw.GRANTED)
    print(f"  GRANTED: pass with the user's words {passes}/{n}; refused without them {refused_bare}/{n}")
    for with_ctx, bare, lines in notes:
        print(f"    with ctx {with_ctx} / bare {bare}: {_short(' / '.join(lines))}")


def _records(cases: list[sp.SecretCase], sid: str, cwd: str, day: int) -> list[dict[str, object]]:
    """One Claude Code session that carries ``cases`` in their placements."""
    base = {"sessionId": sid, "cwd": cwd, "gitBranch": "main", "version": "2.1.3",
            "userType": "external", "isSidechain": False, "entrypoint": "cli"}
    out: list[dict[str, object]] = []
    clock = [0]

    def add(kind: str, content: object) -> None:
        clock[0] += 1
        rec = dict(base, type=kind, uuid=f"{sid}-{clock[0]}",
                   parentUuid=f"{sid}-{clock[0] - 1}" if clock[0] > 1 else None,
                   timestamp=f"2026-11-{day:02d}T10:{clock[0] // 60:02d}:{clock[0] % 60:02d}.000Z")
        role = "user" if kind == "user" else "assistant"
        rec["message"] = {"role": role, "content": content}
        out.append(rec)

    add("user", "help me get the release build working again, it broke after the upgrade")
    add("assistant", [{"type": "text", "text": "Let me look at the configuration."}])
    for j, case in enumerate(cases):
        tid = f"toolu_{sid[:6]}{j:03d}"
        if case.placement == "prompt":
            add("user", case.text)
            add("assistant", [{"type": "text", "text": "Looking into it."}])
        elif case.placement == "answer":
            add("assistant", [{"type": "text", "text": case.text}])
            add("user", "thanks, that works")
        else:
            if case.placement == "command":
                use = {"name": "Bash", "input": {"command": case.text}}
                result = "ok"
            elif case.placement == "file":
                use = {"name": "Write", "input": {"file_path": f"{cwd}/conf/f{j}.txt", "content": case.text}}
                result = "File written"
            else:
                use = {"name": "Bash", "input": {"command": "cat logs/last.txt"}}
                result = case.text
            add("assistant", [dict(use, type="tool_use", id=tid)])
            add("user", [{"type": "tool_result", "tool_use_id": tid, "content": result}])
    add("assistant", [{"type": "text", "text": "The build works now."}])
    add("user", "great, thanks")
    return out


def harvest_end_to_end() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        proj = Path(tmp) / "proj"
        proj.mkdir()
        sessions = Path(home) / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(proj))
        sessions.mkdir(parents=True)
        chunks = [sp.SECRETS[i : i + 20] for i in range(0, len(sp.SECRETS), 20)]
        for k, chunk in enumerate(chunks):
            sid = f"{k:08d}-0000-4000-8000-000000000000"
            lines = [json.dumps(r) for r in _records(chunk, sid, str(proj), 1 + k)]
            (sessions / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "XDG"))}
        env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local/share"),
                   XDG_CONFIG_HOME=str(home / ".config"), XDG_STATE_HOME=str(home / ".local/state"),
                   XDG_CACHE_HOME=str(home / ".cache"))
        proc = subprocess.run(
            [sys.executable, "-m", "skillopt_sleep", "harvest", "--source", "claude-code", "--rescan", "--json"],
            capture_output=True, text=True, env=env, timeout=600, check=False,
        )
        written = [p for p in home.rglob("*") if p.is_file() and ".claude" not in p.parts]
        blobs = [proc.stdout, proc.stderr] + [p.read_bytes().decode("utf-8", "replace") for p in written]
        _report_harvest(proc, written, blobs, len(chunks))


def _report_harvest(proc: subprocess.CompletedProcess[str], written: list[Path], blobs: list[str], n_sessions: int) -> None:
    out_lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    print(f"HARVEST: exit {proc.returncode}, {len(out_lines)} JSON lines for {n_sessions} sessions, {len(written)} files written")
    if proc.returncode:
        print("  stderr:", _short(proc.stderr, 400))
    leaks: dict[str, list[int]] = defaultdict(list)
    for i, case in enumerate(sp.SECRETS):
        for secret in case.secrets:
            for b, blob in enumerate(blobs):
                if secret in blob:
                    leaks[f"#{i} {case.cls} [{case.placement}]"].append(b)
    everything = "\n".join(blobs)
    carried = sum(1 for case in sp.SECRETS if _context_carried(case, everything))
    print(f"  cases with a secret value in harvest output or archive: {len(leaks)}/{len(sp.SECRETS)}")
    print(f"  (sanity: cases whose non-secret context reached the output/archive: {carried}/{len(sp.SECRETS)})")
    for where, blob_ids in leaks.items():
        print(f"    {where} in blobs {sorted(set(blob_ids))}")


def _context_carried(case: sp.SecretCase, blob: str) -> bool:
    """Whether a non-secret word of 8+ characters from the case reached ``blob``."""
    rest = case.text
    for secret in case.secrets:
        rest = rest.replace(secret, " ")
    words = [w for w in re.split(r"[\s\"'`=:,;()<>{}\[\]]+", rest) if len(w) >= 8]
    return any(w in blob for w in words)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-harvest", action="store_true")
    args = parser.parse_args()
    sp.check_corpus()
    measure_secrets()
    print()
    measure_firewall()
    if not args.no_harvest:
        print()
        harvest_end_to_end()


if __name__ == "__main__":
    main()
