"""The secrets engine by its seams: what a key's name says, what a value looks like, PEM
blocks bounded by their footer, JSON escaped inside JSON, idempotence, never raising."""

from __future__ import annotations

import json
import random

import pytest

from skillopt_sleep.secrets import find_secrets, may_hold_secrets, redact, redact_tree
from skillopt_sleep.secrets.values import Name, looks_random, name_of

from ._secret_shapes import BENIGN, PLACEMENTS, shapes

SHAPES = shapes(seed=29)


@pytest.mark.parametrize(("key", "name"), [
    ("DB_PASSWORD", Name.STRONG), ("client-key-data", Name.STRONG),
    ("X-Amz-Security-Token", Name.STRONG), ("javax.net.ssl.keyStorePassword", Name.STRONG),
    ("GITHUB_TOKEN_PROD", Name.STRONG), ("SecretAccessKey", Name.STRONG),
    ("identitytoken", Name.STRONG), ("_authToken", Name.STRONG), ("AccountKey", Name.STRONG),
    ("X-Amz-Signature", Name.WEAK), ("sig", Name.WEAK), ("key", Name.WEAK),
    ("max_tokens", Name.NONE), ("token_limit", Name.NONE), ("password_policy", Name.NONE),
    ("keyboard", Name.NONE), ("tokenizer", Name.NONE), ("passthrough", Name.NONE),
    ("secret_name", Name.NONE), ("token_type", Name.NONE), ("access_key_id", Name.NONE),
])
def test_a_key_names_a_secret_by_its_last_word(key: str, name: Name) -> None:
    assert name_of(key) is name


@pytest.mark.parametrize(("value", "random_"), [
    ("Xq7vR2mK9pLw4ZtB8nYc", True), ("0123456789abcdef0123456789abcdef", True),
    ("agent-workflows-monorepo-v2", False), ("DefaultAzureCredential2", False),
    ("e9bd5ce8-d37d-49a1-868c-8281d0d0a32b", False), ("settings.api_key", False),
    ("hunter2", False),
])
def test_a_value_looks_generated_by_length_mix_and_entropy(value: str, random_: bool) -> None:
    assert looks_random(value) is random_


BODY = "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nZ1BjP5CE/Wm/Rr500P\n"


def test_a_pem_block_is_erased_up_to_its_footer_and_no_further() -> None:
    text = (f"before\n-----BEGIN RSA PRIVATE KEY-----\n{BODY}-----END RSA PRIVATE KEY-----\n"
            "after the key, which stays")
    clean, count = redact(text)
    assert count == 1 and "MIIE" not in clean and "Wm/Rr500P" not in clean
    assert clean.startswith("before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED:private_key]")
    assert clean.endswith("-----END RSA PRIVATE KEY-----\nafter the key, which stays")


@pytest.mark.parametrize("text", [
    "-----BEGIN RSA PRIVATE KEY-----",
    "The file starts with -----BEGIN OPENSSH PRIVATE KEY----- and then the key.\n" + "z" * 50,
    "-----BEGIN PRIVATE KEY-----\nthen a sentence about keys.\n-----END PRIVATE KEY-----",
])
def test_a_pem_header_without_a_key_after_it_erases_nothing(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_key_whose_footer_was_cut_off_loses_its_material_not_what_follows() -> None:
    text = f"-----BEGIN EC PRIVATE KEY-----\n{BODY}next: the output went on"
    clean, _ = redact(text)
    assert "MIIE" not in clean and "Wm/Rr500P" not in clean
    assert clean.endswith("next: the output went on")


def test_pem_blocks_escaped_in_json_and_two_in_a_row() -> None:
    block = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{BODY}-----END OPENSSH PRIVATE KEY-----"
    text = json.dumps({"content": block + "\n" + block.replace("MIIE", "AAAA")})
    clean, count = redact(text)
    assert count == 2 and "MIIE" not in clean and "AAAAowIB" not in clean
    json.loads(clean)


def test_unicode_json_escaped_inside_json_is_redacted_and_stays_json() -> None:
    secret = "pässwörd-Ω-" + "7Kq2"
    inner = json.dumps({"password": secret, "user": "jörg"})  # \\u00e4 escapes
    outer = json.dumps({"tool_result": inner})
    twice = json.dumps(outer)
    for text in (inner, outer, twice):
        clean, count = redact(text)
        assert count == 1, text
        flat = json.dumps(_decoded(clean), ensure_ascii=False)
        assert "7Kq2" not in flat and "jörg" in flat and "[REDACTED:" in flat


def _decoded(node: object) -> object:
    """``node`` with every string that holds JSON decoded, all the way down."""
    if isinstance(node, str):
        try:
            return _decoded(json.loads(node))
        except ValueError:
            return node
    if isinstance(node, dict):
        return {k: _decoded(v) for k, v in node.items()}
    return node


def _document(rng: random.Random) -> str:
    """Shapes, benign lines and prose, in random placements, maybe JSON-encoded."""
    parts = []
    for _ in range(rng.randint(1, 6)):
        roll = rng.random()
        if roll < 0.5:
            line = rng.choice(SHAPES)[1]
        elif roll < 0.8:
            line = rng.choice(BENIGN)
        else:
            line = "ran the tests; 3 failed in tests/test_api.py::test_login"
        parts.append(rng.choice(list(PLACEMENTS.values())).format(line=line))
    text = rng.choice(["\n", " ", "\n\n"]).join(parts)
    for _ in range(rng.choice([0, 0, 1, 2])):
        text = json.dumps(text)
    return text


def test_redaction_is_idempotent() -> None:
    """Redacting redacted text changes nothing (a resumed session is redacted again)."""
    rng = random.Random(29)
    for _ in range(400):
        text = _document(rng)
        once, _ = redact(text)
        assert redact(once) == (once, 0), once[:300]


def test_redaction_never_raises_and_may_hold_secrets_is_never_wrong() -> None:
    rng = random.Random(7)
    alphabet = "abcXYZ019 -_=:/@.'\"\\\n\t{}[]()$%`|;&<>*…ä\u200b"
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120)))
        if rng.random() < 0.5:
            text = text + " " + rng.choice(SHAPES)[1]
        clean, count = redact(text)
        if not may_hold_secrets([text]):
            assert (clean, count) == (text, 0)
        assert find_secrets(text) == [] or count > 0


