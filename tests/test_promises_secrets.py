"""The secrets engine's promises through its public functions only (so they hold whatever
the detectors' insides become): ``redact`` is ``find_secrets`` with each finding replaced,
findings in order and apart, overlapping findings one marker of the earliest's kind, a
named shape reported before what its context says, positions right after characters that
grow when lower-cased, ``may_hold_secrets`` never False for a list holding a secret, and
``redact_tree`` reaching every string and nothing else."""

from __future__ import annotations

import pytest

from skillopt_sleep.secrets import find_secrets, may_hold_secrets, redact, redact_tree

from ._secret_shapes import BENIGN, PLACEMENTS, shapes

SHAPES = shapes(seed=43)
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
PASSWORD = "Xq7vR2mK9pLw4ZtB8nYc"


def _texts() -> list[str]:
    placed = [place.format(line=line) for _, line, _ in SHAPES for place in PLACEMENTS.values()]
    return placed + list(BENIGN) + [" ".join(line for _, line, _ in SHAPES[:12])]


def _rebuilt(text: str) -> tuple[str, int]:
    """``text`` with each ``find_secrets`` finding replaced, searched left to right."""
    out, at = [], 0
    found = find_secrets(text)
    for kind, matched in found:
        start = text.index(matched, at)
        out += [text[at:start], f"[REDACTED:{kind}]"]
        at = start + len(matched)
    return "".join(out) + text[at:], len(found)


def test_redact_is_find_secrets_with_each_finding_replaced_in_order() -> None:
    texts = _texts()
    assert sum(bool(find_secrets(t)) for t in texts) >= len(SHAPES)
    for text in texts:
        assert redact(text) == _rebuilt(text), text


def test_each_planted_value_is_gone_and_benign_text_kept_whole() -> None:
    for label, line, value in SHAPES:
        for place in PLACEMENTS.values():
            clean, count = redact(place.format(line=line))
            assert value not in clean and count >= 1, (label, place.format(line=line))
    for line in BENIGN:
        assert redact(line) == (line, 0) and find_secrets(line) == []


def test_overlapping_findings_are_one_marker_of_the_earliest_kind() -> None:
    # The assignment's value starts first and holds the URL whose userinfo is a finding too.
    text = f"password=postgres://admin:{PASSWORD}@db.host/app"
    assert find_secrets(text) == [("password_pair", f"postgres://admin:{PASSWORD}@db.host/app")]
    assert redact(text) == ("password=[REDACTED:password_pair]", 1)


def test_a_named_shape_is_reported_before_what_its_context_says() -> None:
    """A vendor token given to a key that names a secret: the same span found twice, named
    by its shape, not by the assignment."""
    for text in (f"GITHUB_TOKEN={TOKEN}", f"export GITHUB_TOKEN={TOKEN}",
                 f"Authorization: Bearer {TOKEN}"):
        assert find_secrets(text) == [("github_token", TOKEN)], text


@pytest.mark.parametrize("grows", ["İ", "İİ", "ẞİ", "ﬃİ"])
def test_positions_hold_after_characters_that_grow_when_lower_cased(grows: str) -> None:
    """``"İ".lower()`` is two characters: a finding after it is still cut where it is."""
    text = f"{grows} DB_PASSWORD={PASSWORD} then {grows} done"
    assert redact(text) == (f"{grows} DB_PASSWORD=[REDACTED:password_pair] then {grows} done", 1)
    assert find_secrets(text) == [("password_pair", PASSWORD)]


def test_text_that_holds_only_markers_is_kept() -> None:
    text = "see [REDACTED:password_pair] and password=[REDACTED:password_pair]x"
    assert redact(text) == (text, 0) and find_secrets(text) == []
    assert redact("") == ("", 0) and find_secrets("") == []


def test_may_hold_secrets_is_true_for_any_list_that_holds_one() -> None:
    benign = list(BENIGN)
    assert not may_hold_secrets([])
    for _, line, _ in SHAPES:
        for place in PLACEMENTS.values():
            text = place.format(line=line)
            assert may_hold_secrets([text]), text
            assert may_hold_secrets([*benign[:20], text, *benign[20:40]]), text
    # What it clears, redact keeps.
    cleared = [t for t in benign if not may_hold_secrets([t])]
    assert cleared, "no benign text was cleared"
    assert all(redact(t) == (t, 0) for t in cleared)


def test_redact_tree_reaches_every_string_and_keeps_everything_else() -> None:
    line = f"DB_PASSWORD={PASSWORD}"
    tree = {"a": [line, {"b": line, "n": 3, "f": 1.5, "t": True, "z": None}], "c": line,
            "k": "plain words"}
    assert redact_tree(tree) == {
        "a": ["DB_PASSWORD=[REDACTED:password_pair]",
              {"b": "DB_PASSWORD=[REDACTED:password_pair]", "n": 3, "f": 1.5, "t": True,
               "z": None}],
        "c": "DB_PASSWORD=[REDACTED:password_pair]", "k": "plain words"}
    assert redact_tree(line) == "DB_PASSWORD=[REDACTED:password_pair]"
    assert redact_tree(7) == 7 and redact_tree(None) is None


HEADER, FOOTER = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
KEY_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


def test_a_key_block_loses_its_body_and_keeps_its_header_and_footer() -> None:
    # Base64 lines may hold no digit: a body of mixed-case letters is key material too.
    text = f"{HEADER}\nAbCdEfGhIjKlMnOpQrStUvWxYz\nZyXwVuTsRqPoNmLk\n{FOOTER} then"
    assert redact(text) == (f"{HEADER}[REDACTED:private_key]{FOOTER} then", 1)
    # Prose between a header and its footer (a document naming the format) is not a key.
    prose = f"{HEADER}\nyour key material goes here, see documentation\n{FOOTER}"
    assert redact(prose) == (prose, 0)


