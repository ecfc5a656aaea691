"""Parsed shell commands that persist, read credential stores or turn a check off."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from skillopt_sleep.firewall.shell import Command, base
from skillopt_sleep.firewall.shell_rules import BYPASS_CHECK, PERSIST, READ_CREDENTIALS, Found
from skillopt_sleep.firewall.stores import find_store, store_name

# Places whose contents run again later, unasked: shell start-up files, schedulers, service
# units, launch agents, git hooks, SSH keys that let someone in, sudo rules.
PERSISTENT = re.compile(
    r"(?:^|[/\\~])\.(?:bash_?rc|bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv"
    r"|zlogin|kshrc|cshrc|tcshrc|xprofile|xinitrc)\b|/etc/(?:profile|bash\.bashrc|environment"
    r"|zsh/|rc\.local|crontab|cron\.|sudoers|ld\.so\.preload|init\.d|systemd/)|config\.fish"
    r"|powershell_profile\.ps1|\$profile\b|/var/spool/cron|systemd/(?:user|system)/"
    r"|\.config/systemd/|\.(?:service|timer)$|launch(?:agents|daemons)/|\.plist$"
    r"|\.git/hooks/|\bhooks/(?:pre|post)-\w+|authorized_keys\d?\b|\.config/autostart/"
    r"|\.config/git/|\.gitconfig\b|\.git-templates?/|git-core/templates/"
    # what an interpreter or the system runs as it starts: start-up folders, ``.pth`` files
    # and site customisation, a tool's own rc file in the home folder
    r"|/startup/|/autostart/|/autoload/|profile\.d/|/etc/rc\.d/|/etc/init\.d/|startupitems"
    r"|site-packages/\S*\.pth$|(?:^|/)\S*\.pth$|(?:site|user)customize\.py|\.rprofile\b"
    r"|~/\.(?!npmrc|yarnrc|pypirc|netrc|curlrc|wgetrc)[\w-]*rc(?:\.\w+)?$"
    r"|currentversion\\+run", re.I)
# Stores a credential sits in. Public halves and templates (``id_ed25519.pub``,
# ``.env.example``) are not credentials.
CREDENTIAL_NAMED = re.compile(
    r"(?:^|[/\\~\s=@'\"])(?:\.ssh/(?!\S*\.pub\b)(?!known_hosts|config\b)\S*|id_(?:rsa|dsa|ecdsa"
    r"|ed25519)(?!\.pub)\b|\.aws/credentials|\.aws/?$|\.netrc|_netrc|\.pgpass"
    r"|\.git-credentials|\.npmrc|\.pypirc|\.docker/config\.json|\.kube/config|\.config/gcloud"
    r"|\.azure/|\.config/gh/hosts|\.gnupg|\.password-store|/etc/shadow|\.env(?![\w.-]*\."
    r"(?:example|sample|template|dist|defaults?|tpl))(?:\.[\w-]+)?\b|login data"
    r"|cookies(?:\.sqlite)?"
    r"|\.keychain(?:-db)?\b|\.vault-token|\.terraformrc|/proc/[\w$]+/environ"
    # By the file's name, whatever the tool: a settings file named for what it keeps
    # (``credentials.toml``, ``key.properties``, ``secrets.yaml``), key material by its
    # extension, a certificate file only when its name says it holds the private half.
    r"|(?<=/)(?:token|credentials|secret|password|auth)(?=$|[\s'\"`)])"
    r"|(?:[\w-]*[._-])?(?:credentials?|secrets?|passwords?|passwd|token|keystore|keys?|auth)"
    r"\.(?:toml|ya?ml|json|ini|properties|cfg|conf|txt|xml)\b(?!\.(?:example|sample|template|dist))"
    r"|[\w*-]*\.(?:key|p8|p12|pfx|jks|keystore|ppk|kdbx)\b"
    r"|\*?\.pem\b|[\w.-]*(?:priv|secret|sign|key)[\w.-]*\.pem\b)", re.I)


class _Credential:
    """A store named outright (``CREDENTIAL_NAMED``) or by its path's structure
    (``stores``): ``search`` as a compiled pattern's."""

    def search(self, text: str) -> re.Match[str] | None:
        named = CREDENTIAL_NAMED.search(text)
        if named:
            return named
        return find_store(text)


