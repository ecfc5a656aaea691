"""What the assignment rules promise, through the public functions only: a ``Cookie``
header loses its generated values and keeps its readable ones, on its own line; a value
given whole under a key is judged by that key (up to the longest value a key is read
with); a Kubernetes-style ``name:``/``value:`` item is judged by its name."""

from __future__ import annotations

from skillopt_sleep.secrets import redact, redact_value

SID = "xY7kP2mQ9vR4tL8wZ3nB5cD1"
TOK = "Pq8zL3nV6cX1bN4mK7jH2gF5"
PASSWORD = "Xq7vR2mK9pLw4ZtB8nYc"
MARK = "[REDACTED:password_pair]"


def test_a_cookie_header_loses_its_generated_values_from_the_first_to_the_last() -> None:
    assert redact(f"Cookie: a=1; sid={SID}; b=2; tok={TOK}; c=3") == (
        f"Cookie: a=1; sid={MARK}; c=3", 1)
    # Percent-escapes and dots are read through: an express session id is generated.
    request = (f"GET / HTTP/1.1\nCookie: theme=dark; connect.sid=s%3A{SID}.Zq9kP2mQ9vR4; "
               f"lang=en; _ga=GA1.2.183475629.1700000000\nAccept: x={TOK}; y")
    assert redact(request) == (
        f"GET / HTTP/1.1\nCookie: theme=dark; connect.sid={MARK}; lang=en; "
        f"_ga=GA1.2.183475629.1700000000\nAccept: x={TOK}; y", 1)
    # A generated value cut by dots is still one.
    assert redact("Cookie: v=k9.Qz.7x.Lm.2p.Vb.8n.Rt; x=1") == (f"Cookie: v={MARK}; x=1", 1)


def test_a_cookie_that_only_escapes_a_readable_path_or_list_is_kept() -> None:
    for value in ("%2Fhome%2Fuser%2Fdocs%3Fview%3Dgrid", "%2fhome%2fuser%2fdocs%3fview%3dgrid",
                  "red%2Cgreen%2Cblue%2Cyellow%3Bblack", "red%2cgreen%2cblue%2cyellow%3bblack"):
        text = f"Cookie: path={value}; x=1"
        assert redact(text) == (text, 0), value


def test_a_value_under_a_secret_key_is_judged_up_to_the_longest_value_read() -> None:
    longest = ("Xq7vR2mK9pLw4ZtB8nYc" * 52)[:1024]
    assert redact_value("password", longest) == (MARK, 1)
    prose = "see the notes " * 80  # past the longest: the text rules read it, and keep it
    assert redact_value("password", prose) == (prose, 0)
    # A placeholder is judged whole: its first character is part of what says so.
    for placeholder in ("<Xq7vR2mK9pLw4ZtB8nYc>", "*hunter2"):
        assert redact_value("password", placeholder) == (placeholder, 0)


def test_a_name_value_item_is_judged_by_its_name() -> None:
    # A strong name: any value that is no placeholder; a weak one: only a generated value.
    assert redact("env:\n  - name: DB_PASSWORD\n    value: hunter2-prod\n") == (
        f"env:\n  - name: DB_PASSWORD\n    value: {MARK}\n", 1)
    weak = "env:\n  - name: SIGNATURE\n    value: hunter2-prod\n"
    assert redact(weak) == (weak, 0)
    assert redact(weak.replace("hunter2-prod", "Xq7vR2mK9pLw4ZtB8nYc")) == (
        f"env:\n  - name: SIGNATURE\n    value: {MARK}\n", 1)
    json_weak = '{"name": "session", "value": "hunter2-prod"}'
    assert redact(json_weak) == (json_weak, 0)