def test_a_key_cut_short_after_a_whole_block_is_erased_too() -> None:
    text = (f"{HEADER}\n{KEY_LINE}\n{FOOTER}\nand a paste cut short:\n"
            f"{HEADER}\n{KEY_LINE}\n{KEY_LINE[:16]}")
    assert redact(text) == (f"{HEADER}[REDACTED:private_key]{FOOTER}\nand a paste cut "
                            f"short:\n{HEADER}[REDACTED:private_key]", 2)
    assert [kind for kind, _ in find_secrets(text)] == ["private_key", "private_key"]


def test_a_putty_key_loses_the_lines_it_counts_even_when_fewer_follow() -> None:
    line = "AAAAgQCxYz0123456789abcdef"
    cut = f"PuTTY-User-Key-File-3: ssh-rsa\nPrivate-Lines: 4\n{line}\n{line}\n-- cut here"
    assert redact(cut) == ("PuTTY-User-Key-File-3: ssh-rsa\nPrivate-Lines: 4\n"
                           "[REDACTED:private_key]-- cut here", 1)
    counted = f"Private-Lines: 2\n{line}\n{line}\n{line}\n"
    assert redact(counted) == (f"Private-Lines: 2\n[REDACTED:private_key]{line}\n", 1)


def test_a_webhooks_generated_segment_is_its_secret_and_its_host_is_not() -> None:
    slack = "curl -X POST https://hooks.slack.com/services/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"
    assert redact(slack) == ("curl -X POST https://hooks.slack.com/services/T0123ABCD/"
                             "B0456EFGH/[REDACTED:webhook_url]", 1)
    # A generated-looking host name holds dots: a host, not the hook's secret.
    host = "POST to https://build-7f3a9c2e1b4d.hook.example.io/status when done"
    assert redact(host) == (host, 0)


def test_a_urls_password_or_else_its_token_user_is_the_secret() -> None:
    assert redact(f"psql postgres://admin:{PASSWORD}@db.host/app") == (
        "psql postgres://admin:[REDACTED:connection_string]@db.host/app", 1)
    # A password too short to be one (``TOKEN:x@``): the random user is the credential.
    assert redact(f"git clone https://{PASSWORD}Q:x@github.com/o/r") == (
        "git clone https://[REDACTED:connection_string]:x@github.com/o/r", 1)
    assert redact(f"https://{PASSWORD}@host.example/x") == (
        "https://[REDACTED:connection_string]@host.example/x", 1)
    kept = "git clone https://deploy:x@github.com/o/r"
    assert redact(kept) == (kept, 0)


def test_a_secret_is_found_whatever_other_rule_words_the_text_holds() -> None:
    """The prefilter reads which rules' words a text holds; holding more of them (every
    word of a group, both echo and printf, every way an option starts) never hides one."""
    assert redact(f"download?sig={PASSWORD} (the signature)") == (
        "download?sig=[REDACTED:password_pair] (the signature)", 1)
    assert redact(f"printf 'go'; echo {PASSWORD} | sudo -S apt-get install x") == (
        "printf 'go'; echo [REDACTED:cli_password] | sudo -S apt-get install x", 1)
    # Both echo and printf, and the option only after a continued line (no " -"); the
    # echoed value goes to a tool that reads a secret from it.
    continued = f"printf go | cat\necho {PASSWORD} | docker login \\\n--password-stdin"
    assert redact(continued) == (
        "printf go | cat\necho [REDACTED:cli_password] | docker login \\\n--password-stdin", 1)
    options = f"mysql -u root -p{PASSWORD} --a=\"-x\" --b='-y' --c=-1\t-v"
    clean, count = redact(options)
    assert PASSWORD not in clean and count == 1


def test_an_id_with_a_known_prefix_is_kept_and_a_prefixed_token_is_not() -> None:
    body = "Xq7vR2mK9pLw4ZtB8nYcQ3"
    # A request id's prefix however it is joined to its qualifier: an id, not a secret.
    for token in (f"req-abc_{body}", f"req_abc-{body}", f"req.{body}"):
        assert redact(f"id {token}") == (f"id {token}", 0), token
    # A name that goes on past the token's shape (a file's extension) is a name.
    assert redact(f"path tok_{body}.json") == (f"path tok_{body}.json", 0)
    # A slug with an id in it has short pieces: its longest is no generated token.
    slug = "see app-claude-code-viewer__5c0375b4"
    assert redact(slug) == (slug, 0)
    # The body's longest piece decides, not its last in sort order (``tok_`` is a vendor's
    # public object id now, so a prefix that names no object).
    assert redact(f"id key_{body}-zz") == ("id [REDACTED:prefixed_token]", 1)


def test_a_generated_token_with_a_run_of_one_character_is_still_a_secret() -> None:
    # A hex body holds a run of five equal characters about once in a few thousand tokens;
    # the documentation's own placeholders stay as they are.
    token = "ghp_514777778b01bae0948fadb6a700ccbaa679"
    assert redact(f"x {token} y") == ("x [REDACTED:github_token] y", 1)
    for example in ("AKIAIOSFODNN7EXAMPLE", "ghp_" + "x" * 36):
        assert redact(f"x {example} y") == (f"x {example} y", 0)