CREDENTIAL = _Credential()
_READERS = {"cat", "less", "more", "head", "tail", "base64", "xxd", "od", "strings", "cp",
            "scp", "rsync", "tar", "zip", "7z", "curl", "wget", "nc", "ncat", "socat", "gpg",
            "type", "get-content", "gc", "openssl", "sed", "awk", "grep", "sort", "tee",
            "bat", "nl", "hexdump", "mail", "sendmail", "gzip", "python", "python3", "jq",
            "yq", "source", ".", "find", "locate", "xargs", "sqlite3", "sqlcipher", "pbcopy",
            "xclip", "xsel", "wl-copy", "clip", "uuencode", "cpio", "pax", "dd", "split",
            "ncftpput", "smbclient", "gsutil", "rclone", "compress-archive", "copy-item",
            "ditto", "xz", "bzip2", "zstd", "rar"}
_ENV_DUMP = {"env", "printenv", "set", "export", "declare", "compgen"}
_AGENT_BYPASS = re.compile(
    r"^--(?:unsafe-perm|dangerously-skip-permissions|dangerously-bypass-approvals-and-sandbox"
    r"|yolo|allow-all-tools|allow-all-paths|allow-all|trust-all-tools|bypass-?\w*)$"
    r"|^bypasspermissions$|^danger-full-access$", re.I)  # the rest: ``_CHECK_FLAG``
_OFF_ENV = re.compile(r"^(?:HUSKY=0|HUSKY_SKIP_HOOKS=1|SKIP=\S+|PRE_COMMIT_ALLOW_NO_CONFIG=1"
                      r"|(?:SKIP|NO|DISABLE)_?\w*(?:TEST|CHECK|VERIF|LINT|HOOK|SCAN|AUDIT)\w*="
                      r"(?!0$|false$|no$)\S+"
                      r"|NODE_TLS_REJECT_UNAUTHORIZED=0|GIT_SSL_NO_VERIFY=\S+"
                      r"|CURL_CA_BUNDLE=|REQUESTS_CA_BUNDLE="
                      # any setting named for a check, set to off
                      r"|\w*(?:VERIF|CHECK|SIGN|REQUIRE|STRICT|ENFORCE|SECUR|VALIDAT|AUDIT|SCAN"
                      r"|PROTECT|SANDBOX|SSL|TLS)\w*=[\"']?(?:0|false|no|off|none|disabled?)[\"']?$)",
                      re.I)
_CHMOD_OPEN = re.compile(r"^(?:[0-7]?777|[0-7]?[0-7][0-7][2367]|[ugoa]*\+[rwx]*s[rwx]*"
                         r"|[246][0-7]{3}|[ug]*[ao][ugo]*\+[rx]*w[rx]*)$", re.I)


_AT_TIME = re.compile(r"^(?:now|noon|midnight|teatime|tomorrow|\d{1,2}(?::\d{2})?(?:am|pm)?|-f)$")


def written(cmd: Command) -> list[str]:
    """Files a command writes: redirections, ``tee``, the destination of a copy or move,
    ``sed -i`` and ``dd of=``."""
    out = [t for op, t in cmd.redirects if ">" in op]
    prog, args = base(cmd.program), [a for a in cmd.args if not a.startswith("-")]
    if prog == "tee":
        out += args
    elif prog in ("sed", "perl") and any(a.startswith("-i") or a == "-pi" for a in cmd.args):
        out += args[1:]
    elif prog in ("cp", "mv", "install", "ln", "copy", "copy-item", "move-item", "rsync",
                  "add-content", "set-content", "out-file") and args:
        out.append(args[-1])
    elif prog == "dd":
        out += [a[3:] for a in cmd.args if a.startswith("of=")]
    return out