def test_a_literal_handed_to_a_decoder_or_a_bytes_prefix_loses_its_value() -> None:
    for code in ('SECRET_KEY = bytes.fromhex("a1b2c3d4e5f60718293a4b5c6d7e8f90")',
                 'password = b"hunter2-prod"', 'token := []byte("hunter2-prod")',
                 'key = Convert.FromBase64String("Xq7vR2mK9pLw4ZtB8nYcQ3==")',
                 'API_KEY = base64.b64decode(b"WHE3dlIybUs5cEx3NFp0QjhuWWM=")',
                 'password = decode("hunter2-prod")'):
        start = code.rindex('"', 0, -2) + 1
        end = code.rindex('"')
        assert redact(code) == (code[:start] + MARK + code[end:], 1), code
    # Any other call's argument is code, not the value: a prompt's text is kept.
    prompt = 'password = getpass("hunter2-prod")'
    assert redact(prompt) == (prompt, 0)


def test_a_cookie_header_ends_at_its_line_raw_or_json_escaped() -> None:
    raw = f"a\nCookie: sid={SID}\nb\nAccept: x={TOK};\n"
    assert redact(raw) == (f"a\nCookie: sid={MARK}\nb\nAccept: x={TOK};\n", 1)
    escaped = f"a\\nCookie: sid={SID}\\nb\\nAccept: x={TOK};\\n"
    assert redact(escaped) == (f"a\\nCookie: sid={MARK}\\nb\\nAccept: x={TOK};\\n", 1)
    in_json = f'{{"h": "Cookie: sid={SID}\\nAccept: x={TOK}; y"}}'
    assert redact(in_json) == (f'{{"h": "Cookie: sid={MARK}\\nAccept: x={TOK}; y"}}', 1)


def test_the_fallback_literal_after_an_environment_lookup_is_the_secret() -> None:
    for code in ('x = 1\nDB_PASSWORD = os.getenv("DB_PASSWORD", "hunter2-prod")',
                 'const password = e.DB_PASSWORD ?? "hunter2-prod"'):
        assert redact(code) == (code.replace("hunter2-prod", MARK), 1), code
    for code in ('key = bytes.fromhex(r"a1b2c3d4e5f60718293a4b5c6d7e8f90")',):
        assert redact(code) == ('key = bytes.fromhex(r"' + MARK + '")', 1)


def test_a_yaml_block_value_is_judged_by_its_first_line_and_its_key() -> None:
    block = f"password: |\n  {PASSWORD}\n"
    assert redact(block) == (f"password: |\n  {MARK}\n", 1)
    # A placeholder first line: the block is an example, raw or JSON-escaped.
    for example in (f"password: |\n  changeme\n  {PASSWORD}\n",
                    f'{{"y": "password: |\\n  changeme\\n  {PASSWORD}\\n"}}'):
        assert redact(example) == (example, 0)
    # A weak name (``signature``) takes only a generated value.
    assert redact(f"signature: |\n  {PASSWORD}\n") == (f"signature: |\n  {MARK}\n", 1)
    weak = "signature: |\n  hunter2-prod\n"
    assert redact(weak) == (weak, 0)
    # A pipe after the word ``password`` in a command is no block.
    piped = "grep -i password |\n    head-n-5-lines\n"
    assert redact(piped) == (piped, 0)


def test_a_braced_odbc_password_a_cut_quote_and_a_dsl_value_lose_their_value() -> None:
    odbc = "Driver={ODBC Driver 17};Server=db;Uid=sa;Pwd={p;a=ss!9Qz7};"
    assert redact(odbc) == (f"Driver={{ODBC Driver 17}};Server=db;Uid=sa;Pwd={{{MARK}}};", 1)
    assert redact(f"Uid=sa;Pwd={{{PASSWORD}}};") == (f"Uid=sa;Pwd={{{MARK}}};", 1)
    weak = "Signature={hunter2-prod};x=1"  # a weak name's braced value must look generated
    assert redact(weak) == (weak, 0)
    assert redact(f'password="{PASSWORD}') == (f'password="{MARK}', 1)  # a clip cut it
    assert redact('storePassword "hunter2-prod"') == (f'storePassword "{MARK}"', 1)
