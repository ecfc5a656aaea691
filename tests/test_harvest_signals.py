"""Reactions from the next message only, and the secret rule set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeSource
from skillopt_sleep.harvest.signals import classify_reaction, is_repeat
from skillopt_sleep.records import Turn
from skillopt_sleep.secrets import SECRET_PATTERNS, find_secrets, redact


def _turn(request: str, signals: list[str] | None = None) -> Turn:
    return Turn(id="x", index=0, request=request, signals=signals or [])


@pytest.mark.parametrize("reply,expected", [
    ("no, use pnpm instead", "correction"),
    ("That's wrong, the test still fails", "correction"),
    ("it still doesn't work", "correction"),
    ("Nein, das ist falsch", "correction"),
    ("нет, не так — нужно через API", "correction"),
    ("違う、そうじゃなくてテストを直して", "correction"),
    ("不对，还是不行", "correction"),
    ("thanks, now add docs", "approval"),
    ("LGTM", "approval"),
    ("merci, parfait", "approval"),
    ("спасибо!", "approval"),
    ("ありがとう、次はREADMEを", "approval"),
    ("what's wrong with the parser module?", "none"),
    ("add a fixed-width column", "none"),
    ("no problem, now do the CSS", "none"),
])
def test_reaction_reads_the_next_message(reply: str, expected: str) -> None:
    assert classify_reaction(_turn("build the login page"), _turn(reply)) == expected


def test_reaction_ignores_words_in_the_turn_itself() -> None:
    turn = _turn("the build is broken and wrong, fix it")
    assert classify_reaction(turn, None) == "none"
    assert classify_reaction(turn, _turn("now write the changelog")) == "none"


def test_repeat_in_any_script() -> None:
    assert is_repeat("run the migrations for the billing db",
                     "run the migrations for the billing db please")
    assert is_repeat("テストを全部実行してください", "テストを全部実行してください！")
    assert not is_repeat("run the migrations", "write the release notes")
    ask = "deploy the staging branch to preview"
    assert classify_reaction(_turn(ask), _turn(ask + " again")) == "repeat"


def test_a_message_after_an_interrupt_is_a_correction() -> None:
    assert classify_reaction(_turn("refactor x", ["interrupted"]),
                             _turn("use the helper in utils")) == "correction"


def test_reactions_in_a_harvested_session(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-w"
    folder.mkdir(parents=True)
    records = []
    prompts = ["add a retry to the fetcher", "no, use tenacity not a loop", "perfect, thanks"]
    parent = None
    for i, prompt in enumerate(prompts):
        user = {"type": "user", "uuid": f"u{i}", "parentUuid": parent, "sessionId": "r",
                "cwd": "/w", "timestamp": f"2026-01-01T10:0{i}:00Z",
                "message": {"role": "user", "content": prompt}}
        answer = {"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": "r",
                  "cwd": "/w", "timestamp": f"2026-01-01T10:0{i}:30Z",
                  "message": {"id": f"m{i}", "role": "assistant",
                              "content": [{"type": "text", "text": f"answer {i}"}]}}
        records += [user, answer]
        parent = f"a{i}"
    (folder / "r.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    (session,) = list(ClaudeCodeSource(tmp_path).sessions())
    assert [t.reaction for t in session.turns] == ["correction", "approval", "none"]


# Kinds: detect-secrets' rule for the vendor where it has one, else the class a vendor
# token belongs to (a prefix before a random body: random, as a real key's is), else what
# its context says (``TOKEN_X`` names a secret; the value looks generated).
SECRETS = [
    ("prefixed_token", "sk-ant-api03-" + "Xq7vR2mK9pLw4ZtB8nYc3HdJ6sFg1QeU5aVo0iTx"),
    ("prefixed_token", "sk-proj-" + "Zz09Lk3PqW8rT5yU2iO7pA4sD6fG1hJ9"),
    ("github_token", "ghp_" + "a1B2" * 9),
    # Not AWS's documented example key (``AKIAIOSFODNN7EXAMPLE``), which is kept as public.
    ("aws_access_key", "AKIA" + "Q4ZK7B2M9XWT3RLP"),
    # A well-known prefix with no separator before its random body.
    ("prefixed_token", "AIza" + "SyD3kF9qLm2Xv8RtY1bN7wPz0Hc4JsUe6Ga"),
    ("slack_token", "xoxb-1234567890-abcdefghij"),
    ("stripe_key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS, ids=[v[:6] for _, v in SECRETS])
def test_provider_key_shapes_are_redacted(kind: str, secret: str) -> None:
    text = f"export TOKEN_X {secret} # set"
    clean, count = redact(text)
    assert count == 1 and secret not in clean and f"[REDACTED:{kind}]" in clean
    assert find_secrets(text) == [(kind, secret)]


def test_pairs_connection_strings_bearer_and_private_keys() -> None:
    text = ("password=hunter2x and DATABASE_URL=postgres://app:s3cr3t@db:5432/x\n"
            "Authorization: Bearer abcdefghijklmnop1234\n"
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n"
            "-----END OPENSSH PRIVATE KEY-----")
    clean, count = redact(text)
    assert count == 4
    for leaked in ("hunter2x", "s3cr3t", "abcdefghijklmnop1234", "b3BlbnNzaC1rZXk"):
        assert leaked not in clean
    assert "password=[REDACTED:password_pair]" in clean  # the key name stays readable
    assert "postgres://app:[REDACTED:connection_string]@db" in clean
    assert {p.kind for p in SECRET_PATTERNS} >= {"private_key", "bearer_token", "password_pair"}


def test_ordinary_text_is_untouched() -> None:
    text = "Use the api key from the vault; the token bucket refills at 5/s. sk-learn is fine."
    assert redact(text) == (text, 0)