def test_redact_tree_redacts_every_string_of_a_json_like_value() -> None:
    _, line, value = SHAPES[0]
    tree = {"a": [line, {"b": line}], "n": 3, "k": None}
    clean = redact_tree(tree)
    assert value not in json.dumps(clean) and clean["n"] == 3 and clean["k"] is None


@pytest.mark.parametrize("text", [
    'token = "Qm83kdLx02Pz.atlasv1.Wn4bV7cX1zL9kJ3hG5fD8sA2pO6iU0yT4rE7wQ1mN5bV3cX9"',
    'credentials "registry.example.org" {\n'
    '  token = "Rt5Yh8Jk2Lm.v1.Zx9Cv3Bn7Mq1Wp4Es6Dr0Tf8Gy2Hu5Ji"\n}',
    "API_TOKEN=eyJ0eXAiOiJKV1QifQ.eyJpZCI6OTg3NjU0fQ.Kp9Lm2Nq4Rs6Tu8Vw0Xy3Za5Bc7De9Fg",
    "secret: Tq8Wm3Zk.Vb6Nx1Lp4Hs9Jd2Fg7Ra5Ec0Yu3Io8",
])
def test_a_dotted_token_whose_parts_are_generated_is_a_value_not_an_attribute_path(
        text: str) -> None:
    # An attribute path's parts are names; one generated part makes the whole a value.
    redacted, count = redact(text)
    assert count >= 1
    assert not any(len(part) >= 16 and looks_random(part)
                   for part in redacted.replace('"', " ").replace(".", " ").split())


@pytest.mark.parametrize("text", [
    "token = settings.GITHUB_TOKEN", "api_key = self.config.api_key",
    "password = request.form.password", "secret: app.config.secretStorageName",
    "token = response.json.access_token",
])
def test_an_attribute_path_after_a_secret_key_is_a_reference_and_stays(text: str) -> None:
    assert redact(text) == (text, 0)


_HEADER_VALUE = "Vq7Lm2Xc9Rt4Bn8Kd3Wz6Hp1"


@pytest.mark.parametrize("text", [
    f"export OTEL_EXPORTER_OTLP_HEADERS=x-tenant=acme,x-ingest-team={_HEADER_VALUE}",
    f'{{"env": {{"OTEL_EXPORTER_OTLP_HEADERS": "signal-ingestion={_HEADER_VALUE}"}}}}',
    f'curl -sS -H "X-Workspace-Team: {_HEADER_VALUE}" https://api.example.net/v1/events',
    f"curl --header 'x-org-secretless: {_HEADER_VALUE}' https://api.example.net",
    f"requests.post(url, headers={{'Accept': 'json', 'X-Team': '{_HEADER_VALUE}'}})",
    f"httpx.get(url, headers=dict(x_team='{_HEADER_VALUE}'))",
    f'await fetch(url, {{ headers: {{ "x-team": "{_HEADER_VALUE}" }} }})',
    f"exporters:\n  otlp:\n    headers:\n      accept: json\n      x-team: {_HEADER_VALUE}\n",
])
def test_a_generated_request_header_value_is_a_secret_whatever_the_header_is_called(
        text: str) -> None:
    # Headers are where credentials travel; a header's name often says nothing of it.
    redacted, count = redact(text)
    assert count == 1 and _HEADER_VALUE not in redacted and "REDACTED" in redacted


@pytest.mark.parametrize("text", [
    f"curl -H 'X-Request-Id: {_HEADER_VALUE}' https://api.example.net",
    f'fetch(url, {{ headers: {{ "traceparent": "{_HEADER_VALUE}" }} }})',
    f"HTTP/2 200\nx-edge-location: {_HEADER_VALUE}\n",  # a response's header lines: its marks
    f'headers = {{"Accept": "json"}}; body = {{"item": "{_HEADER_VALUE}"}}',
    'headers = {"User-Agent": "claude-cli/2.1.330 (external, cli)"}',
])
def test_an_id_header_a_response_dump_and_a_value_outside_headers_stay(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize(("text", "code"), [
    ("my recovery password is 8f3k-2d9k-m2ka-9dk2, keep it", "8f3k-2d9k-m2ka-9dk2"),
    ("Passwort lautet: 4F2K-9XQ3-77ZB-P0LM", "4F2K-9XQ3-77ZB-P0LM"),
    ("the vpn passcode is 7hq2 k9d4 3mzp", "7hq2 k9d4 3mzp"),
    ("api key: R4T7-22KQ-X9WM-5BZA-Q1LE", "R4T7-22KQ-X9WM-5BZA-Q1LE"),
])
def test_a_code_said_in_groups_after_a_secret_noun_is_redacted_whole(text: str,
                                                                      code: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and redacted == text.replace(code, "[REDACTED:password_pair]")


@pytest.mark.parametrize("text", [
    "the password is sent with each call",
    "the token is T1059 and T1078",  # ids in prose, not one grouped code
    "password policy: 1200 2400 3600 seconds",
    "the secret is kept in vault",
])
def test_words_numbers_and_ids_after_a_secret_noun_are_not_a_grouped_code(text: str) -> None:
    assert redact(text) == (text, 0)