def persist(cmds: Sequence[Command]) -> Iterator[Found]:
    for cmd in cmds:
        prog, args = base(cmd.program), [a.lower() for a in cmd.args]
        for path in written(cmd):
            if PERSISTENT.search(path) or base(path) in ("authorized_keys", "sudoers"):
                yield PERSIST, place(path)
        if prog == "crontab" and (cmd.upstream or not {"-l", "-r"} & set(args)):
            yield PERSIST, "crontab"
        elif prog in ("at", "batch") and (cmd.upstream or any(op == "<" for op, _ in cmd.redirects)
                                           or (prog == "at" and args and _AT_TIME.match(args[0]))):
            yield PERSIST, "at job"
        elif prog == "systemctl" and "enable" in args:
            yield PERSIST, "systemd unit"
        elif prog == "launchctl" and {"load", "bootstrap", "submit", "enable"} & set(args):
            yield PERSIST, "launchd job"
        elif (prog == "schtasks" and "/create" in args) or prog in ("register-scheduledtask",
                                                                  "new-scheduledtask"):
            yield PERSIST, "scheduled task"
        elif (prog in ("sc", "sc.exe") and {"create", "config"} & set(args)) or (prog in (
                "new-service", "nssm") and (prog != "nssm" or "install" in args)):
            yield PERSIST, "system service"
        elif prog == "git" and "config" in args and _hooks_outside(args):
            yield PERSIST, "git hooks path"
        elif prog in ("visudo", "update-rc.d", "chkconfig") or (prog == "usermod" and any(
                a in ("sudo", "wheel", "admin") for a in args)):
            yield PERSIST, "sudo rules" if prog in ("visudo", "usermod") else "init script"
        elif prog in ("reg", "set-itemproperty", "new-itemproperty") and any(
                "currentversionrun" in re.sub(r"[\\/]", "", a) for a in args):
            yield PERSIST, "registry run key"


def _hooks_outside(args: list[str]) -> bool:
    """Hooks read from outside the working tree; a versioned folder in it (``.githooks``)
    is the repository's own, reviewed like its code."""
    for i, arg in enumerate(args):
        if "hookspath" in arg:
            value = arg.split("=", 1)[1] if "=" in arg else " ".join(args[i + 1:i + 2])
            return not value or bool(re.match(r"[/~$%\\]|\.\.|[a-z]:|\.git/", value, re.I))
    return False


def place(path: str) -> str:
    low = path.lower()
    for word in ("authorized_keys", "sudoers", ".git/hooks", "crontab", "cron", "systemd",
                 "launchagents", "launchdaemons", "autostart"):
        if word in low:
            return word.strip("./")
    return "shell start-up file" if re.search(r"rc\b|profile|environment|fish", low) else base(
        path)


