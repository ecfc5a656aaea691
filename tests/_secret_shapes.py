"""A generated corpus of secret shapes: each a line a user might paste, with its value.

``shapes(seed)`` gives ``(label, line, value)``: ``value`` is the part that must never be
kept anywhere (random, so a test can search every surface for it byte for byte).
"""

from __future__ import annotations

import random
import string

_UP, _LOW, _DIG = string.ascii_uppercase, string.ascii_lowercase, string.digits
_ALNUM = _UP + _LOW + _DIG


def _r(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def shapes(seed: int = 11) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    aws = _r(rng, 40, _ALNUM + "/+")
    out: list[tuple[str, str, str]] = []

    def add(label: str, template: str, value: str) -> None:
        out.append((label, template.replace("{v}", value), value))

    add("aws secret, env", "export AWS_SECRET_ACCESS_KEY={v}", aws)
    add("aws secret, ini", "aws_secret_access_key = {v}", _r(rng, 40, _ALNUM + "/+"))
    add("aws secret, json", '{"SecretAccessKey": "{v}", "Region": "eu-west-1"}',
        _r(rng, 40, _ALNUM + "/+"))
    add("aws access key id", "AccessKeyId {v}", "AKIA" + _r(rng, 16, _UP + _DIG))
    add("aws session key id", "key={v}", "ASIA" + _r(rng, 16, _UP + _DIG))
    add("db password env", "DB_PASSWORD={v} ./manage.py migrate", _r(rng, 14))
    add("stripe secret env", "STRIPE_SECRET={v}", _r(rng, 20))
    add("service token env", "MY_SERVICE_TOKEN={v} make deploy", _r(rng, 24))
    add("lower password pair", "password: {v}", _r(rng, 12))
    add("quoted api key", 'api_key = "{v}"', _r(rng, 32))
    add("yaml client secret", "  client_secret: {v}", _r(rng, 30))
    add("github oauth env", "GITHUB_CLIENT_SECRET={v}", _r(rng, 40, _LOW + _DIG))
    add("mysql -p", "mysql -u root -p{v} shop", _r(rng, 10))
    add("mysqldump -p", "mysqldump -h db -uadmin -p{v} shop > dump.sql", _r(rng, 12))
    add("sshpass", "sshpass -p {v} ssh deploy@host", _r(rng, 12))
    add("connection string", "DATABASE_URL=postgres://app:{v}@db:5432/app", _r(rng, 16))
    add("redis url", "redis://default:{v}@cache:6379/0", _r(rng, 18))
    add("mongodb srv", "mongodb+srv://admin:{v}@cluster0.mongodb.net/test", _r(rng, 15))
    add("authorization basic", "Authorization: Basic {v}", _r(rng, 28, _ALNUM + "+/"))
    add("authorization bearer", "-H 'Authorization: Bearer {v}'", _r(rng, 40))
    add("bearer in text", "use bearer {v} for the call", _r(rng, 32))
    add("anthropic key", "ANTHROPIC_API_KEY={v}", "sk-ant-api03-" + _r(rng, 40))
    add("openai key bare", "the key is {v}", "sk-proj-" + _r(rng, 40))
    add("github pat classic", "git clone https://{v}@github.com/o/r", "ghp_" + _r(rng, 36))
    add("github fine pat", "token {v}", "github_pat_" + _r(rng, 60, _ALNUM + "_"))
    add("gitlab pat", "PRIVATE-TOKEN: {v}", "glpat-" + _r(rng, 20))
    add("google api key", "key={v}", "AIza" + _r(rng, 35))
    add("google oauth", "access {v}", "ya29." + _r(rng, 60))
    add("slack bot token", "SLACK {v}", "xoxb-" + _r(rng, 12, _DIG) + "-" + _r(rng, 24))
    add("slack webhook", "curl -X POST {v}",
        "https://hooks.slack.com/services/T" + _r(rng, 8, _UP) + "/B" + _r(rng, 8, _UP)
        + "/" + _r(rng, 24))
    add("stripe live key", "stripe {v}", "sk_live_" + _r(rng, 24))
    add("huggingface token", "HF {v}", "hf_" + _r(rng, 34))
    add("npm token", "//registry.npmjs.org/:_authToken={v}", "npm_" + _r(rng, 36))
    add("pypi token", "password = {v}", "pypi-AgEIcHlwaS5vcmc" + _r(rng, 60))
    add("digitalocean token", "doctl auth init -t {v}", "dop_v1_" + _r(rng, 64, "0123456789abcdef"))
    add("shopify token", "X-Shopify-Access-Token {v}", "shpat_" + _r(rng, 32, "0123456789abcdef"))
    add("vault token", "VAULT {v}", "hvs." + _r(rng, 30))
    add("databricks token", "databricks {v}", "dapi" + _r(rng, 32, "0123456789abcdef"))
    add("telegram bot", "bot{v}/sendMessage", _r(rng, 9, _DIG) + ":AA" + _r(rng, 33))
    add("age key", "{v}", "AGE-SECRET-KEY-1" + _r(rng, 58, _UP + _DIG))
    add("azure storage", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={v};",
        _r(rng, 86, _ALNUM + "+/") + "==")
    add("jwt", "cookie: session={v}",
        "eyJ" + _r(rng, 20) + ".eyJ" + _r(rng, 30) + "." + _r(rng, 40))
    add("private key", "{v}",
        "-----BEGIN OPENSSH PRIVATE KEY-----\\n" + _r(rng, 60)
        + "\\n-----END OPENSSH PRIVATE KEY-----")
    add("passphrase", "GPG_PASSPHRASE={v}", _r(rng, 16))
    add("credentials json", '"credentials": "{v}"', _r(rng, 30))
    add("dotted token key", "spring.datasource.password={v}", _r(rng, 14))
    return out


BENIGN = [
    "max_tokens=2000",
    "export DB_PASSWORD=$DB_PASSWORD",
    "password: <your password here>",
    "Set api_key = ${OPENAI_API_KEY} in the config",
    "the token budget is 4000 tokens",
    "tokens: required",
    "Run `mysql -u root -p` and type the password when asked",
    "auth: true",
    "See https://docs.python.org/3/library/secrets.html",
    "Use the secrets module, never hard-code a password.",
    "git push origin main",
    "curl -I https://example.com",
]
