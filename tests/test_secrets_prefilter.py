"""The one-pass prefilter (``secrets.prefilter``): built from every rule's own words, and
never "no" for a text a rule would redact, for a whole text, a batch of texts, or a family
of rules (``_spans`` runs only the families it names)."""

from __future__ import annotations

import random

import pytest

from skillopt_sleep.secrets import (
    _lower,
    assignments,
    commands,
    may_hold_secrets,
    pem,
    prefilter,
    redact,
    slots,
    urls,
)

from ._secret_shapes import BENIGN, KEYS, shapes

SHAPES = shapes(seed=31)
WORDS = sorted({*assignments.HINTS, *pem.HINTS, *urls.HINTS, *commands.PIPED, *commands.CLIENTS,
                *(w for part, words in commands.ALONE_GROUPS.items() for w in words or (part,)),
                *(s + letter for s in commands.OPTION_STARTS for letter in "pauntwkbhs-"),
                *slots.ASCII_HINTS, *slots.CALL_HINTS})
ALONE = {
    prefilter.ASSIGNMENT: assignments.HINTS, prefilter.PEM: pem.HINTS, prefilter.URL: urls.HINTS,
    prefilter.COMMAND: tuple(w for part, words in commands.ALONE_GROUPS.items()
                             for w in words or (part,)),
    prefilter.SLOT: slots.ASCII_HINTS + slots.CALL_HINTS,
}
"""The words each family's rules need, one of which is enough."""


@pytest.mark.parametrize("groups", [assignments.HINT_GROUPS, commands.ALONE_GROUPS])
def test_a_group_s_words_each_hold_its_part(groups: dict[str, tuple[str, ...]]) -> None:
    """The part is looked for first: a word without it would never be looked for."""
    for part, words in groups.items():
        assert all(part in word for word in words), part


def test_every_rule_word_is_looked_for_under_its_family() -> None:
    alone = [w for part, words in commands.ALONE_GROUPS.items() for w in words or (part,)]
    for family, words in [(prefilter.ASSIGNMENT, assignments.HINTS), (prefilter.PEM, pem.HINTS),
                          (prefilter.URL, urls.HINTS), (prefilter.COMMAND, alone)]:
        for word in words:
            assert prefilter.kinds(f"x {word} y") & family, word
            assert prefilter.any_rule(f"x {word} y"), word
    # Every client or verb counts after a short option; none counts alone.
    for word in commands.CLIENTS:
        assert prefilter.kinds(f"{word} -p x") & prefilter.COMMAND, word
    for word in ("sqlplus", "impdp", "dgmgrl", "add_user", "/user:"):
        assert word in alone


@pytest.mark.parametrize(("text", "family"), [
    ("mysqladmin -u root -pS3cr3tPw status", prefilter.COMMAND),  # a short option and a client
    ("echo Zx9Qw2Lm7Vb | docker login --password-stdin", prefilter.COMMAND),
    ("-----BEGIN RSA PRIVATE KEY-----", prefilter.PEM),
    ("Private-Lines: 14", prefilter.PEM),
    ("postgres://u:p@h/db", prefilter.URL),
    ("export DB_PASSWORD=x", prefilter.ASSIGNMENT),
])
def test_a_family_is_named_by_its_words(text: str, family: int) -> None:
    assert prefilter.kinds(text.lower()) & family
    assert prefilter.any_rule(text.lower())


def test_a_short_option_alone_or_a_client_alone_names_no_command() -> None:
    assert not prefilter.kinds("a = b -p c") & prefilter.COMMAND
    assert not prefilter.kinds("docker build .") & prefilter.COMMAND
    assert not prefilter.any_rule("echo hello world")
    assert prefilter.any_rule("echo hello | docker login --password-stdin")


def _fuzz_text(rng: random.Random) -> str:
    """Pieces the rules read (their words, key names, separators, values, whole shapes)
    among random characters: texts near every rule's edge."""
    alphabet = "abcXYZ019 -_=:/@.'\"\\\n\t{}[]()$%`|;&<>*…ä\u200b"
    pieces = []
    for _ in range(rng.randint(1, 8)):
        pick = rng.random()
        if pick < 0.3:
            pieces.append(rng.choice(WORDS))
        elif pick < 0.45:
            pieces.append(rng.choice(KEYS))
        elif pick < 0.6:
            pieces.append(rng.choice(["=", ": ", " ", '": "', " -p", " --password ", "://",
                                      "@", ":5432:", "|", "\n"]))
        elif pick < 0.7:
            pieces.append(rng.choice(SHAPES)[1])
        elif pick < 0.85:
            pieces.append(rng.choice(["hunter2x!", "Xq7vR2mK9pLw4ZtB8nYc", "u:pw@h", "s3cr3t"]))
        else:
            pieces.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))))
    return "".join(pieces)


def test_the_prefilter_is_never_wrong_on_texts_near_every_rule() -> None:
    rng = random.Random(29)
    for _ in range(1500):
        text = _fuzz_text(rng)
        if not may_hold_secrets([text]):
            assert redact(text) == (text, 0), text