def read_credentials(cmds: Sequence[Command]) -> Iterator[Found]:
    """A credential store read (printed, copied, archived or sent); an environment dump."""
    for cmd in cmds:
        prog = base(cmd.program)
        if _prints_token(prog, [a.lower() for a in cmd.args]):
            yield READ_CREDENTIALS, f"{prog} token"
            continue
        if prog == "security" and any(a in ("dump-keychain", "find-generic-password",
                                            "find-internet-password", "export")
                                      for a in cmd.args):
            yield READ_CREDENTIALS, "keychain"
            continue
        if cmd.program in _ENV_DUMP and not [a for a in cmd.args if not a.startswith("-")]:
            # ``env``/``printenv`` print every variable (unless filtered for one name);
            # ``set``/``export -p`` only count when sent somewhere.
            if _filtered(cmd, cmds):
                continue
            if (cmd.program in ("env", "printenv") and not cmd.assigns) or (_sent(cmd, cmds) and (
                    prog != "export" or "-p" in cmd.args)):
                yield READ_CREDENTIALS, "environment"
            continue
        if prog in _SEARCHERS and any(_SECRET_NAME.search(a) for a in cmd.args) and any(
                _HOME_WIDE.match(a) for a in cmd.args):
            yield READ_CREDENTIALS, "secrets searched for"
            continue
        remote = any(re.match(r"^(?:[a-z][\w+.-]*://|[\w.-]+@[\w.-]+:)", a) for a in cmd.args)
        if prog not in _READERS and not any(c for c in cmd.inner) and not remote:
            continue  # any program that copies a store to a remote place reads it to send it
        sources = [a for a in cmd.args if not a.startswith("-") or a.startswith("-F")]
        if prog in ("cp", "mv", "rsync", "scp") and len(sources) > 1:
            sources = sources[:-1]
        sources += [t for op, t in cmd.redirects if op == "<"]
        for word in sources:
            m = CREDENTIAL.search(word.lstrip("@"))
            if m:
                yield READ_CREDENTIALS, _store(m.group(0))
        if any(base(c.program) in _ENV_DUMP and not c.args for c in cmd.inner):
            yield READ_CREDENTIALS, "environment"


def _filtered(cmd: Command, cmds: Sequence[Command]) -> bool:
    """Is the dump piped into a filter for named variables (``env | grep IDENTITY``)?"""
    return any(cmd in c.upstream and base(c.program) in ("grep", "rg", "findstr", "select-string")
               and not _sent(c, cmds) for c in cmds)


_SEARCHERS = {"grep", "rg", "ag", "ack", "egrep", "findstr", "select-string", "git"}
_HOME_WIDE = re.compile(r"^(?:~/?|/|\$HOME/?|~/\..*|/etc\b.*|/root\b.*)$")
_SECRET_NAME = re.compile(r"secret|token|passw|api_?key|private.key|aws_|BEGIN", re.I)


_TOKEN_VERBS = {
    "gh": ("auth", "token"),
    "aws": ("get-session-token", "get-secret-value", "aws_secret_access_key"),
    "gcloud": ("print-access-token", "print-identity-token"), "az": ("get-access-token",),
    "heroku": ("auth:token",),
}


_SHOW = {"get", "show", "access", "read", "reveal", "view", "get-secret-value", "export",
         "download", "cat", "print", "decrypt"}


def _prints_token(prog: str, args: list[str]) -> bool:
    """A CLI asked to print a credential it holds (``gh auth token``), or any CLI asked to
    show a secret it manages (``kubectl get secret x -o yaml``, ``gcloud secrets versions
    access``, ``az keyvault secret show``): a read verb on a secret noun."""
    nouns = [a for a in args if re.fullmatch(r"secrets?|secretsmanager|keyvault|keys?"
                                               r"|secret/\S+|secrets/\S+", a)]
    if nouns and _SHOW & set(args) and (prog != "kubectl" or any(
            a.startswith(("-o", "--output", "jsonpath")) for a in args)):
        return True
    wanted = _TOKEN_VERBS.get(prog, ("read",) if prog in ("vault", "op") else ())
    if not wanted:
        return False
    if prog in ("vault", "op"):  # reading a secret, not listing or writing one
        return args[:1] == ["read"] or args[:2] == ["kv", "get"]
    if prog == "gh":
        return args[:2] == ["auth", "token"]
    return any(a in wanted for a in args)


def _sent(cmd: Command, cmds: Sequence[Command]) -> bool:
    return any(cmd in c.upstream for c in cmds) or bool(cmd.redirects)


def _store(match: str) -> str:
    if not CREDENTIAL_NAMED.search(match):
        return store_name(match)
    text = match.strip("/\\~ =@'\"").lower()
    if "ssh" in text or text.startswith("id_"):
        return "ssh keys"
    if text.startswith(".env"):
        return ".env"
    return text.split("/")[0] if not text.startswith(".") else text.split("/")[0] or text


