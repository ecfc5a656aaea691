"""A generated corpus of credential shapes and of benign look-alikes.

Shapes are built from classes, not listed one per vendor: each *format* (a config file
format, a command line, a URL, a key block, a token in prose) is crossed with *key names*
that name a secret and *value generators* (passwords, random tokens, hex, base64, vendor
shaped tokens), each value fresh and random so a test can search every surface for it
byte for byte. ``shapes(seed)`` gives ``(label, line, value)``; ``value`` must never be
kept anywhere. ``PLACEMENTS`` put a line where a transcript carries text: a prompt, a
tool's command line, a tool's output, a file's content, an answer.

``benign()`` gives look-alikes that must stay as written: references to a secret (its
variable's name, a template, a schema key), packages whose names hold "token" or "pass",
placeholders, code, numbers, ordinary config keys, ids and digests, a lone PEM header.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable

_UP, _LOW, _DIG = string.ascii_uppercase, string.ascii_lowercase, string.digits
_ALNUM = _UP + _LOW + _DIG
Gen = Callable[[random.Random], str]


def _r(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random) -> str:
    """A human password: a word, digits and a sign, in some order."""
    word = rng.choice(["Summer", "hunter", "Dragon", "monkey", "Winter", "qwerty", "Tr0ub"])
    return word + _r(rng, 3, _DIG) + rng.choice("!@#%^*+?") + _r(rng, 2, _ALNUM)


VALUES: dict[str, Gen] = {
    "password": _password,
    "alnum": lambda rng: _r(rng, rng.randint(16, 40)),
    "hex": lambda rng: _r(rng, rng.choice([32, 40, 64]), "0123456789abcdef"),
    "base64": lambda rng: base64.b64encode(rng.randbytes(30)).decode(),
    "urlsafe": lambda rng: _r(rng, 28, _ALNUM + "-_"),
    "short": lambda rng: _r(rng, 10, _ALNUM),
}
# Token shapes of vendors; built from prefix classes, the bodies random.
VENDOR: dict[str, Gen] = {
    "anthropic": lambda rng: "sk-ant-api03-" + _r(rng, 40, _ALNUM + "-_") + "AA",
    "openai": lambda rng: "sk-proj-" + _r(rng, 48, _ALNUM + "-_"),
    "github": lambda rng: rng.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + _r(rng, 36),
    "github_fine": lambda rng: "github_pat_" + _r(rng, 22) + "_" + _r(rng, 59),
    "gitlab": lambda rng: "glpat-" + _r(rng, 20, _ALNUM + "_-"),
    "aws_id": lambda rng: rng.choice(["AKIA", "ASIA"]) + _r(rng, 16, _UP + _DIG),
    "slack": lambda rng: "xoxb-" + _r(rng, 11, _DIG) + "-" + _r(rng, 13, _DIG) + "-"
    + _r(rng, 24, _LOW + _DIG),
    "stripe": lambda rng: rng.choice(["sk_live_", "rk_live_"]) + _r(rng, 24),
    "huggingface": lambda rng: "hf_" + _r(rng, 34),
    "npm": lambda rng: "npm_" + _r(rng, 36),
    "pypi": lambda rng: "pypi-AgEIcHlwaS5vcmc" + _r(rng, 70, _ALNUM + "-_"),
    "digitalocean": lambda rng: "dop_v1_" + _r(rng, 64, "0123456789abcdef"),
    "shopify": lambda rng: "shpat_" + _r(rng, 32, "0123456789abcdef"),
    "vault": lambda rng: "hvs." + _r(rng, 90, _ALNUM + "_-"),
    "sendgrid": lambda rng: "SG." + _r(rng, 22) + "." + _r(rng, 43),
    "jwt": lambda rng: "eyJhbGciOiJIUzI1NiJ9.eyJ" + _r(rng, 40) + "." + _r(rng, 43, _ALNUM + "-_"),
    "age": lambda rng: "AGE-SECRET-KEY-1" + _r(rng, 58, _UP + _DIG),
    "telegram": lambda rng: _r(rng, 9, _DIG) + ":AA" + _r(rng, 33, _ALNUM + "_-"),
    "twilio": lambda rng: "SK" + _r(rng, 32, "0123456789abcdef"),
    "linear": lambda rng: "lin_api_" + _r(rng, 40),
    "doppler": lambda rng: "dp.st.prd." + _r(rng, 43),
    "pulumi": lambda rng: "pul-" + _r(rng, 40, "0123456789abcdef"),
}
KEYS = [
    "DB_PASSWORD", "password", "passwd", "PGPASSWORD", "MYSQL_ROOT_PASSWORD", "api_key",
    "apiKey", "X_API_KEY", "client_secret", "clientSecret", "SECRET_KEY", "auth_token",
    "authToken", "ACCESS_TOKEN", "GITHUB_TOKEN", "SLACK_BOT_TOKEN", "aws_secret_access_key",
    "SecretAccessKey", "passphrase", "GPG_PASSPHRASE", "credentials", "refresh_token",
    "JWT_SECRET", "ENCRYPTION_KEY", "signing_key", "webhook_secret", "sentry_auth_token",
    "storage_account_key", "admin-password", "db.password", "private_key", "session_secret",
]
# A config format: a template with {k} and {v}.
FORMATS: dict[str, str] = {
    "env": "{k}={v}",
    "export": 'export {k}="{v}"',
    "yaml": "service:\n  db:\n    {k}: {v}\n",
    "yaml_quoted": "- name: web\n  {k}: '{v}'\n",
    "json": '{{"{k}": "{v}", "region": "eu-west-1"}}',
    "toml": '[server]\n{k} = "{v}"\n',
    "ini": "[default]\n{k} = {v}\n",
    "xml_element": "<config>\n  <{k}>{v}</{k}>\n</config>",
    "xml_attribute": '<datasource user="app" {k}="{v}" />',
    "appsettings": '<add key="{k}" value="{v}" />',
    "properties": "spring.datasource.url=jdbc:x\n{k}={v}\n",
    "java_option": "java -D{k}={v} -jar app.jar",
    "tfvars": '{k} = "{v}"\n',
    "hcl": 'resource "x" "y" {{\n  {k} = "{v}"\n}}',
    "k8s_env": '{{"name": "{k}", "value": "{v}"}}',
    "powershell": '$env:{k} = "{v}"',
    "compose": "environment:\n  - {k}={v}\n",
    "docker_run": "docker run -e {k}={v} app:latest",
    "connection": "Server=db;Database=app;User Id=sa;{k}={v};",
}
# Formats whose key is fixed by the format itself.
FIXED: list[tuple[str, str, str]] = [
    ("netrc", "machine api.example.com login deploy password {v}", "password"),
    ("pgpass", "db.internal:5432:app:deploy:{v}", "password"),
    ("kubeconfig_token", "users:\n- name: admin\n  user:\n    token: {v}\n", "alnum"),
    ("kubeconfig_key", "    client-key-data: {v}\n", "base64"),
    ("docker_auth", '{{"auths": {{"ghcr.io": {{"auth": "{v}"}}}}}}', "base64"),
    ("npmrc", "//registry.npmjs.org/:_authToken={v}", "alnum"),
    ("header_bearer", "Authorization: Bearer {v}", "urlsafe"),
    ("header_basic", "authorization: Basic {v}", "base64"),
    ("header_api_key", "X-API-Key: {v}", "alnum"),
    ("header_private_token", "PRIVATE-TOKEN: {v}", "urlsafe"),
    ("cookie", "Cookie: theme=dark; session={v}", "alnum"),
    ("json_escaped", '{{\\"password\\": \\"{v}\\"}}', "password"),
    ("netrc_lines", "machine api.heroku.com\n  login me@example.com\n  password {v}\n",
     "password"),
    ("my_cnf", "[client]\nuser = root\npassword = {v}\n", "password"),
    ("xml_entry", '<entry key="db.password">{v}</entry>', "password"),
    ("jdbc_params", "jdbc:mysql://db:3306/app?user=root&password={v}&useSSL=false", "password"),
    ("ado_pwd", "Data Source=db;Initial Catalog=app;User ID=sa;Pwd={v};", "password"),
    ("ftp_userinfo", "ftp://deploy:{v}@ftp.example.com/upload/", "password"),
    ("hcl_variable", 'variable "db_password" {{ default = "{v}" }}', "password"),
    ("yaml_block", "stringData:\n  secret: |\n    {v}\n", "base64"),
    ("k8s_tls_key", "data:\n  tls.key: {v}\n", "base64"),
    ("told_in_prose", "the staging db password is {v} btw", "password"),
]
COMMANDS: list[tuple[str, str, str]] = [
    ("long_option", "deploy --password {v} --host db", "password"),
    ("long_option_eq", "app --api-token={v} serve", "alnum"),
    ("client_secret_option", "az ad sp create --client-secret {v}", "urlsafe"),
    ("mysql", "mysql -h db -u root -p{v} shop", "password"),
    ("mysqldump", "mysqldump -uadmin -p{v} shop > dump.sql", "password"),
    ("sshpass", "sshpass -p {v} ssh deploy@host", "password"),
    ("redis", "redis-cli -h cache -a {v} ping", "alnum"),
    ("docker_login", "docker login -u bot -p {v} ghcr.io", "alnum"),
    ("password_stdin", "echo {v} | docker login ghcr.io -u bot --password-stdin", "alnum"),
    ("curl_user", "curl -u admin:{v} https://api.example.com/x", "password"),
    ("curl_bearer", "curl -H 'Authorization: Bearer {v}' https://api.example.com", "alnum"),
    ("curl_api_key", 'curl -H "X-API-Key: {v}" https://api.example.com', "hex"),
    ("curl_cookie", "curl -b 'sid={v}' https://app.example.com", "alnum"),
    ("vault_login", "vault login {v}", "urlsafe"),
    ("aws_configure", "aws configure set aws_secret_access_key {v}", "base64"),
    ("ngrok", "ngrok config add-authtoken {v}", "alnum"),
    ("poetry_basic", "poetry config http-basic.private deploy {v}", "password"),
    ("keytool", "keytool -importkeystore -srcstorepass {v} -deststorepass {v}", "password"),
    ("openssl", "openssl pkcs12 -in a.p12 -passin pass:{v} -nodes", "password"),
    ("ssh_keygen", "ssh-keygen -t ed25519 -N {v} -f key", "password"),
    ("smbclient", "smbclient //srv/share -U admin%{v}", "password"),
    ("sqlcmd", "sqlcmd -S db -U sa -P {v} -Q 'select 1'", "password"),
    ("kubectl_token", "kubectl --token={v} get pods", "urlsafe"),
    ("gh_secret", "gh secret set DEPLOY_KEY --body {v}", "alnum"),
    ("helm_set", "helm install db bitnami/postgresql --set auth.password={v}", "password"),
    ("terraform_var", "terraform apply -var 'db_password={v}'", "password"),
    ("psql_url", 'psql "postgresql://app:{v}@db:5432/app"', "password"),
    ("git_token_url", "git clone https://x-access-token:{v}@github.com/o/r.git", "alnum"),
    ("mongo", "mongosh --username admin -p {v} mongodb://db", "password"),
    ("sqlplus", "sqlplus scott/{v}@orcl", "password"),
    ("add_user", "rabbitmqctl add_user deploy {v}", "password"),
    ("change_password", "rabbitmqctl change_password deploy {v}", "alnum"),
    ("sudo_stdin", "echo {v} | sudo -S systemctl restart app", "password"),
    ("net_use", "net use \\\\files\\share /user:corp\\admin {v}", "password"),
    ("rdp", "xfreerdp /v:10.0.0.5 /u:admin /p:{v}", "password"),
    ("psql_keywords", "psql 'host=db user=app password={v} dbname=shop'", "password"),
    ("wget_password", "wget --user=deploy --password={v} https://files.example.com/a", "password"),
    ("here_string", "gh auth login --with-token <<< {v}", "alnum"),
    ("ssh_add", "ssh-add - <<< '{v}'", "base64"),
    ("seven_zip", "7z a -p{v} backup.7z data/", "password"),
    ("zip_password", "zip -P {v} backup.zip report.csv", "password"),
    ("ldap", "ldapsearch -x -D cn=admin,dc=corp -w {v} -b dc=corp", "password"),
    ("openssl_k", "openssl enc -aes-256-cbc -k {v} -in a.txt -out a.enc", "password"),
    ("account_key", "az storage blob upload --account-key {v} -f a.txt -c c", "base64"),
]
URLS: list[tuple[str, str, str]] = [
    ("userinfo_redis", "redis://default:{v}@cache:6379/0", "alnum"),
    ("userinfo_amqp", "amqp://guest:{v}@rabbit:5672/", "password"),
    ("userinfo_proxy", "https://user:{v}@proxy.corp/v1", "password"),
    ("token_userinfo", "https://{v}@github.com/o/r.git", "alnum"),
    ("s3_presigned", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
     "&X-Amz-Credential=AKIAEXAMPLE%2F20250101&X-Amz-Signature={v}&X-Amz-Expires=3600", "hex"),
    ("gcs_signed", "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256"
     "&X-Goog-Signature={v}", "hex"),
    ("azure_sas", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={v}", "base64"),
    ("cloudfront", "https://d1.cloudfront.net/v.mp4?Expires=1700000000&Signature={v}"
     "&Key-Pair-Id=K2JCJMDEHXQW5F", "urlsafe"),
    ("access_token_param", "https://api.example.com/me?access_token={v}", "alnum"),
    ("api_key_param", "https://maps.example.com/api?api_key={v}&q=x", "hex"),
    ("google_key_param", "https://maps.googleapis.com/maps/api/geocode/json?key={v}", "urlsafe"),
    ("slack_style_webhook_token", "https://hooks.example.com/services?token={v}", "alnum"),
    ("slack_webhook", "curl -X POST https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/{v}",
     "alnum"),
    ("discord_webhook", "https://discord.com/api/webhooks/112233445566778899/{v}", "urlsafe"),
]
PEM_LABELS = ["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY",
              "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK", "DSA PRIVATE KEY"]
PROSE = [
    "my key is {v}", "here's the token: {v}", "use {v} for the staging api",
    "the bot token {v} stopped working", "{v}", "Call the API with {v}.",
]
PLACEMENTS: dict[str, str] = {
    "prompt": "Deploy is failing, here is what I have:\n{line}\nwhat's wrong?",
    "command": "cd /srv/app && {line}",
    "output": "$ cat config\n{line}\nexit status 1",
    "file": "# generated\n{line}\n# end",
    "answer": "I updated the settings to:\n\n```\n{line}\n```\nRun it again.",
}


def shapes(seed: int = 11) -> list[tuple[str, str, str]]:
    """At least 150 ``(label, line, value)``: every format crossed with keys and values."""
    rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []
    value_kinds = list(VALUES)
    for i, (fmt, template) in enumerate(FORMATS.items()):
        for j in range(4):  # four key names and value kinds per format
            key = KEYS[(i * 4 + j * 7) % len(KEYS)]
            kind = value_kinds[(i + j) % len(value_kinds)]
            value = VALUES[kind](rng)
            out.append((f"{fmt}/{key}/{kind}", template.format(k=key, v=value), value))
    for fmt, template, kind in FIXED + COMMANDS + URLS:
        value = VALUES[kind](rng)
        out.append((f"{fmt}/{kind}", template.format(v=value), value))
    for i, (vendor, gen) in enumerate(VENDOR.items()):
        value = gen(rng)
        out.append((f"prose/{vendor}", PROSE[i % len(PROSE)].format(v=value), value))
        key = KEYS[i % len(KEYS)]
        out.append((f"env/{vendor}", f"{key}={value}", value))
    for label in PEM_LABELS:
        body = "\n".join(_r(rng, 64, _ALNUM + "+/") for _ in range(4))
        block = f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"
        out.append((f"pem/{label}", block, body.split("\n")[1]))
        escaped = block.replace("\n", "\\n")
        out.append((f"pem_escaped/{label}", escaped, body.split("\n")[2]))
    return out


def benign() -> list[str]:
    """Look-alikes that name or point at a secret without holding one."""
    refs = ["$DB_PASSWORD", "${API_TOKEN}", '${{ secrets.GITHUB_TOKEN }}', "{{ .Values.password }}",
            "%SECRET_KEY%", 'os.environ["API_TOKEN"]', "process.env.STRIPE_SECRET",
            "settings.api_key", "secrets.GITHUB_TOKEN", "vars.DEPLOY_TOKEN", "DB_PASSWORD"]
    placeholders = ["your-api-key", "<token>", "xxxx", "changeme", "***", "REPLACE_ME",
                    "<your password here>", "sk-...", "your_token_here", "********"]
    out = [f"password={r}" for r in refs[:6]] + [f"token: {r}" for r in refs[6:]]
    out += [f"api_key = {p}" for p in placeholders[:5]]
    out += [f'"password": "{p}"' for p in placeholders[5:]]
    out += [
        "password: string", "token: str", "api_key: Optional[str] = None",
        '"password": {"type": "string", "minLength": 12}', "secret: required",
        "tokenizers==0.15.2", "passport@0.7.0", "keyring>=24", "npm i jsonwebtoken@9.0.2",
        "pip install django-rest-passwordreset", "keytar@7.9.0", "python-jose[cryptography]",
        "token = get_token()", "password = getpass.getpass()", "token: data.token",
        "headers = request.headers.get('Authorization')", "api_key = settings.api_key",
        "max_tokens=4000", "token_limit: 8192", "the token budget is 4000 tokens",
        "keyboard: us", "passthrough: true", "token_type: bearer", "password_min_length = 12",
        "secret_name: prod-db", "auth: true", "auth_method = oauth2", "session_timeout: 30m",
        "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY----- goes first",
        "Run `mysql -u root -p` and type the password when asked",
        "cat token.txt | docker login ghcr.io -u bot --password-stdin",
        "curl -H 'Content-Type: application/json' https://api.example.com",
        "git clone git@github.com:org/repo.git", "ssh://git@gitlab.com/group/p.git",
        "https://github.com/org/repo/pull/42", "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b",
        "session 0199a1b2-0000-7000-8000-000000000001 resumed",
        '"integrity": "sha512-9dTjGk1yEfWG3XWdMbTpLPgTvR1xgRpGhzGzD6yR2vXkL4q7HwZ3f8bN5cK1sAe"',
        "image@sha256:4b1f7e2c9d8a6b5c3e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
        "Use the secrets module, never hard-code a password.",
        "Forgot password? Reset it from the login page.",
        '"forgot_password": "Forgot your password?"',
        "See https://docs.python.org/3/library/secrets.html", "git push origin main",
        "export DB_PASSWORD=$DB_PASSWORD", "Set api_key = ${OPENAI_API_KEY} in the config",
        "docker login ghcr.io", "vault login -method=oidc", "gh auth login --web",
        "toolu_01A2b3C4d5E6f7G8h9J0kLmN", "call_AbC123dEf456GhI789jKl0",
        "node_modules/.pnpm/@types+node@20.11.5/node_modules/@types/node/index.d.ts",
        "aws configure set region eu-west-1",
        '"jsonwebtoken": "^9.0.2"', '"next-auth": "~4.24.5"', '"@octokit/auth-token": "^4.0.0"',
        "const token = await getToken(req)", "this.accessToken = accessToken",
        "token: mfaCode,", "credentials: 'include',", "authToken: process.env.TURSO_AUTH_TOKEN!,",
        "Pass: Pinned", "Pass: Least-privilege", "dotnet test /p:RunQuarantinedTests=true",
        '"hash": "4b1f7e2c9d8a6b5c3e0f1a2b3c4d5e6f"', "RUN adduser -S appuser",
        "cosign sign -key cosign.key myregistry.com/myapp:v1.0.0", "secretKey: username",
        "anthropic.BetaMemoryTool20250818Param", 'API_KEY = "sk-ant-api03-..."',
        'GITHUB_PAT=github_pat_11AAAAAA', "aws_secret_access_key = yyyyyyyyyyyyyyyyyyyy",
        "see [memory](references/guide.md#cross-session-memory)", "Secret detected!",
        "rabbitmqctl change_password deploy", "sqlplus / as sysdba", "sudo -u deploy ls",
        "https://docs.github.com/en/webhooks/using-webhooks/creating-webhooks",
        "passwordless login via magic link", "pip install keyrings.alt==5.0",
        "tokenizer = AutoTokenizer.from_pretrained('gpt2')", "password: !vault |",
        "secret_arn = aws_secretsmanager_secret.db.arn", "key: value",
        "token_endpoint: https://auth.example.com/token", "password_reset_timeout: 3600",
        "--password-file /run/secrets/db", "sshpass -f passfile ssh host",
        "curl -H 'Authorization: Bearer $TOKEN' https://x", 'curl -u "$USER:$PASS" https://x',
        "export GITHUB_TOKEN=$(gh auth token)", "token: ${{ github.token }}",
        "git config --global credential.helper store", "signature: def handler(event, context)",
        '  token: "{{ vault_token }}"', "password: \"{{ lookup('env', 'DB_PASS') }}\"",
        "description: |\n  The token is used for auth.\n", "const password = req.body.password;",
        "apiKey: string | undefined;", "password: hashedPassword,", '"password": "<redacted>"',
        "Token: ghp_****************************", "The key insight is that the cache is cold.",
    ]
    return out


BENIGN = benign()
