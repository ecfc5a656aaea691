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
    urls,
)

from ._secret_shapes import BENIGN, KEYS, shapes

SHAPES = shapes(seed=31)
WORDS = sorted(prefilter.words())


def test_every_rule_word_is_looked_for_under_its_family() -> None:
    found = prefilter.words()
    for family, words in [(prefilter.ASSIGNMENT, assignments.HINTS), (prefilter.PEM, pem.HINTS),
                          (prefilter.URL, urls.HINTS), (prefilter.COMMAND, commands.ALONE)]:
        for word in words:
            assert found[word] & family, word
            assert prefilter.kinds(f"x {word} y") & family, word
    for word in (*commands.OPTION_MARKS, *commands.CLIENTS, *commands.PIPED):
        assert word in found


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