# Any option named for a check, approval or protection that switches it off: by a negating
# prefix (``--no-verify``, ``--skip-tls-verify``, ``-auto-approve``) or a false value
# (``--validate=false``, ``-lock=false``). ``--insecure`` says so itself.
_GUARD_WORD = (r"(?:verif|valid|approv|confirm|sign|secur|protect|sandbox|permission|lock|ssl|tls"
               r"|cert|integrity|hash)")
_CHECK_FLAG = re.compile(
    rf"^--?(?:(?:no|skip|disable|auto|ignore|bypass|without"
    rf"|allow-unsigned)-?[\w-]*{_GUARD_WORD}[\w-]*"
    rf"|[\w-]*{_GUARD_WORD}[\w-]*=(?:false|0|no|off|none)|insecure|k8s-skip-[\w-]+)$", re.I)
_NOT_A_CHECK = re.compile(r"version|update|cache|colou?r|progress|audit|fund|lockfile|clock", re.I)


def bypass_check(cmds: Sequence[Command]) -> Iterator[Found]:
    """A permission skipped or a check turned off: agent CLIs' skip flags, ``--no-verify``,
    hooks or TLS checks disabled through the environment, world-writable or setuid modes,
    a host's security controls switched off."""
    for cmd in cmds:
        for target in (*_skipped_by_flags(cmd), *_switched_off(cmd)):
            yield BYPASS_CHECK, target


def _skipped_by_flags(cmd: Command) -> Iterator[str]:
    prog, low = base(cmd.program), [a.lower() for a in cmd.args]
    for i, arg in enumerate(low):
        mode = arg == "--permission-mode" and low[i + 1:i + 2] == ["bypasspermissions"]
        if _AGENT_BYPASS.match(arg) or mode:
            yield arg.lstrip("-")
    if prog == "git" and any(re.match(r"core\.hookspath=(?:/dev/null|nul|/?$)", a) for a in low):
        yield "git hooks"
    if prog == "git" and ("--no-verify" in low or (low[:1] == ["commit"] and "-n" in low)):
        yield "git hooks"
    if prog == "git" and "config" in low and "false" in low and any("sslverify" in a
                                                                    for a in low):
        yield "tls verification"
    if prog in ("npm", "yarn", "pnpm") and "strict-ssl" in low and "false" in low:
        yield "tls verification"
    if prog == "gh" and "merge" in low and "--admin" in low:
        yield "branch protection"
    if prog == "git" and low[:1] == ["push"] and ({"--force", "-f"} & set(low)) and (
            {"main", "master"} & {a.split(":")[-1] for a in low}):
        yield "protected branch"
    for arg in low:
        if _CHECK_FLAG.match(arg) and not _NOT_A_CHECK.search(arg):
            yield arg.lstrip("-").split("=")[0]
    for assign in (*cmd.assigns, *(w for w in cmd.words if "=" in w and w[:1].isupper())):
        if _OFF_ENV.match(assign):
            yield assign.split("=")[0].lower()


def _switched_off(cmd: Command) -> Iterator[str]:
    prog, low = base(cmd.program), [a.lower() for a in cmd.args]
    if prog == "chmod" and any(_CHMOD_OPEN.match(a) for a in low):
        yield "file permissions"
    if (prog == "setenforce" and "0" in low) or (prog == "ufw" and "disable" in low):
        yield prog
    if prog in ("csrutil", "spctl") and any("disable" in a for a in low):
        yield prog
    if prog == "set-mppreference" and any("disable" in a for a in low):
        yield "defender"
    policy = prog == "set-executionpolicy" or "-executionpolicy" in low
    if policy and {"bypass", "unrestricted"} & set(low):
        yield "execution policy"
