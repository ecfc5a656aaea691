# ruff: noqa: E501
"""A blind corpus of credential shapes and benign look-alikes for the redactor.

Written without reading the redactor, its tests or its corpora. Each secret case is text as
it appears in one placement of an agent session (a user prompt, a tool command, tool output,
a file read or written, an assistant answer); the substrings marked ``⟦...⟧`` must be gone
after redaction. Random parts are written ``⟨kN⟩`` (N characters of alphabet ``k``) and
drawn from a generator seeded with the template, so values are fixed, distinct and shaped
like the real thing without being anyone's real key.

Benign cases must come back unchanged. A literal placeholder (``<your-token>``, ``xxxx``,
``${DB_PASSWORD}``, a masked ``****`` value) is not a secret: it carries nothing an
attacker can use, and rewriting it loses the instruction the text gives. Defaults that are
real passwords in someone's dev stack (``changeme``, ``postgres``) are in neither list,
because reasonable policies differ on them.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass

PLACEMENTS = ("prompt", "command", "output", "file", "answer")

_ALPHA = {
    "r": string.ascii_letters + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "u": string.ascii_uppercase + string.digits,
    "l": string.ascii_lowercase + string.digits,
    "a": string.ascii_lowercase,
    "U": string.ascii_uppercase,
    "d": string.digits,
    "b": string.ascii_letters + string.digits + "+/",
    "x": string.ascii_letters + string.digits + "-_",
    "B": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "p": string.ascii_letters + string.digits + "!#%&*+-=?@^_",
}
_GEN = re.compile(r"⟨([a-zA-Z])(\d+)⟩")
_MARK = re.compile(r"⟦(.*?)⟧", re.S)


@dataclass(frozen=True)
class SecretCase:
    cls: str
    placement: str
    text: str
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class BenignCase:
    label: str
    placement: str
    text: str


def _expand(template: str) -> str:
    rng = random.Random(template)
    return _GEN.sub(
        lambda m: "".join(rng.choice(_ALPHA[m[1]]) for _ in range(int(m[2]))), template
    )


def _case(cls: str, placement: str, template: str) -> SecretCase:
    assert placement in PLACEMENTS, placement
    text = _expand(template)
    secrets = tuple(_MARK.findall(text))
    assert secrets, template
    return SecretCase(cls, placement, _MARK.sub(lambda m: m[1], text), secrets)


def _b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


def _b64url(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _jwt(payload: dict[str, object], seed: str) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")))
    body = _b64url(json.dumps(payload, separators=(",", ":")))
    rng = random.Random(seed)
    sig = "".join(rng.choice(_ALPHA["x"]) for _ in range(43))
    return f"{header}.{body}.{sig}"


def _pem_body(seed: str, lines: int, prefix: str = "") -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        line = "".join(rng.choice(_ALPHA["b"]) for _ in range(64))
        out.append(prefix + line[len(prefix):] if i == 0 else line)
    return out


def _pem(kind: str, seed: str, lines: int = 6, prefix: str = "") -> tuple[str, tuple[str, ...]]:
    body = _pem_body(seed, lines, prefix)
    text = f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----"
    return text, (body[1], body[-1])


_JWT_SUPA = _jwt({"iss": "supabase", "ref": "qzkfmwbxhtrplvnyaecs", "role": "service_role", "iat": 1717000000, "exp": 2032576000}, "supa")
_JWT_SA = _jwt({"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", "sub": "system:serviceaccount:ci:deployer"}, "k8s")
_JWT_API = _jwt({"sub": "u_81723", "scope": "orders:write", "exp": 1893456000}, "api")
_JWT_COOKIE = _jwt({"uid": 4412, "adm": True, "iat": 1764300000}, "cookie")

_CASES_VENDOR = [
    _case("cloud_aws", "file", "[default]\naws_access_key_id = ⟦AKIA⟨B16⟩⟧\naws_secret_access_key = ⟦⟨b40⟩⟧\nregion = eu-west-1\n"),
    _case("cloud_aws", "command", "aws configure set aws_secret_access_key ⟦⟨b40⟩⟧ --profile billing"),
    _case("cloud_aws", "output", '{\n    "Credentials": {\n        "AccessKeyId": "⟦ASIA⟨B16⟩⟧",\n        "SecretAccessKey": "⟦⟨b40⟩⟧",\n        "SessionToken": "⟦IQoJb3JpZ2luX2VjE⟨b180⟩⟧",\n        "Expiration": "2026-11-28T10:12:01+00:00"\n    }\n}'),
    _case("cloud_aws", "command", "AWS_ACCESS_KEY_ID=⟦AKIA⟨B16⟩⟧ AWS_SECRET_ACCESS_KEY=⟦⟨b40⟩⟧ terraform plan -out tf.plan"),
    _case("cloud_gcp", "file", '{\n  "type": "service_account",\n  "project_id": "orbit-prod-3341",\n  "private_key_id": "⟦⟨h40⟩⟧",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n⟦MIIEvQIBADANBgkqhkiG9w0BAQEFAASC⟨b32⟩⟧\\n⟦⟨b64⟩⟧\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "deployer@orbit-prod-3341.iam.gserviceaccount.com"\n}'),
    _case("cloud_gcp", "output", "$ gcloud auth print-access-token\n⟦ya29.a0AfB_⟨x150⟩⟧"),
    _case("cloud_google", "file", "GOOGLE_MAPS_API_KEY=⟦AIza⟨x35⟩⟧\n"),
    _case("cloud_google", "answer", "I wired the Gemini client: `genai.configure(api_key=\"⟦AIza⟨x35⟩⟧\")` in `llm.py` — move it to an env var before committing."),
    _case("cloud_azure", "file", '"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=orbitlogs;AccountKey=⟦⟨b86⟩==⟧;EndpointSuffix=core.windows.net"'),
    _case("cloud_azure", "output", '{\n  "appId": "3f1c2a9e-8b7d-4c55-9e21-0a6b7c8d9e10",\n  "displayName": "gh-deployer",\n  "password": "⟦⟨r3⟩8Q~⟨x34⟩⟧",\n  "tenant": "72f988bf-86f1-41af-91ab-2d7cd011db47"\n}'),
    _case("cloud_azure", "command", "az login --service-principal -u 3f1c2a9e-8b7d-4c55-9e21-0a6b7c8d9e10 -p ⟦⟨r3⟩8Q~⟨x34⟩⟧ --tenant contoso.onmicrosoft.com"),
    _case("cloud_alibaba", "file", "access_key_id: ⟦LTAI⟨r20⟩⟧\naccess_key_secret: ⟦⟨r30⟩⟧\n"),
    _case("cloud_tencent", "file", "TENCENTCLOUD_SECRET_ID=⟦AKID⟨r32⟩⟧\nTENCENTCLOUD_SECRET_KEY=⟦⟨r32⟩⟧\n"),
    _case("cloud_do", "command", "doctl auth init --access-token ⟦dop_v1_⟨h64⟩⟧"),
    _case("cloud_linode", "file", 'provider "linode" {\n  token = "⟦⟨h64⟩⟧"\n}\n'),
    _case("cloud_hetzner", "command", "HCLOUD_TOKEN=⟦⟨r64⟩⟧ hcloud server list"),
    _case("cloud_cloudflare", "file", "CLOUDFLARE_API_TOKEN=⟦⟨x40⟩⟧\nCLOUDFLARE_ACCOUNT_ID=9a7806061c88ada191ed06f989cc3dac\n"),
    _case("cloud_cloudflare", "command", 'curl -X GET "https://api.cloudflare.com/client/v4/zones" -H "X-Auth-Email: ops@orbit.dev" -H "X-Auth-Key: ⟦⟨h37⟩⟧"'),
    _case("cloud_ibm", "file", 'ibmcloud_api_key = "⟦⟨x44⟩⟧"\n'),
    _case("scm_github", "prompt", "here's my token ⟦ghp_⟨r36⟩⟧ can you push the branch for me"),
    _case("scm_github", "file", "//npm.pkg.github.com/:_authToken=⟦ghp_⟨r36⟩⟧\n@orbit:registry=https://npm.pkg.github.com\n"),
    _case("scm_github", "command", 'GH_TOKEN=⟦github_pat_11A⟨u21⟩_⟨r59⟩⟧ gh release create v2.4.0 --generate-notes'),
    _case("scm_github", "output", "remote: Enumerating objects: 5, done.\norigin\thttps://x-access-token:⟦ghs_⟨r36⟩⟧@github.com/orbit/api.git (fetch)"),
    _case("scm_github", "file", "https://oauth2:⟦gho_⟨r36⟩⟧@github.com\n"),
    _case("scm_gitlab", "command", 'curl --header "PRIVATE-TOKEN: ⟦glpat-⟨x20⟩⟧" "https://gitlab.com/api/v4/projects/4412/pipelines"'),
    _case("scm_gitlab", "file", "[[runners]]\n  name = \"docker-runner\"\n  url = \"https://gitlab.example.org\"\n  token = \"⟦glrt-⟨x20⟩⟧\"\n  executor = \"docker\"\n"),
    _case("scm_bitbucket", "file", "BITBUCKET_APP_PASSWORD=⟦ATBB⟨r32⟩⟨H8⟩⟧\n"),
    _case("scm_atlassian", "prompt", "use this jira api token ⟦ATATT3xFfGF0⟨x180⟩=⟨H8⟩⟧ to file the tickets"),
    _case("chat_slack", "file", "SLACK_BOT_TOKEN=⟦xoxb-⟨d12⟩-⟨d13⟩-⟨r24⟩⟧\nSLACK_APP_TOKEN=⟦xapp-1-A⟨u10⟩-⟨d13⟩-⟨h64⟩⟧\n"),
    _case("chat_slack", "command", "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' ⟦https://hooks.slack.com/services/T⟨u8⟩/B⟨u10⟩/⟨r24⟩⟧"),
    _case("chat_slack", "output", "user token: ⟦xoxp-⟨d12⟩-⟨d12⟩-⟨d13⟩-⟨h32⟩⟧"),
    _case("chat_discord", "file", "DISCORD_TOKEN=⟦MT⟨r24⟩.G⟨x5⟩.⟨x38⟩⟧\n"),
    _case("chat_discord", "answer", "Post to the webhook `⟦https://discord.com/api/webhooks/⟨d19⟩/⟨x68⟩⟧` from the release job."),
    _case("chat_telegram", "command", 'curl "https://api.telegram.org/bot⟦⟨d10⟩:AA⟨x33⟩⟧/sendMessage?chat_id=-1001234567890&text=ok"'),
    _case("chat_teams", "file", "TEAMS_WEBHOOK=⟦https://orbitdev.webhook.office.com/webhookb2/⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/⟨h32⟩/⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩⟧\n"),
    _case("chat_mattermost", "prompt", "the hook is ⟦https://chat.orbit.dev/hooks/⟨l26⟩⟧ — send build failures there"),
    _case("chat_gchat", "file", "webhook_url: ⟦https://chat.googleapis.com/v1/spaces/AAAA⟨x7⟩/messages?key=AIza⟨x35⟩&token=⟨x43⟩%3D⟧\n"),
    _case("pay_stripe", "file", "STRIPE_SECRET_KEY=⟦sk_live_51⟨r22⟩⟨r72⟩⟧\nSTRIPE_WEBHOOK_SECRET=⟦whsec_⟨r32⟩⟧\n"),
    _case("pay_stripe", "file", "const stripe = require('stripe')('⟦rk_live_51⟨r22⟩⟨r72⟩⟧');\n"),
    _case("pay_stripe", "command", "stripe listen --api-key ⟦sk_test_51⟨r22⟩⟨r72⟩⟧ --forward-to localhost:3000/webhooks"),
    _case("pay_square", "file", "SQUARE_ACCESS_TOKEN=⟦EAAA⟨x60⟩⟧\n"),
    _case("pay_paypal", "file", "paypal:\n  client_id: AYSq3RDGsmBLJE-otTkBtM-jBRd1TCQwFf9RGfwddNXWz0uFU9ztymylOhRS\n  client_secret: ⟦E⟨x79⟩⟧\n"),
    _case("pay_braintree", "file", "BRAINTREE_ACCESS_TOKEN=⟦access_token$production$⟨l16⟩$⟨h32⟩⟧\n"),
    _case("pay_razorpay", "file", "RAZORPAY_KEY_ID=rzp_live_⟨r14⟩\nRAZORPAY_KEY_SECRET=⟦⟨r24⟩⟧\n"),
    _case("pay_adyen", "file", "adyen.apiKey=⟦AQE⟨x5⟩mfxK⟨x120⟩⟧\n"),
    _case("pay_plaid", "command", 'curl -X POST https://production.plaid.com/link/token/create -H "Content-Type: application/json" -d \'{"client_id":"5e8f1c2a9b3d4e0012345678","secret":"⟦⟨h30⟩⟧","user":{"client_user_id":"u1"}}\''),
    _case("pay_shopify", "file", "SHOPIFY_ADMIN_TOKEN=⟦shpat_⟨h32⟩⟧\nSHOPIFY_API_SECRET=⟦shpss_⟨h32⟩⟧\n"),
    _case("pay_coinbase", "file", 'COINBASE_API_SECRET="⟦-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEI⟨b40⟩\\n⟨b64⟩⟧\\n-----END EC PRIVATE KEY-----\\n"\n'),
    _case("mail_sendgrid", "file", "SENDGRID_API_KEY=⟦SG.⟨x22⟩.⟨x43⟩⟧\n"),
    _case("mail_mailgun", "command", "curl -s --user 'api:⟦key-⟨h32⟩⟧' https://api.mailgun.net/v3/mg.orbit.dev/messages -F to=a@b.c"),
    _case("mail_mailchimp", "file", "MAILCHIMP_API_KEY=⟦⟨h32⟩-us21⟧\n"),
    _case("mail_postmark", "file", "POSTMARK_SERVER_TOKEN=⟦⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩⟧\n"),
    _case("mail_resend", "answer", "Set `RESEND_API_KEY=⟦re_⟨r8⟩_⟨r24⟩⟧` in Vercel and redeploy."),
    _case("mail_twilio", "file", "TWILIO_ACCOUNT_SID=AC⟨h32⟩\nTWILIO_AUTH_TOKEN=⟦⟨h32⟩⟧\nTWILIO_API_KEY=⟦SK⟨h32⟩⟧\n"),
    _case("mail_gmail_app", "prompt", "smtp is smtp.gmail.com:587 user releases@orbit.dev app password ⟦⟨a4⟩ ⟨a4⟩ ⟨a4⟩ ⟨a4⟩⟧"),
    _case("ai_openai", "file", "OPENAI_API_KEY=⟦sk-proj-⟨x74⟩T3BlbkFJ⟨x74⟩⟧\n"),
    _case("ai_openai", "prompt", "why does this fail? openai.AuthenticationError with key ⟦sk-⟨r20⟩T3BlbkFJ⟨r20⟩⟧"),
    _case("ai_anthropic", "command", "ANTHROPIC_API_KEY=⟦sk-ant-api03-⟨x93⟩AA⟧ claude -p 'summarise CHANGELOG.md'"),
    _case("ai_anthropic", "file", "anthropic_admin_key = \"⟦sk-ant-admin01-⟨x93⟩AA⟧\"\n"),
    _case("ai_hf", "command", "huggingface-cli login --token ⟦hf_⟨r34⟩⟧"),
    _case("ai_replicate", "file", "REPLICATE_API_TOKEN=⟦r8_⟨r37⟩⟧\n"),
    _case("ai_groq", "answer", "Your `.env` now has `GROQ_API_KEY=⟦gsk_⟨r52⟩⟧`; restart the dev server."),
    _case("ai_cohere", "file", "cohere:\n  api_key: ⟦⟨r40⟩⟧\n"),
    _case("ai_mistral", "command", 'curl https://api.mistral.ai/v1/models -H "Authorization: Bearer ⟦⟨r32⟩⟧"'),
    _case("ai_perplexity", "file", "PPLX_API_KEY=⟦pplx-⟨r48⟩⟧\n"),
    _case("ai_pinecone", "file", "PINECONE_API_KEY=⟦pcsk_⟨r5⟩_⟨r60⟩⟧\n"),
    _case("ai_wandb", "command", "wandb login ⟦⟨h40⟩⟧"),
    _case("ai_langsmith", "file", "LANGCHAIN_API_KEY=⟦lsv2_pt_⟨h32⟩_⟨h10⟩⟧\n"),
    _case("ai_deepseek", "prompt", "switch the provider to deepseek, key is ⟦sk-⟨h32⟩⟧"),
    _case("reg_npm", "file", "//registry.npmjs.org/:_authToken=⟦npm_⟨r36⟩⟧\n"),
    _case("reg_npm", "command", "npm config set //registry.npmjs.org/:_authToken ⟦npm_⟨r36⟩⟧"),
    _case("reg_pypi", "file", "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = ⟦pypi-AgEIcHlwaS5vcmcCJ⟨x120⟩⟧\n"),
    _case("reg_pypi", "command", "twine upload -u __token__ -p ⟦pypi-AgEIcHlwaS5vcmcCJ⟨x150⟩⟧ dist/*"),
    _case("reg_rubygems", "file", "---\n:rubygems_api_key: ⟦rubygems_⟨h48⟩⟧\n"),
    _case("reg_nuget", "command", "dotnet nuget push bin/Release/Orbit.Core.2.4.0.nupkg --api-key ⟦oy2⟨l43⟩⟧ --source https://api.nuget.org/v3/index.json"),
    _case("reg_crates", "file", '[registry]\ntoken = "⟦cio⟨r32⟩⟧"\n'),
    _case("reg_dockerhub", "command", "echo ⟦dckr_pat_⟨x27⟩⟧ | docker login -u orbitci --password-stdin"),
    _case("reg_jfrog", "file", "artifactory_api_key=⟦AKCp8⟨r68⟩⟧\n"),
    _case("reg_packagist", "file", '{\n  "http-basic": {\n    "repo.packagist.com": {\n      "username": "token",\n      "password": "⟦⟨h40⟩⟧"\n    }\n  }\n}'),
    _case("ci_circleci", "command", 'curl -H "Circle-Token: ⟦CCIPAT_⟨r22⟩_⟨h40⟩⟧" https://circleci.com/api/v2/me'),
    _case("ci_buildkite", "file", "BUILDKITE_API_TOKEN=⟦bkua_⟨h40⟩⟧\n"),
    _case("ci_vercel", "command", "vercel deploy --prod --token ⟦⟨r24⟩⟧"),
    _case("ci_netlify", "file", "NETLIFY_AUTH_TOKEN=⟦nfp_⟨r40⟩⟧\n"),
    _case("ci_heroku", "command", "heroku config:set DATABASE_URL=⟦postgres://u⟨l13⟩:p⟨h63⟩⟧@ec2-34-200-1-2.compute-1.amazonaws.com:5432/d8s9 -a orbit-api"),
    _case("ci_heroku", "file", "HEROKU_API_KEY=⟦HRKU-AA⟨x58⟩⟧\n"),
    _case("ci_fly", "output", "FLY_API_TOKEN=⟦FlyV1 fm2_lJPECAAAAAAAA⟨b150⟩⟧"),
    _case("ci_render", "file", "RENDER_API_KEY=⟦rnd_⟨r32⟩⟧\n"),
    _case("ci_doppler", "command", "doppler run --token ⟦dp.st.prd.⟨r43⟩⟧ -- npm start"),
    _case("ci_vault", "output", "Key                  Value\n---                  -----\ntoken                ⟦hvs.CAESI⟨x90⟩⟧\ntoken_accessor       kV3bQ2xW9zYtR8pL5mN1oA4c\ntoken_duration       768h"),
    _case("ci_vault", "output", "Unseal Key 1: ⟦⟨b44⟩⟧\nUnseal Key 2: ⟦⟨b44⟩⟧\n\nInitial Root Token: ⟦hvs.⟨r24⟩⟧"),
    _case("ci_pulumi", "file", "PULUMI_ACCESS_TOKEN=⟦pul-⟨h40⟩⟧\n"),
    _case("ci_tfc", "file", 'credentials "app.terraform.io" {\n  token = "⟦⟨r14⟩.atlasv1.⟨r67⟩⟧"\n}\n'),
    _case("ci_tailscale", "command", "tailscale up --authkey ⟦tskey-auth-k⟨r10⟩CNTRL-⟨r33⟩⟧"),
    _case("ci_ngrok", "command", "ngrok config add-authtoken ⟦2⟨r26⟩_⟨r21⟩⟧"),
    _case("obs_datadog", "file", "DD_API_KEY=⟦⟨h32⟩⟧\nDD_APP_KEY=⟦⟨h40⟩⟧\nDD_SITE=datadoghq.eu\n"),
    _case("obs_datadog", "command", "docker run -d --name dd-agent -e DD_API_KEY=⟦⟨h32⟩⟧ -e DD_SITE=datadoghq.com gcr.io/datadoghq/agent:7"),
    _case("obs_newrelic", "file", "newrelic.license_key = ⟦eu01xx⟨h34⟩NRAL⟧\nNEW_RELIC_API_KEY=⟦NRAK-⟨u27⟩⟧\n"),
    _case("obs_sentry", "file", "SENTRY_DSN=https://⟦⟨h32⟩⟧@o4504⟨d12⟩.ingest.sentry.io/4505⟨d12⟩\nSENTRY_AUTH_TOKEN=⟦sntrys_eyJ⟨x120⟩⟧\n"),
    _case("obs_grafana", "file", "GRAFANA_SERVICE_ACCOUNT_TOKEN=⟦glsa_⟨r32⟩_⟨h8⟩⟧\n"),
    _case("obs_grafana", "answer", "Use `⟦glc_eyJ⟨x100⟩⟧` as the password for the Loki push endpoint."),
    _case("obs_honeycomb", "file", "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=⟦⟨r22⟩⟧\n"),
    _case("obs_pagerduty", "command", "curl -H 'Authorization: Token token=⟦u+⟨x18⟩⟧' https://api.pagerduty.com/incidents"),
    _case("obs_rollbar", "file", "rollbar:\n  access_token: ⟦⟨h32⟩⟧\n  environment: production\n"),
    _case("obs_splunk", "command", "curl -k https://splunk.orbit.dev:8088/services/collector -H 'Authorization: Splunk ⟦⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩⟧' -d '{\"event\":\"hi\"}'"),
    _case("obs_elastic", "file", "elasticsearch:\n  hosts: [\"https://es.orbit.dev:9243\"]\n  api_key: \"⟦⟨b56⟩==⟧\"\n"),
    _case("dbaas_planetscale", "file", "DATABASE_URL=mysql://⟨l12⟩:⟦pscale_pw_⟨x43⟩⟧@aws.connect.psdb.cloud/orbit?sslaccept=strict\n"),
    _case("dbaas_supabase", "file", "SUPABASE_URL=https://qzkfmwbxhtrplvnyaecs.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=⟦@SUPA@⟧\n"),
    _case("dbaas_supabase", "command", "supabase login --token ⟦sbp_⟨h40⟩⟧"),
    _case("dbaas_neon", "prompt", "connect to postgresql://neondb_owner:⟦npg_⟨r12⟩⟧@ep-cool-darkness-123456.eu-central-1.aws.neon.tech/neondb?sslmode=require and list the tables"),
    _case("dbaas_mongo_atlas", "file", 'MONGODB_URI="mongodb+srv://orbit_app:⟦⟨r16⟩⟧@cluster0.ab1cd.mongodb.net/orbit?retryWrites=true&w=majority"\n'),
    _case("dbaas_upstash", "file", "UPSTASH_REDIS_REST_URL=https://eu1-gentle-mole-31337.upstash.io\nUPSTASH_REDIS_REST_TOKEN=⟦AX⟨x4⟩AAIjc⟨x60⟩⟧\n"),
    _case("dbaas_turso", "file", "TURSO_AUTH_TOKEN=⟦eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhIjoicnciLCJpYXQiOjE3MzAwMDAwMDB9.⟨x86⟩⟧\n"),
    _case("dbaas_databricks", "command", "databricks configure --token <<< $'https://adb-1234567890123456.7.azuredatabricks.net\\n⟦dapi⟨h32⟩-2⟧'"),
    _case("dbaas_snowflake", "file", "[connections.prod]\naccount = \"xy12345.eu-west-1\"\nuser = \"ETL_SVC\"\npassword = \"⟦⟨p18⟩⟧\"\nwarehouse = \"ETL_WH\"\n"),
    _case("dbaas_confluent", "file", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"⟦⟨U16⟩⟧\" password=\"⟦⟨b64⟩⟧\";\n"),
    _case("dbaas_firebase", "file", '{\n  "type": "service_account",\n  "project_id": "orbit-mobile",\n  "private_key_id": "⟦⟨h40⟩⟧",\n  "client_id": "10293847561029384756"\n}'),
    _case("saas_airtable", "file", "AIRTABLE_TOKEN=⟦pat⟨r14⟩.⟨h64⟩⟧\n"),
    _case("saas_notion", "file", "NOTION_TOKEN=⟦ntn_⟨d11⟩⟨r35⟩⟧\n"),
    _case("saas_notion", "answer", "The integration secret you pasted (`⟦secret_⟨r43⟩⟧`) is now in `notion.ts`."),
    _case("saas_linear", "file", "LINEAR_API_KEY=⟦lin_api_⟨r40⟩⟧\n"),
    _case("saas_figma", "command", "curl -H 'X-Figma-Token: ⟦figd_⟨x40⟩⟧' https://api.figma.com/v1/files/AbC123"),
    _case("saas_contentful", "file", "CONTENTFUL_MANAGEMENT_TOKEN=⟦CFPAT-⟨x43⟩⟧\n"),
    _case("saas_postman", "file", "POSTMAN_API_KEY=⟦PMAK-⟨h24⟩-⟨h34⟩⟧\n"),
    _case("saas_mapbox", "file", "MAPBOX_SECRET_TOKEN=⟦sk.eyJ1Ijoib3JiaXQiLCJhIjoi⟨x20⟩In0.⟨x22⟩⟧\n"),
    _case("saas_algolia", "file", "ALGOLIA_APP_ID=KX8J1QW2ZP\nALGOLIA_ADMIN_KEY=⟦⟨h32⟩⟧\n"),
    _case("saas_okta", "command", 'curl -H "Authorization: SSWS ⟦00⟨x40⟩⟧" https://orbit.okta.com/api/v1/users?limit=25'),
    _case("saas_auth0", "file", "AUTH0_CLIENT_ID=Xq8mN2pL5vR7tY1wZ3aB6cD9eF0gH4jK\nAUTH0_CLIENT_SECRET=⟦⟨x64⟩⟧\n"),
    _case("saas_clerk", "file", "CLERK_SECRET_KEY=⟦sk_live_⟨r40⟩⟧\n"),
    _case("saas_dropbox", "file", "DROPBOX_ACCESS_TOKEN=⟦sl.B⟨x135⟩⟧\n"),
    _case("saas_asana", "command", "curl -H 'Authorization: Bearer ⟦2/⟨d16⟩/⟨d16⟩:⟨h32⟩⟧' https://app.asana.com/api/1.0/users/me"),
    _case("saas_shippo", "file", "SHIPPO_API_TOKEN=⟦shippo_live_⟨h40⟩⟧\n"),
    _case("saas_easypost", "file", "EASYPOST_API_KEY=⟦EZAK⟨h54⟩⟧\n"),
    _case("saas_1password", "command", "OP_SERVICE_ACCOUNT_TOKEN=⟦ops_eyJ⟨x200⟩⟧ op read op://prod/db/password"),
    _case("saas_sourcegraph", "file", "SRC_ACCESS_TOKEN=⟦sgp_⟨h16⟩_⟨h40⟩⟧\n"),
    _case("saas_segment", "file", "analytics:\n  segment_write_key: ⟦⟨r32⟩⟧\n"),
    _case("saas_intercom", "file", "INTERCOM_ACCESS_TOKEN=⟦dG9rOj⟨b52⟩=⟧\n"),
]

_CASES_CONTEXT = [
    _case("cli_password", "command", "mysql -h 10.0.3.17 -u root -p⟦Gh7#kq2Lw!⟧ orders_prod -e 'select count(*) from orders'"),
    _case("cli_password", "command", "mysqldump --user=backup --password=⟦xB9vR2mQ8tLz⟧ --single-transaction shop > shop.sql"),
    _case("cli_password", "command", "PGPASSWORD=⟦Wint3r-is-c0ming⟧ psql -h db.internal -U analytics -d warehouse -c '\\dt'"),
    _case("cli_password", "command", 'psql "postgresql://reporting:⟦r3p0rt!ng2026⟧@pg-replica.internal:5432/metrics?sslmode=require"'),
    _case("cli_password", "command", "mongosh \"mongodb://admin:⟦M0ng0Adm1n%21x⟧@10.0.4.2:27017/?authSource=admin\""),
    _case("cli_password", "command", "redis-cli -h cache.internal -p 6379 -a ⟦9f8e7d6c5b4a3210fedcba98⟧ --no-auth-warning INFO"),
    _case("cli_password", "command", "docker login registry.orbit.dev -u deploy -p ⟦Depl0y-R3g1stry-77⟧"),
    _case("cli_password", "command", "helm repo add internal https://charts.orbit.dev --username ci --password ⟦Ch4rtsP@ss2026⟧"),
    _case("cli_password", "command", "kubectl create secret generic db-creds --from-literal=username=app --from-literal=password=⟦pQ7rT9vW2xZ4⟧ -n prod"),
    _case("cli_password", "command", "kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=orbit-bot --docker-password=⟦ghp_⟨r36⟩⟧"),
    _case("cli_password", "command", "curl -u admin:⟦J3nk1ns!Adm1n⟧ https://jenkins.orbit.dev/job/api/build -X POST"),
    _case("cli_password", "command", "wget --user=mirror --password=⟦m1rr0r-s3cret⟧ https://files.orbit.dev/dumps/latest.tar.gz"),
    _case("cli_password", "command", "sshpass -p '⟦Pi-r00t-2026⟧' ssh pi@192.168.1.40 'sudo systemctl restart kiosk'"),
    _case("cli_password", "command", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:⟦p12-Expo7t!⟧"),
    _case("cli_password", "command", "keytool -genkeypair -alias upload -keyalg RSA -keystore upload.jks -storepass ⟦St0reP4ss!23⟧ -keypass ⟦K3yP4ss!45⟧ -dname CN=Orbit"),
    _case("cli_password", "command", "htpasswd -b -c /etc/nginx/.htpasswd grafana ⟦Gr4f4n4-V13w⟧"),
    _case("cli_password", "command", "smbclient //nas/backups -U backup%⟦N4sB4ckup#1⟧ -c 'ls'"),
    _case("cli_password", "command", "ldapsearch -x -H ldaps://ldap.orbit.dev -D 'cn=admin,dc=orbit,dc=dev' -w ⟦Ld4pR00t!!⟧ '(uid=jdoe)'"),
    _case("cli_password", "command", "clickhouse-client --host ch.internal --user default --password ⟦Cl1ckH0use_9⟧ --query 'SELECT 1'"),
    _case("cli_password", "command", "cqlsh cassandra.internal -u cassandra -p ⟦C4ss4ndr4-Pr0d⟧"),
    _case("cli_password", "command", "mosquitto_pub -h mqtt.orbit.dev -u sensor -P ⟦Mqtt-S3ns0r-42⟧ -t plant/temp -m 21.5"),
    _case("cli_password", "command", "nmcli dev wifi connect 'Orbit-Office' password '⟦c0ffee-and-bagels⟧'"),
    _case("cli_password", "command", "vault kv put secret/orbit/api db_password=⟦Vlt-Db-P4ss-88⟧ jwt_secret=⟦⟨r48⟩⟧"),
    _case("cli_password", "command", "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword=⟦Pg-Sup3r-2026⟧ --set auth.database=orbit"),
    _case("cli_password", "command", "docker run -d -e POSTGRES_PASSWORD=⟦l0cal-but-r3al-77⟧ -e POSTGRES_DB=orbit -p 5432:5432 postgres:16"),
    _case("cli_password", "command", "echo '⟦Sm0keT3st!pw⟧' | sudo -S apt-get install -y jq"),
    _case("cli_password", "command", "git clone https://jdoe:⟦glpat-⟨x20⟩⟧@gitlab.orbit.dev/platform/infra.git"),
    _case("cli_password", "command", "pip install --index-url https://ci:⟦⟨r32⟩⟧@pypi.orbit.dev/simple orbit-core==2.4.0"),
    _case("cli_password", "command", "ansible-playbook site.yml -e 'ansible_become_password=⟦B3come-R00t!⟧'"),
    _case("cli_password", "command", "rabbitmqctl add_user orders ⟦R4bb1t-0rd3rs⟧"),
    _case("cli_password", "command", "ssh-keygen -t ed25519 -f ~/.ssh/deploy_ed25519 -N '⟦d3pl0y-k3y-phr4se⟧' -C deploy@orbit"),
    _case("cli_password", "command", "echo '⟦my-ssh-passphr4se!⟧' | SSH_ASKPASS_REQUIRE=force SSH_ASKPASS=/bin/cat ssh-add ~/.ssh/id_ed25519"),
    _case("cli_password", "command", "sqlcmd -S tcp:sql.orbit.dev,1433 -U sa -P '⟦Sq1S3rv3r!Sa⟧' -Q 'SELECT @@VERSION'"),
    _case("cli_password", "command", "fastlane deliver --username ios@orbit.dev && FASTLANE_PASSWORD='⟦Appl3-ID-pw!⟧' MATCH_PASSWORD='⟦m4tch-3ncrypt⟧' fastlane match appstore"),
    _case("config_env", "file", "# production\nDATABASE_URL=postgres://orbit:⟦Zx81-Sp3ctrum⟧@db.orbit.dev:5432/orbit\nJWT_SECRET=⟦⟨r64⟩⟧\nNEXTAUTH_SECRET=⟦⟨b43⟩=⟧\n"),
    _case("config_env", "file", "APP_KEY=⟦base64:⟨b43⟩=⟧\nDB_PASSWORD=⟦L4r4v3l-Db!⟧\n"),
    _case("config_env", "file", "SECRET_KEY = '⟦django-insecure-⟨p50⟩⟧'\nDEBUG = False\n"),
    _case("config_env", "file", "app.config['SECRET_KEY'] = '⟦⟨h48⟩⟧'\n"),
    _case("config_yaml", "file", "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/orbit\n    username: orbit\n    password: ⟦Spr1ng-Ds-P4ss⟧\n"),
    _case("config_yaml", "file", "services:\n  db:\n    image: mysql:8.4\n    environment:\n      MYSQL_ROOT_PASSWORD: ⟦My5ql-R00t-2026⟧\n      MYSQL_PASSWORD: ⟦My5ql-App-2026⟧\n"),
    _case("config_yaml", "file", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-creds\ntype: Opaque\ndata:\n  password: ⟦@B64PW@⟧\n  api-key: ⟦@B64KEY@⟧\n"),
    _case("config_yaml", "file", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\nstringData:\n  SMTP_PASSWORD: ⟦sMtp-Str1ngD4ta⟧\n"),
    _case("config_yaml", "file", "all:\n  hosts:\n    web1:\n      ansible_host: 10.0.0.5\n      ansible_user: deploy\n      ansible_password: ⟦Ans1ble-W3b1⟧\n"),
    _case("config_yaml", "file", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      NPM_TOKEN: ⟦npm_⟨r36⟩⟧\n"),
    _case("config_json", "file", '{\n  "ConnectionStrings": {\n    "Default": "Server=tcp:orbit.database.windows.net,1433;Database=orbit;User ID=orbitadmin;Password=⟦Az-Sql-P4ss!9⟧;Encrypt=True;"\n  }\n}'),
    _case("config_json", "file", '{\n  "auths": {\n    "registry.orbit.dev": {\n      "auth": "⟦@DOCKERAUTH@⟧"\n    }\n  }\n}'),
    _case("config_json", "file", '{\n  "development": {\n    "username": "root",\n    "password": "⟦S3qu3l1ze-Dev!⟧",\n    "database": "orbit_dev",\n    "dialect": "mysql"\n  }\n}'),
    _case("config_toml", "file", '[tool.poetry.http-basic.internal]\nusername = "ci"\npassword = "⟦P0etry-Int3rnal-8⟧"\n'),
    _case("config_toml", "file", '[database]\nurl = "postgres://diesel:⟦D13s3l-Rust!⟧@localhost/orbit"\n'),
    _case("config_ini", "file", "[alembic]\nscript_location = migrations\nsqlalchemy.url = postgresql+psycopg://migrator:⟦Al3mb1c-M1gr4te⟧@db/orbit\n"),
    _case("config_ini", "file", "[client]\nuser=backup\npassword=⟦MyCnf-B4ckup-3⟧\nhost=127.0.0.1\n"),
    _case("config_ini", "file", "[remote \"s3\"]\n    url = s3://orbit-dvc/store\n    access_key_id = ⟦AKIA⟨B16⟩⟧\n    secret_access_key = ⟦⟨b40⟩⟧\n"),
    _case("config_xml", "file", "<settings>\n  <servers>\n    <server>\n      <id>ossrh</id>\n      <username>orbit</username>\n      <password>⟦M4v3n-0ssrh-P⟧</password>\n    </server>\n  </servers>\n</settings>"),
    _case("config_xml", "file", '<connectionStrings>\n  <add name="Main" connectionString="Data Source=sql01;Initial Catalog=Orbit;User Id=web;Password=⟦W3bC0nf1g!x⟧;" />\n</connectionStrings>'),
    _case("config_xml", "file", '<packageSourceCredentials>\n  <github>\n    <add key="Username" value="orbit-bot" />\n    <add key="ClearTextPassword" value="⟦ghp_⟨r36⟩⟧" />\n  </github>\n</packageSourceCredentials>'),
    _case("config_properties", "file", "spring.datasource.password=⟦Pr0p-Ds-P4ss⟧\nspring.mail.password=⟦Pr0p-M41l-P4ss⟧\n"),
    _case("config_properties", "file", "storePassword=⟦4ndr01d-St0re!⟧\nkeyPassword=⟦4ndr01d-K3y!⟧\nkeyAlias=upload\nstoreFile=../upload.jks\n"),
    _case("config_properties", "file", "signing.keyId=24875D73\nsigning.password=⟦Gr4dle-S1gn1ng⟧\nossrhPassword=⟦0ssrh-Gr4dle⟧\n"),
    _case("config_gradle", "file", "signingConfigs {\n    release {\n        storeFile file('release.keystore')\n        storePassword '⟦R3l-St0re-Pw⟧'\n        keyAlias 'release'\n        keyPassword '⟦R3l-K3y-Pw⟧'\n    }\n}"),
    _case("config_hcl", "file", 'db_password   = "⟦Tfv4rs-Db-P4ss⟧"\napi_token     = "⟦⟨r40⟩⟧"\nregion        = "eu-west-1"\n'),
    _case("config_hcl", "output", '{\n  "outputs": {\n    "db_password": {\n      "value": "⟦Tfst4te-Pw-Out⟧",\n      "type": "string",\n      "sensitive": true\n    }\n  }\n}'),
    _case("config_netrc", "file", "machine api.heroku.com\n  login ops@orbit.dev\n  password ⟦⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩⟧\nmachine git.heroku.com\n  login ops@orbit.dev\n  password ⟦⟨h8⟩-⟨h4⟩-⟨h4⟩-⟨h4⟩-⟨h12⟩⟧\n"),
    _case("config_netrc", "file", "machine github.com login orbit-bot password ⟦ghp_⟨r36⟩⟧\n"),
    _case("config_pgpass", "file", "db.orbit.dev:5432:orbit:orbit_app:⟦Pgp4ss-0rb1t!⟧\n*:*:*:replicator:⟦R3pl1c4t0r-x⟧\n"),
    _case("config_kubeconfig", "file", "users:\n- name: ci-deployer\n  user:\n    token: ⟦@SATOKEN@⟧\n"),
    _case("config_kubeconfig", "file", "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n    client-key-data: ⟦LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF⟨b120⟩⟧\n"),
    _case("config_git_cred", "file", "https://jdoe:⟦glpat-⟨x20⟩⟧@gitlab.com\nhttps://orbit-bot:⟦ghp_⟨r36⟩⟧@github.com\n"),
    _case("config_gem", "file", "---\n:rubygems_api_key: ⟦⟨h32⟩⟧\n:github: Bearer ⟦ghp_⟨r36⟩⟧\n"),
    _case("config_npmrc", "file", "registry=https://npm.orbit.dev/\n//npm.orbit.dev/:_auth=⟦@NPMAUTH@⟧\nalways-auth=true\n"),
    _case("dsn", "file", "CELERY_BROKER_URL=amqp://orders:⟦R4bb1tMQ-0rd⟧@rabbit.internal:5672/orbit\n"),
    _case("dsn", "file", "REDIS_URL=redis://:⟦R3d1s-C4che-P⟧@cache.internal:6379/0\n"),
    _case("dsn", "file", "KV_URL=rediss://default:⟦A⟨x4⟩AAIncD⟨x40⟩⟧@eu1-gentle-mole-31337.upstash.io:6379\n"),
    _case("dsn", "file", "ELASTIC_URL=https://elastic:⟦El4st1c-Pr0d-P⟧@es.orbit.dev:9200\n"),
    _case("dsn", "file", "conn = pyodbc.connect('DRIVER={ODBC Driver 18 for SQL Server};SERVER=sql01;DATABASE=orbit;UID=etl;PWD=⟦0dbc-Etl-P4ss⟧')\n"),
    _case("dsn", "file", "SMTP_URL=smtp://releases%40orbit.dev:⟦Smtp-Url-Pw-9⟧@smtp.mailgun.org:587\n"),
    _case("dsn", "output", "Connecting to ftp://mirror:⟦Ftp-M1rr0r-Pw⟧@ftp.orbit.dev/pub ... 230 Login successful."),
    _case("dsn", "file", "engine = create_engine(\"mssql+pyodbc://sa:⟦Alch3my-Sa-Pw⟧@sql01:1433/orbit?driver=ODBC+Driver+18+for+SQL+Server\")\n"),
    _case("dsn", "file", "NATS_URL=nats://svc:⟦N4ts-Svc-Pw⟧@nats.internal:4222\n"),
    _case("dsn", "file", "dsn: \"clickhouse://default:⟦Cl1ck-Dsn-Pw⟧@ch.internal:9000/analytics\"\n"),
    _case("jdbc", "file", "jdbc.url=jdbc:mysql://db.internal:3306/orbit?user=app&password=⟦Jdbc-Mysql-Pw⟧&useSSL=true\n"),
    _case("jdbc", "file", "url = jdbc:sqlserver://sql01:1433;databaseName=orbit;user=etl;password=⟦Jdbc-Mssql-Pw⟧;encrypt=true\n"),
    _case("jdbc", "file", "db.url=jdbc:oracle:thin:scott/⟦Or4cl3-Sc0tt⟧@//ora.internal:1521/ORCLPDB1\n"),
    _case("jdbc", "output", "HikariPool-1 - Starting... url=jdbc:postgresql://pg:5432/orbit?user=svc&password=⟦Jdbc-Pg-Pw-7⟧"),
    _case("url_signed", "output", "https://orbit-exports.s3.eu-west-1.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=⟦ASIA⟨B16⟩⟧%2F20261128%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261128T081500Z&X-Amz-Expires=3600&X-Amz-Security-Token=⟦IQoJb3JpZ2luX2Vj⟨x200⟩⟧&X-Amz-SignedHeaders=host&X-Amz-Signature=⟦⟨h64⟩⟧"),
    _case("url_signed", "prompt", "download this and parse it: https://storage.googleapis.com/orbit-dumps/users.json?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40orbit.iam.gserviceaccount.com%2F20261128%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261128T080000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=⟦⟨h512⟩⟧"),
    _case("url_signed", "file", "BLOB_SAS_URL=https://orbitlogs.blob.core.windows.net/logs?sv=2022-11-02&ss=b&srt=co&sp=rwdlacx&se=2027-01-01T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig=⟦⟨b43⟩%3D⟧\n"),
    _case("url_signed", "prompt", "reset link from the logs: https://app.orbit.dev/reset?token=⟦⟨x48⟩⟧ why does it 500"),
    _case("url_webhook", "file", "ZAPIER_HOOK=⟦https://hooks.zapier.com/hooks/catch/⟨d7⟩/⟨l7⟩/⟧\n"),
    _case("url_webhook", "file", "url: ⟦https://api.telegram.org/bot⟨d10⟩:AA⟨x33⟩⟧/sendMessage\n"),
    _case("url_otp", "file", "otpauth://totp/Orbit:admin@orbit.dev?secret=⟦⟨B32⟩⟧&issuer=Orbit\n"),
    _case("header_auth", "command", "curl https://api.orbit.dev/v1/orders -H 'Authorization: Bearer ⟦@JWTAPI@⟧'"),
    _case("header_auth", "output", "> GET /v2/ HTTP/1.1\n> Host: registry.orbit.dev\n> Authorization: Basic ⟦@BASIC1@⟧\n> User-Agent: curl/8.5.0"),
    _case("header_auth", "file", "### get orders\nGET https://api.orbit.dev/v1/orders\nX-API-Key: ⟦⟨r40⟩⟧\n"),
    _case("header_auth", "prompt", "the api returns 403 with `Authorization: Token ⟦⟨h40⟩⟧` — is the header format wrong?"),
    _case("header_cookie", "command", "curl 'https://admin.orbit.dev/api/users' -H 'Cookie: sessionid=⟦⟨l32⟩⟧; csrftoken=⟦⟨r64⟩⟧'"),
    _case("header_cookie", "output", "HTTP/2 200\nset-cookie: __Host-session=⟦@JWTCOOKIE@⟧; Path=/; Secure; HttpOnly; SameSite=Lax"),
    _case("header_cookie", "prompt", "copying my cookie from devtools: _gh_sess=⟦⟨b120⟩⟧ please scrape the page with it"),
    _case("jwt", "prompt", "decode this token and tell me why it's rejected: ⟦@JWTAPI2@⟧"),
    _case("jwt", "output", '{"access_token":"⟦@JWTSA@⟧","token_type":"Bearer","expires_in":3600,"refresh_token":"⟦⟨x64⟩⟧"}'),
    _case("privkey", "file", "⟦@PEM_RSA@⟧"),
    _case("privkey", "file", "⟦@PEM_OSSH@⟧"),
    _case("privkey", "output", "$ cat ~/.ssh/id_ecdsa\n⟦@PEM_EC@⟧"),
    _case("privkey", "file", "⟦@PEM_PK8@⟧"),
    _case("privkey", "file", "⟦@PEM_ENC@⟧"),
    _case("privkey", "file", "⟦@PEM_PGP@⟧"),
    _case("privkey", "file", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261128\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIE1c4f2kq9xJ6u8nM2pZ0vY3wT7rL5sA8dB1cF4gH6jK\nPrivate-Lines: 1\n⟦AAAAI⟨b39⟩⟧\nPrivate-MAC: ⟦⟨h64⟩⟧\n"),
    _case("privkey", "file", "# created: 2026-11-28T08:00:00Z\n# public key: age1⟨l58⟩\n⟦AGE-SECRET-KEY-1⟨u58⟩⟧\n"),
    _case("privkey", "answer", "Save this as `AuthKey_7K2L9M3N4P.p8`:\n\n```\n-----BEGIN PRIVATE KEY-----\n⟦MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg⟨b16⟩⟧\n⟦⟨b64⟩⟧\n-----END PRIVATE KEY-----\n```"),
    _case("env_dump", "output", "$ env | sort\nAWS_REGION=eu-west-1\nAWS_SECRET_ACCESS_KEY=⟦⟨b40⟩⟧\nGITHUB_TOKEN=⟦ghs_⟨r36⟩⟧\nHOME=/srv/runner\nNPM_TOKEN=⟦npm_⟨r36⟩⟧\nPATH=/usr/local/bin:/usr/bin"),
    _case("env_dump", "output", '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin",\n    "DB_PASSWORD=⟦D0ck3r-Insp3ct-Pw⟧",\n    "SECRET_KEY_BASE=⟦⟨h128⟩⟧"\n],'),
    _case("env_dump", "output", "$ heroku config -a orbit-api\n=== orbit-api Config Vars\nDATABASE_URL:  postgres://u⟨l12⟩:⟦p⟨h64⟩⟧@ec2-3-1-2-3.compute-1.amazonaws.com:5432/dbx\nREDIS_URL:     rediss://:⟦p⟨h64⟩⟧@ec2-5-6-7-8.compute-1.amazonaws.com:12345"),
    _case("env_dump", "output", "Environment:\n      RAILS_MASTER_KEY:  ⟦⟨h32⟩⟧\n      DATABASE_HOST:     pg.internal"),
    _case("prose_password", "prompt", "the staging admin login is admin / ⟦Qv8!tRz2#mLp⟧, log in and check the settings page"),
    _case("prose_password", "prompt", "my sudo password is ⟦blue-giraffe-47⟧ if you need it"),
    _case("prose_password", "prompt", "wifi for the demo device: SSID OrbitLab, pass ⟦lab-rat-9000⟧"),
    _case("prose_password", "answer", "Logged in as `qa@orbit.dev` with password `⟦Qa-Us3r-2026!⟧` and the checkout flow works."),
    _case("prose_password", "prompt", "mot de passe de la base de recette : ⟦Rec3tte#Bdd⟧ — peux-tu lancer les migrations ?"),
    _case("code_literal", "file", 'client = OpenAI(api_key="⟦sk-proj-⟨x74⟩T3BlbkFJ⟨x74⟩⟧")\n'),
    _case("code_literal", "file", 'const pool = new Pool({ host: "db", user: "orbit", password: "⟦N0de-Pg-P00l!⟧", database: "orbit" });\n'),
    _case("code_literal", "file", 'db, err := sql.Open("mysql", "app:⟦G0-Mysql-Dsn!⟧@tcp(db:3306)/orbit?parseTime=true")\n'),
    _case("code_literal", "file", 'ENCRYPTION_KEY = bytes.fromhex("⟦⟨h64⟩⟧")\n'),
    _case("code_literal", "file", 'let config = Config { api_secret: "⟦⟨x48⟩⟧".into(), ..Default::default() };\n'),
    _case("code_literal", "file", 'private static final String AWS_SECRET = "⟦⟨b40⟩⟧";\n'),
    _case("code_literal", "file", "$conn = new PDO('pgsql:host=db;dbname=orbit', 'orbit', '⟦Php-Pd0-Pw!⟧');\n"),
]

_SUBS = {
    "@SUPA@": _JWT_SUPA,
    "@SATOKEN@": _JWT_SA,
    "@JWTAPI@": _JWT_API,
    "@JWTAPI2@": _jwt({"sub": "svc-billing", "aud": "orbit", "exp": 1893456000, "jti": "b3c2"}, "api2"),
    "@JWTSA@": _jwt({"sub": "m2m-reporting", "scope": "read:all"}, "sa2"),
    "@JWTCOOKIE@": _JWT_COOKIE,
    "@B64PW@": _b64("Kub3-S3cr3t-Pw!"),
    "@B64KEY@": _b64("ak_live_7Fq2Lm9Xz4Rt8Wv1"),
    "@DOCKERAUTH@": _b64("deploy:Dock3r-C0nfig-Pw"),
    "@BASIC1@": _b64("ci-bot:Bas1c-Auth-Pw-42"),
    "@NPMAUTH@": _b64("ci:Npm-B4sic-Auth"),
}


def _finish(cases: list[SecretCase]) -> list[SecretCase]:
    pems = {
        "@PEM_RSA@": _pem("RSA PRIVATE KEY", "rsa", 8, "MIIEpAIBAAKCAQEA"),
        "@PEM_OSSH@": _pem("OPENSSH PRIVATE KEY", "ossh", 7, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
        "@PEM_EC@": _pem("EC PRIVATE KEY", "ec", 3, "MHcCAQEEI"),
        "@PEM_PK8@": _pem("PRIVATE KEY", "pk8", 8, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC"),
        "@PEM_ENC@": _pem("ENCRYPTED PRIVATE KEY", "enc", 8, "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkq"),
        "@PEM_PGP@": _pem("PGP PRIVATE KEY BLOCK", "pgp", 9, "lQdGBGVh"),
    }
    out = []
    for case in cases:
        text, secrets = case.text, case.secrets
        for key, (pem, pem_secrets) in pems.items():
            if key in text:
                text = text.replace(key, pem)
                secrets = pem_secrets
        for key, value in _SUBS.items():
            if key in text:
                text = text.replace(key, value)
                secrets = tuple(s.replace(key, value) for s in secrets)
        out.append(SecretCase(case.cls, case.placement, text, secrets))
    return out


SECRETS: list[SecretCase] = _finish(_CASES_VENDOR + _CASES_CONTEXT)


def _benign(label: str, placement: str, text: str) -> BenignCase:
    assert placement in PLACEMENTS, placement
    return BenignCase(label, placement, text)


BENIGN: list[BenignCase] = [
    _benign("name_ref", "command", 'gh api repos/orbit/api/releases -H "Authorization: Bearer $GITHUB_TOKEN"'),
    _benign("name_ref", "file", "      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n"),
    _benign("name_ref", "file", 'client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])\n'),
    _benign("name_ref", "file", "const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: '2024-06-20' });\n"),
    _benign("name_ref", "file", "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db-creds\n              key: password\n"),
    _benign("name_ref", "file", "DATABASE_URL=postgresql://app:${DB_PASSWORD}@db:5432/app\n"),
    _benign("name_ref", "command", 'echo "$CR_PAT" | docker login ghcr.io -u USERNAME --password-stdin'),
    _benign("name_ref", "file", "read -rsp 'Vault password: ' VAULT_PASSWORD && export VAULT_PASSWORD\n"),
    _benign("name_ref", "file", "password = getpass.getpass(\"Password for {}: \".format(user))\n"),
    _benign("name_ref", "answer", "Store the key in the `ANTHROPIC_API_KEY` repository secret and read it with `${{ secrets.ANTHROPIC_API_KEY }}`."),
    _benign("name_ref", "file", "aws_secret_access_key = {{ lookup('env', 'AWS_SECRET_ACCESS_KEY') }}\n"),
    _benign("name_ref", "command", "xcrun altool --upload-app -f Orbit.ipa -u ios@orbit.dev -p @keychain:AC_PASSWORD"),
    _benign("name_ref", "file", 'password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n'),
    _benign("name_ref", "command", "kubectl get secret db-creds -n prod -o jsonpath='{.data}' | jq 'keys'"),
    _benign("name_ref", "file", "storePassword=System.getenv(\"ORBIT_STORE_PASSWORD\")\n"),
    _benign("package", "command", "npm install passport passport-jwt passport-local@1.0.0 jsonwebtoken@9.0.2"),
    _benign("package", "file", "tokenizers==0.19.1\nkeyring==25.2.1\npython-dotenv==1.0.1\nsecretstorage==3.3.3\n"),
    _benign("package", "command", "pip install keyrings.alt bcrypt==4.1.3 passlib[argon2]"),
    _benign("package", "command", "cargo add secrecy zeroize --features serde"),
    _benign("package", "file", '"dependencies": {\n  "@auth/core": "^0.34.2",\n  "next-auth": "4.24.7",\n  "secure-password": "4.0.0"\n}'),
    _benign("package", "file", "import secrets\ntoken = secrets.token_urlsafe(32)\n"),
    _benign("package", "output", "Successfully installed tokenizers-0.19.1 safetensors-0.4.3 huggingface-hub-0.23.4"),
    _benign("git_sha", "output", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Jane Doe <jane@orbit.dev>\nDate:   Thu Nov 27 16:02:11 2026 +0100\n\n    fix: retry token refresh on 401"),
    _benign("git_sha", "output", "a3f9c21 feat(auth): rotate session keys\n7b0e4d8 chore: bump keyring to 25.2.1\n1c2d3e4 test: cover password reset"),
    _benign("git_sha", "command", "git cherry-pick 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83"),
    _benign("git_sha", "output", "HEAD is now at e83c5163316f89bfbde7d9ab23ca2e25604af290 Merge pull request #412"),
    _benign("digest", "file", "image: ghcr.io/orbit/api@sha256:3b1f9d6e2a4c8b7f0e5d9a1c3b6e8f2a4d7c9b1e3f5a7c9d2b4e6f8a1c3d5e7f\n"),
    _benign("lockfile", "file", '"node_modules/passport": {\n  "version": "0.7.0",\n  "resolved": "https://registry.npmjs.org/passport/-/passport-0.7.0.tgz",\n  "integrity": "sha512-cPLl+qZpSc+ireUvt+IzqbED1cHHkDoVYMo30jbJIdOOjQ1MQYZBPiNvmi4UM6ahhBPcVQ0sIj4g2sOC7zhu0Q=="\n}'),
    _benign("lockfile", "file", "requests==2.32.3 \\\n    --hash=sha256:70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6\n"),
    _benign("lockfile", "file", "golang.org/x/crypto v0.24.0 h1:mnl8DM0o513X8fdIkmyFE/5hTYxbwYOjDS/+rK6qpRI=\n"),
    _benign("lockfile", "file", '[[package]]\nname = "keyring"\nversion = "2.3.3"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "363387f0019d714aa60cc30ab4fe501a747f4c08fc58f069dd14be971bd495a0"\n'),
    _benign("lockfile", "file", 'tokenizers@^0.15.0:\n  version "0.15.2"\n  resolved "https://registry.yarnpkg.com/tokenizers/-/tokenizers-0.15.2.tgz#5fc8c4a0b3e2d1f6a9b8c7d6e5f4a3b2c1d0e9f8"\n'),
    _benign("checksum", "output", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt\n5d41402abc4b2a76b9719d911017c592  hello.txt"),
    _benign("lfs_pointer", "file", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"),
    _benign("uuid", "output", '{"request_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "status": 404, "error": "order not found"}'),
    _benign("uuid", "file", "metadata:\n  name: api-7d9f8b6c5-xk2lp\n  uid: 0f8fad5b-d9cb-469f-a165-70867728950e\n  resourceVersion: \"48213977\"\n"),
    _benign("uuid", "command", "psql -c \"select * from orders where id = 'a8098c1a-f86e-11da-bd1a-00112444be1e'\""),
    _benign("uuid", "file", 'revision = "3f2b9c1d4e5a"\ndown_revision = "9a8b7c6d5e4f"\n'),
    _benign("base64_image", "file", '<img alt="logo" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGXRFWHRTb2Z0d2FyZQBBZG9iZSBJbWFnZVJlYWR5ccllPAAAAUJJREFUeNqkU7ENgzAQfBGKZgHIBiyQKrlQIVWjQx4gk+QBbBIWyALQpEGiSBEkjfxLBiRm4C0XwfO8/9/f2Q4AYBAM4y8D5v0n+6+7Nn7/A2A=">'),
    _benign("placeholder", "file", "OPENAI_API_KEY=<your-openai-key>\nSTRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\n"),
    _benign("placeholder", "answer", "Run `huggingface-cli login --token <YOUR_HF_TOKEN>` once, then retry the download."),
    _benign("placeholder", "file", "# .env.example\nDATABASE_URL=postgres://user:password@localhost:5432/dbname\nJWT_SECRET=replace-me\n"),
    _benign("placeholder", "file", 'api_key: "YOUR_API_KEY_HERE"\n'),
    _benign("placeholder", "answer", "Replace `sk-...` with your key; never paste the real value into the chat."),
    _benign("placeholder", "output", "Token: gho_************************************\nToken scopes: 'gist', 'read:org', 'repo'"),
    _benign("placeholder", "output", "DB_PASSWORD=[REDACTED]\nAPI_KEY=********"),
    _benign("placeholder", "file", "curl -H 'Authorization: Bearer {token}' https://api.orbit.dev/v1/me\n"),
    _benign("css", "file", ":root {\n  --brand: #1e293b;\n  --accent: #f59e0b;\n  --danger: #ef4444;\n}\n.btn-primary { background: #2563ebcc; }\n"),
    _benign("css", "file", '<div class="bg-[#0f172a] text-[#e2e8f0] hover:bg-[#1e40af]">'),
    _benign("cdn_hash", "file", '<link href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css" rel="stylesheet" integrity="sha384-QWTKZyjpPEjISv5WaRU9OFeRpok6YctnYmDr5pNlyT2bRjXh0JMhjY6hW+ALEwIH" crossorigin="anonymous">'),
    _benign("cdn_hash", "output", "dist/assets/index-4f8b2c1a.js   142.31 kB │ gzip: 45.80 kB\ndist/assets/vendor-9e3d7a6b5c4f.css   8.12 kB"),
    _benign("cdn_hash", "file", "https://fonts.gstatic.com/s/inter/v13/UcCO3FwrK3iLTeHuS_fvQtMwCp50KnMw2boKoduKmMEVuLyfAZ9hiA.woff2\n"),
    _benign("fixture_id", "file", 'customer = {"id": "cus_NffrFeUfNV2Hib", "object": "customer", "email": "jenny.rosen@example.com"}\n'),
    _benign("fixture_id", "output", '{"id": "pi_3MtwBwLkdIwHu7ix28a3tqPa", "amount": 2000, "currency": "usd", "status": "requires_payment_method"}'),
    _benign("fixture_id", "file", 'const userId = "user_2ZxQv7mNp4LkR8tY1wB3cD5fG6h";\nconst orgId = "org_01HZX8KQ2M9V4T7B3N6C5R1P0W";\n'),
    _benign("fixture_id", "file", 'channel: "C024BE91L"\nuser: "U012AB3CD"\n'),
    _benign("cloud_id", "output", '{\n    "UserId": "AIDASAMPLEUSERID7X2Q9",\n    "Account": "123456789012",\n    "Arn": "arn:aws:iam::123456789012:user/deployer"\n}'),
    _benign("cloud_id", "command", "aws ec2 run-instances --image-id ami-0abcdef1234567890 --security-group-ids sg-0123456789abcdef0 --subnet-id subnet-6e7f829e"),
    _benign("cloud_id", "file", 'role_arn = "arn:aws:iam::123456789012:role/github-oidc-deploy"\n'),
    _benign("public_key", "file", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jane@laptop\n"),
    _benign("public_key", "file", "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"),
    _benign("public_key", "file", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\nRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n-----END CERTIFICATE-----\n"),
    _benign("public_key", "output", "pub   ed25519 2026-01-04 [SC]\n      3AA5C34371567BD2B8F5E3A1C9D7E6F4A2B0C8D6\nuid           [ultimate] Jane Doe <jane@orbit.dev>"),
    _benign("public_key", "file", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq8Bx3pL2mN7vR4tY1wZ9aC6dF0gH\n-----END PUBLIC KEY-----\n"),
    _benign("address", "file", 'const TREASURY = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e";\n'),
    _benign("prose", "prompt", "the password reset token expires too early, can you make it 30 minutes instead of 10"),
    _benign("prose", "answer", "Passwords must be at least 12 characters; the API key rotates every 90 days via the rotation job."),
    _benign("prose", "prompt", "set max_tokens to 4096 and make the tokenizer truncate from the left"),
    _benign("prose", "output", "Usage: 1,234 input tokens, 567 output tokens"),
    _benign("prose", "output", "Error: 401 Unauthorized — invalid API key provided. Check OPENAI_API_KEY."),
    _benign("prose", "file", "def verify_password(self, raw_password: str) -> bool:\n    return check_password(raw_password, self.password_hash)\n"),
    _benign("prose", "file", "ALTER TABLE users ADD COLUMN password_reset_token varchar(64);\n"),
    _benign("url_nocreds", "file", "MONGO_URL=mongodb://localhost:27017/test\nREDIS_URL=redis://localhost:6379/0\n"),
    _benign("url_nocreds", "command", "git clone ssh://git@github.com/orbit/api.git && git clone https://github.com/orbit/web.git"),
    _benign("url_nocreds", "prompt", "look at https://github.com/orbit/api/pull/412/commits/9fceb02d0ae598e95dc970b74767f19372d61af8 and tell me what broke"),
    _benign("base64_text", "command", "echo aGVsbG8gd29ybGQK | base64 -d"),
    _benign("versions", "output", "Python 3.12.4\nnode v20.15.0\nopenssl 3.0.13 30 Jan 2024\nbuild 20261128.4-rc.2+g3f9a1c2"),
    _benign("ssh_chore", "command", 'ssh-keygen -t ed25519 -C "jane@orbit.dev" -f ~/.ssh/id_ed25519_orbit'),
    _benign("ssh_chore", "output", "The key fingerprint is:\nSHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 jane@orbit.dev"),
    _benign("csp_hash", "file", "Content-Security-Policy: script-src 'self' 'sha256-B2yPHKaXnvFWtRChIbabYmUBFZdVfKKXHbWtWidDVF8='\n"),
    _benign("long_id", "output", "Run ID: 9876543210  Job: build (ubuntu-latest)  Artifact: dist-linux-x64.tar.gz  Size: 48213977"),
]


def check_corpus() -> None:
    """Every secret occurs in its case's text; values are distinct across cases."""
    seen: dict[str, int] = {}
    for i, case in enumerate(SECRETS):
        for secret in case.secrets:
            assert secret in case.text, (i, secret)
            assert len(secret) >= 4, (i, secret)
            if secret in seen and seen[secret] != i:
                raise AssertionError(f"secret reused in cases {seen[secret]} and {i}")
            seen[secret] = i


if __name__ == "__main__":
    check_corpus()
    print(f"{len(SECRETS)} secret cases, {len(BENIGN)} benign cases")
