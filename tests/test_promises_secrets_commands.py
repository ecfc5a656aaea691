"""What the command rules promise, through ``redact`` only: a value handed to a secret
store's command (``gh secret set``, ``fly secrets set``) is a secret whatever its key."""

from __future__ import annotations

from skillopt_sleep.secrets import redact

MARK = "[REDACTED:cli_password]"


def test_a_value_given_to_a_secret_store_is_redacted_by_either_option() -> None:
    for option in ("--body", "-b"):
        text = f"gh secret set DEPLOY_KEY {option} hunter2-prod --repo o/r"
        assert redact(text) == (f"gh secret set DEPLOY_KEY {option} {MARK} --repo o/r", 1)
    assert redact("fly secrets set DB_URL=hunter2-prod --app web") == (
        f"fly secrets set DB_URL={MARK} --app web", 1)
    # Both forms in one command: each value goes.
    both = "gh secret set X --body hunter2-prod DB_PASS=Xq7vR2mK9pLw4ZtB8nYc"
    clean, count = redact(both)
    assert count == 2
    assert "hunter2-prod" not in clean and "Xq7vR2mK9pLw4ZtB8nYc" not in clean, clean


def test_a_secret_stores_value_with_base64_padding_goes_whole() -> None:
    text = "fly secrets set APP_CONFIG=Xq7vR2mK9pLw4ZtB8nYcQ3== --app web"
    assert redact(text) == (f"fly secrets set APP_CONFIG={MARK} --app web", 1)


def test_an_echoed_value_is_a_secret_only_when_the_command_reads_one() -> None:
    value = "Xq7vR2mK9pLw4ZtB8nYc"
    readers = ("ssh-add -", "timeout 5 kinit admin", "timeout 5 ssh-add -", "npm login",
               "mytool --key-stdin", "gpg --batch --passphrase-fd 0 -c f",
               "mytool --read-secret", "mytool --api-token")
    for reader in readers:
        assert redact(f"echo {value} | {reader}") == (
            f"echo [REDACTED:cli_password] | {reader}", 1), reader
    for filter_ in ("base64 -d", "jq ."):  # a decoder or a filter reads data, not a secret
        text = f"echo {value} | {filter_}"
        assert redact(text) == (text, 0), filter_
