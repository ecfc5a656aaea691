"""Shells and listeners written in a general-purpose language, read by their structure.

A reverse shell, a bind shell or a command server is the same program in every language:
a *connection* (a socket opened or a port listened on) and an *executor* handed something
the program did not spell out (a variable, the connection's own bytes) or handed a shell
outright. Remote code execution is a *fetch* whose result reaches an executor or an
evaluator. The roles below are named by the calls each language makes for them, so a new
payload in a known language has to use one of them; no payload string is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Found = tuple[str, str]

# A connection opened or a port listened on, in any language.
_CONNECT = re.compile(
    r"\bsocket\s*[.(]|\bsocket\.\w+|\bcreate_connection\b|\bopen_connection\b|\bstart_server\b"
    r"|\bsocketserver\b|\bHTTPServer\b|\bBaseHTTPRequestHandler\b|\bTCP(?:Socket|Server)\b"
    r"|\bUDPSocket\b|\bnet\.(?:connect|createConnection|createServer|Socket|Dial\w*|Listen\w*)\b"
    r"|\btls\.connect\b|require\(\s*['\"](?:net|tls|dgram)['\"]\s*\)|\bnew\s+(?:Server)?Socket\b"
    r"|\bDeno\.(?:connect|listen)\w*|\bBun\.(?:connect|listen)\b|\bfsockopen\b"
    r"|\bstream_socket_(?:client|server)\b|\bsocket_create\b|IO::Socket|\b[PA]F_INET\b"
    r"|/inet\d?/(?:tcp|udp)/|\[socket\s|Sockets\.TCP(?:Client|Listener)|\bTcp(?:Client|Listener)\b"
    r"|\bs_(?:client|server)\b|\.tcp\(\)|\bsocket\.(?:bind|connect)\b"
    r"|\bwebsockets?\.(?:connect|serve)\b|\bnew\s+WebSocket\b|\bWebSocketServer\b", re.I)
_EXECUTOR = (
    r"(?:subprocess\.(?:run|call|Popen|check_output|check_call|getoutput|getstatusoutput)"
    r"|os\.(?:system|popen|exec\w*|spawn\w*)|create_subprocess_(?:shell|exec)|pty\.spawn"
    r"|child_process\.\w+|\bexec(?:Sync|File|FileSync)?|\bspawn(?:Sync)?|\bproc_open"
    r"|\bshell_exec|\bpassthru|\bsystem|\bpopen|IO\.popen|Open3\.\w+|io\.popen|os\.execute"
    r"|Invoke-Expression|\biex|Start-Process|getRuntime\(\)\.exec|ProcessBuilder"
    r"|Deno\.(?:run|Command)|Bun\.spawn\w*|exec\.Command|\beval|\bexec)")
# An executor handed a value the program computed: a variable, the connection's bytes.
_DYNAMIC = re.compile(rf"{_EXECUTOR}\s*(?:\(\s*|\s*)(?:\[\s*)?(?:\{{\*\}})?(?![\"'`\]\)])"
                      r"[$@]?(?P<arg>[A-Za-z_]\w*)", re.I)
# Values a program reads from a connection: assigned from a read, a loop over one, a
# callback's message. Perl's and Ruby's ``$_`` holds the last line read.
_READ = (r"(?:recv\w*|readline|readLine|ReadLine|read|gets|receive|getline|rfile|GetString"
         r"|ReadString)\b")
_TAINT = (
    re.compile(rf"(?:\$|\b)(\w+)\s*(?::=|=(?!=))\s*[^\n;]*?{_READ}"),
    re.compile(rf"\bfor\s+(\w+)\s+in\s+[^\n:]*{_READ}"),
    re.compile(r"\bgets\s+\$\w+\s+(\w+)|getline\s+(\w+)"),
    re.compile(r"(?:on\(\s*['\"](?:data|message)['\"]\s*,\s*|on(?:message|data)\s*=\s*)"
               r"(?:async\s+)?(?:function\s*)?\(?\s*(\w+)"),
)
# A web handler's request input handed straight to an executor: a web shell.
_WEB_INPUT = (r"(?:request\.(?:args|form|json|data|values|get_json|GET|POST|query_params)"
              r"|req\.(?:query|body|params)|\$_(?:GET|POST|REQUEST|COOKIE)|params\[)")
_WEB_SHELL = re.compile(rf"{_EXECUTOR}\s*\(?\s*\[?\s*{_WEB_INPUT}", re.I)
# An executor handed a shell to run (``spawn('sh')``, ``proc_open("sh", …)``) with no script.
_SHELL_NAME = (r"(?:/(?:usr/)?bin/)?(?:(?:ba|z|da|k|c|tc)?sh|cmd(?:\.exe)?|powershell(?:\.exe)?"
               r"|pwsh)")
_SPAWNS_SHELL = re.compile(
    rf"{_EXECUTOR}\s*\(\s*\[?\s*['\"]{_SHELL_NAME}['\"]\s*(?:\]|\)|,(?!\s*\[?\s*['\"][^-'\"]))"
    # awk: lines printed into a shell; Perl/Ruby: backticks around a variable
    rf"|\|\s*\"{_SHELL_NAME}\"|`\s*(?:\$\w+|#\{{\w+\}})\s*`"
    # a shell wired to a descriptor the program opened (``sh -i <&3 >&3``)
    rf"|['\"]{_SHELL_NAME}\s+-i\b[^'\"]*<&\s*\d", re.I)
# Text fetched over HTTP, in any language; a raw socket spoken HTTP to is a fetch too.
_FETCH = re.compile(r"urlopen|urllib|requests\.(?:get|post)|httpx\.|https?\.get\(|\bfetch\("
                    r"|axios|Net::HTTP|open-uri|LWP|HTTP::Tiny|DownloadString|WebClient"
                    r"|Invoke-(?:WebRequest|RestMethod)|socket\.http|\bhttp\.request\("
                    r"|file_get_contents\(\s*['\"]https?:|curl_exec|http\.Get\("
                    r"|\"GET\s+/|'GET\s+/", re.I)
# Fetched text evaluated as code: ``load(body)()``, a dynamic ``import()`` of it.
_EVALUATES = re.compile(r"(?<![.\w])load\s*\(\s*\w|\bimport\(\s*['\"`]data:|\bnew\s+Function\b"
                        r"|\bexec_module\b|\bloadstring\b|\bvm\.run\w*", re.I)
# awk: a coprocess (``cmd |& getline``) on a name other than the socket's is a command run.
_AWK_SOCKET = re.compile(r"(\w+)\s*=\s*\"/inet\d?/")
_AWK_COPROCESS = re.compile(r"\(?\s*(\w+)\s*\|&\s*getline")


def _awk_runs(text: str) -> bool:
    sockets = set(_AWK_SOCKET.findall(text))
    return bool(sockets) and any(name not in sockets for name in _AWK_COPROCESS.findall(text))


def program_found(text: str) -> Iterator[Found]:
    """What one program (a fenced block, an inline one-liner) grants by its structure."""
    shell = bool(_SPAWNS_SHELL.search(text))
    read = _tainted(text)
    fed = any(m.group("arg") in read for m in _DYNAMIC.finditer(text))
    if _CONNECT.search(text) and (shell or fed or _awk_runs(text)):
        yield "open_shell", _port(text)
    elif _WEB_SHELL.search(text):
        yield "open_shell", "a web endpoint"
    if _FETCH.search(text) and (shell or _EVALUATES.search(text) or _fed_to_shell(text)):
        host = re.search(r"://([^/\s'\")]+)|/inet\d?/\w+/\d+/([^/\s\"]+)", text)
        target = (host.group(1) or host.group(2)).lower() if host else "fetched content"
        yield "run_fetched_code", target


def _tainted(text: str) -> set[str]:
    """Names holding what a connection brought, one assignment deep (``cmd = data.decode()``)."""
    names = {n for pattern in _TAINT for m in pattern.finditer(text) for n in m.groups() if n}
    if re.search(r"<\$?\w*>|\bgets\b", text):
        names.add("_")
    for m in re.finditer(r"(?:\$|\b)(\w+)\s*(?::=|=(?!=))\s*([^\n;]+)", text):
        if set(re.findall(r"\w+", m.group(2))) & names:
            names.add(m.group(1))
    return names


def _fed_to_shell(text: str) -> bool:
    """An interpreter given the fetched text as its input (``run(['bash'], input=x)``)."""
    return bool(re.search(rf"['\"]{_SHELL_NAME}['\"]\s*\]?\s*,\s*input\s*=", text, re.I))


def _port(text: str) -> str:
    m = re.search(r"/inet\d?/\w+/(\d{2,5})/|[,( ](\d{3,5})\s*[,)]|:(\d{3,5})\b", text)
    port = next((g for g in m.groups() if g and g != "0"), "") if m else ""
    return f"port {port}" if port else "a network port"


_INLINE = re.compile(r"\b(?:python[\d.]*|perl|ruby|node|nodejs|php|lua[\d.]*|deno|bun|pwsh"
                     r"|powershell|tclsh|g?awk|mawk|nawk)\b[^`\n]*?(?:\s-[cer]\b|\s--eval\b"
                     r"|\s-command\b|\s'BEGIN|\s\"BEGIN|\seval\b)", re.I)


def inline_program(line: str) -> str:
    """The code an interpreter is handed inline on ``line`` (``ruby -e '…'``, ``awk 'BEGIN…'``),
    read whole even where the markdown around it cuts it into code spans."""
    m = _INLINE.search(line)
    return line[m.start():] if m else ""
