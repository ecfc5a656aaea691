"""Credential stores recognised by the structure of their path, whatever the tool.

A tool keeps its login where every tool keeps its settings: a dot-folder or dot-file in the
home folder, an XDG folder (``~/.config/X``, ``~/.local/share/X``, ``~/.cache/X``), an
application-data folder. Such a path is a store when a folder or file name in it says what
it holds (credentials, tokens, auth, keys, secrets, sessions, cookies, logins, keyrings,
wallets, password stores), or when the folder is a cloud, deploy or registry CLI's own (its
config *is* its login), or the file is one of the ``.netrc``-like files that hold a
password for a host. Ordinary settings (``~/.config/starship.toml``, ``~/.gitconfig``,
``~/.config/nvim/init.lua``) name none of these.
"""

from __future__ import annotations

import re

# Where a user's tools keep their state.
_HOME = (r"(?:~|\$\{?HOME\}?|%USERPROFILE%|\$env:USERPROFILE|/(?:home|Users)/[\w.-]+"
         r"|/root)[/\\]")
_APPDATA = (r"(?:\$env:(?:LOCAL)?APPDATA|%(?:LOCAL)?APPDATA%|AppData[/\\](?:Roaming|Local)"
            r"|Library[/\\](?:Application\s?Support|Keychains|Cookies))[/\\]?")
_XDG = r"(?:\.config|\.local[/\\](?:share|state)|\.cache)[/\\]"
# A name that says what the file or folder holds.
_CRED_WORD = (r"(?:cred\w*|(?:access_|refresh_|id_|auth_?)?tokens?|auth(?:s|info|entication"
              r"|orization|ority)?|secrets?|passw\w*|passwd|keys?\d*|keyrings?|keychains?"
              r"|keystores?|wallets?|sessions?|cookies|logins?|login\s+data|oauth\w*|sso|id"
              r"|identity|private|\.?vault|password-store|gnupg)")
_CRED_NAME = re.compile(rf"(?:^|[._ -]){_CRED_WORD}(?:$|[._ -])", re.I)
# Cloud, deploy, registry and wallet tools whose own folder holds their login. (The SSH,
# AWS, Docker, Kubernetes and GnuPG folders are read file by file in ``CREDENTIAL_NAMED``:
# ``~/.ssh/config`` and ``~/.aws/config`` hold none. An agent's own folder holds its skills
# too; only the files named for a credential in it are one.)
_TOOL_DIRS = re.compile(
    r"^\.?(?:doctl|hcloud|fly|flyctl|linode(?:-cli)?|oci|rclone|circleci|jfrog|kaggle|ngrok\d?"
    r"|pulumi|terraform\.d|netlify|vercel|com\.vercel\.cli|\.?wrangler|heroku|gh|hub|glab"
    r"|doppler|configstore|filezilla|sops|op|1password|bitwarden|bw|lastpass|keepassxc|electrum"
    r"|bitcoin|ethereum|solana|monero|exodus|github-copilot|snowsql|railway|supabase|scw|vultr"
    r"|ibmcloud|bluemix|aliyun|tccli|cf|openstack|databricks|Slack|discord|telegram\w*)$",
    re.I)
_DOT_ONLY = re.compile(r"^\.mc$", re.I)  # ``~/.mc`` is MinIO's; ``~/.config/mc`` is not
# Files that hold a password or token for a host, by name alone.
_NETRC_LIKE = re.compile(
    r"(?:^|[/\\~])[._]?(?:netrc|pgpass|s3cfg|boto|databrickscfg|my\.cnf|edgerc|sentryclirc"
    r"|dockercfg|Xauthority|authinfo(?:\.gpg)?|vault-token|git-credentials|fetchmailrc"
    r"|msmtprc|ovh\.conf|m2/settings(?:-security)?\.xml|gradle/gradle\.properties"
    r"|nuget/NuGet/NuGet\.Config|yarnrc\.yml|config/pip/pip\.conf|pip/pip\.ini)\b", re.I)
_PATH = re.compile(rf"(?:{_HOME}|{_APPDATA})[^\s'\"`,;)|>]*", re.I)
_PUBLIC_HALF = re.compile(r"\.(?:pub|example|sample|template|dist)\b", re.I)


def _parts(path: str) -> list[str]:
    rest = re.sub(rf"^(?:{_HOME})?(?:{_APPDATA})?", "", path, flags=re.I)
    return [p for p in re.split(r"[/\\]", rest) if p]


def is_store(path: str) -> bool:
    """Does ``path`` (under the home folder or an application-data folder) name a store a
    credential sits in?"""
    if _PUBLIC_HALF.search(path):
        return False
    if _NETRC_LIKE.search(path):
        return True
    parts = _parts(path)
    if not parts:
        return False
    xdg = bool(re.match(rf"(?:{_HOME})?{_XDG}", path, re.I)) or path.lower().startswith(
        _XDG.replace("\\", ""))
    tool = parts[2] if xdg and parts[0] == ".local" and len(parts) > 2 else (
        parts[1] if xdg and len(parts) > 1 else parts[0])
    if _TOOL_DIRS.match(tool) or (not xdg and _DOT_ONLY.match(tool)):
        return True
    # The tool's own folder names the tool; what lies in it says what it holds.
    inside = parts[1:] if not xdg else parts[2:] if parts[0] != ".local" else parts[3:]
    return any(_CRED_NAME.search(p) for p in ([parts[0]] if not xdg else []) + inside)


STORE = re.compile(rf"{_PATH.pattern}|{_NETRC_LIKE.pattern}", re.I)
"""Where a store may be named; ``is_store`` decides whether it is one."""

# A path assigned to a tool's variable (``KUBECONFIG=~/.kube/x``) points the tool at it.
_POINTED = re.compile(r"[A-Z][A-Z0-9_]*=$")


def find_store(text: str) -> re.Match[str] | None:
    """The first path in ``text`` that names a store and is not merely pointed to."""
    return next((m for m in STORE.finditer(text) if is_store(m.group(0))
                 and not _POINTED.search(text[:m.start()])), None)


def store_name(path: str) -> str:
    """The store a path names, for findings: the tool's folder, or the file."""
    parts = _parts(path)
    if not parts:
        return path.strip("/\\~ =@'\"").lower()
    if parts[0].lower() in (".config", ".cache") and len(parts) > 1:
        return parts[1].lower()
    if parts[0].lower() == ".local" and len(parts) > 2:
        return parts[2].lower()
    return parts[0].lower()