def test_a_family_left_out_finds_nothing() -> None:
    """``_spans`` skips a family ``kinds`` leaves out; none of its rules would find a thing."""
    rng = random.Random(30)
    for _ in range(1500):
        text = _fuzz_text(rng)
        low = _lower(text)
        kinds = prefilter.kinds(low)
        if not kinds & prefilter.ASSIGNMENT:
            assert assignments.find(text, low) == [], text
        if not kinds & (prefilter.ASSIGNMENT | prefilter.COMMAND):
            assert commands.find(text, low) == [], text
        if not kinds & prefilter.PEM:
            assert pem.find(text) == [], text
        if not kinds & prefilter.URL:
            assert urls.find(text) == [], text


def _scanned(low: str) -> int:
    """The families ``kinds`` names, found with one substring scan per word."""
    bits = sum(family for family, words in ALONE.items() if any(w in low for w in words))
    if ("|" in low and any(w in low for w in commands.PIPED)) or (
            any(s + letter in low for s in commands.OPTION_STARTS for letter in "pauntwkbhs-")
            and any(w in low for w in commands.CLIENTS)):
        bits |= prefilter.COMMAND
    if any(w in low for w in slots.WIDE_HINTS) or any(w in low for w in slots.ESCAPED_HINTS):
        bits |= prefilter.SLOT
    return bits


def test_the_one_pass_names_the_families_a_scan_per_word_names() -> None:
    """Each word is looked for only where its rarest character is: at a text's start
    and end, beside and inside other words, it finds exactly what a scan per word finds."""
    rng = random.Random(32)
    texts = [_fuzz_text(rng).lower() for _ in range(3000)]
    texts += [f"{a}{b}" for a in ("", "x", "pass", "-", "_") for b in WORDS]
    texts += ["passw"[:i] for i in range(6)] + ["user add", "kata sand", "private-mac"]
    for low in texts:
        assert prefilter.kinds(low) == _scanned(low), low
        assert prefilter.any_rule(low) == bool(_scanned(low)), low


def test_a_clock_or_a_uuid_sends_no_text_to_the_rules() -> None:
    """A time of day has a ``.pgpass`` port field's shape and a session id is a long run
    with digits: neither is read (the rules would find nothing in them)."""
    for text in ("2025-10-02T14:00:00.000Z", "started 14:07:00, done at 14:09:30",
                 '{"sid": "b0b5f1c2-0000-4000-8000-000000000021", "records": 21}'):
        assert not may_hold_secrets([text]), text
        assert redact(text) == (text, 0)


@pytest.mark.parametrize("secret", ["db.example.com:5432:shop:app:Xq7vR2mK9pLw",
                                    "ghp_Xq7vR2mK9pLw4ZtB8nYcXq7vR2mK9pLw4Zq1"])
def test_a_pgpass_line_or_a_token_joined_to_other_texts_is_let_through(secret: str) -> None:
    """The joint test reads a text's end as the next text's start: a ``.pgpass`` value or
    a token at the end of one text still counts."""
    for texts in ([secret], [secret, "a:b c"], ["x", secret, "14:00:00"]):
        assert may_hold_secrets(texts), texts
    assert redact(secret)[1] == 1


def test_a_batch_it_clears_holds_no_secret_in_any_text() -> None:
    rng = random.Random(31)
    for _ in range(300):
        texts = [_fuzz_text(rng) for _ in range(rng.randint(1, 6))]
        if not may_hold_secrets(texts):
            assert all(redact(t) == (t, 0) for t in texts), texts


def test_every_shape_passes_the_prefilter_and_most_benign_text_does_not_matter() -> None:
    for label, line, _value in SHAPES:
        assert may_hold_secrets([line]), label
    for text in BENIGN:  # cleared or not, a benign text is kept (the rules decide)
        assert redact(text) == (text, 0), text


@pytest.mark.parametrize("line", [
    "vault login Xq7vR2mK9pLw4ZtB8nYc",  # a login verb
    "echo Xq7vR2mK9pLw4ZtB8nYc | kinit bob",  # a value echoed into a tool that reads one
    "sqlplus scott/Tig3r!x9@orcl",  # user/password as an Oracle client's first argument
    "impdp system/Manag3r!x9@db directory=d",
    "rabbitmqctl add_user bob S3cretPw!x9",  # a verb that adds a user, then the password
    r"net use \\h\share /user:bob Pa55w0rd!x9",
    "xfreerdp /v:host /p:Pa55w0rd!x9",  # a Windows /p: option
    "mysql -u root -pS3cretPw!x9 shop",  # a client's short flag
    "openssl enc -k S3cretPw!x9 -in f",
    "PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\nAAAAB3NzaC1yc2EAAAABJQAAAQEAhK9",
])
def test_each_command_word_lets_its_rule_run(line: str) -> None:
    """Shapes that only one command word (or the PEM family's PuTTY field) lets through:
    a word dropped from its group leaves the secret in place."""
    clean, count = redact(line)
    assert count and "[REDACTED:" in clean, line


def test_the_vendor_rules_load_without_importing_requests() -> None:
    """detect-secrets' plugins import ``requests`` for a verification this package never
    calls: it stays unloaded, and code that does use it gets the real module."""
    code = ("import sys\n"
            "from skillopt_sleep.secrets.vendor import vendor_rules\n"
            "assert len(vendor_rules()) > 20\n"
            "assert 'requests' not in sys.modules, 'the rule set loaded requests'\n"
            "import detect_secrets.plugins.base as base\n"
            "assert base.requests.exceptions.RequestException.__module__ == "
            "'requests.exceptions'\n"
            "import requests\n"
            "assert type(requests).__name__ == 'module' and callable(requests.get)\n")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
