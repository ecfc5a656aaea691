"""Strings as a program builds them: a host split into parts is still the host it names.

A program may spell a host in pieces (``'collect' + '.sink' + '.net'``), join an array
(``'.'.join([...])``, ``[...].join('.')``, ``strings.Join``, ``-join``), format it
(``'%s.%s' % (...)``, ``'{}.{}'.format(...)``, ``Sprintf``, ``printf -v``) or keep the parts
in variables it interpolates later (``f'https://{host}/'``, ``"${BASE}${DOM}.io"``). The
readings here fold such constant expressions back into the literal they evaluate to,
coarsely and in any language, so the host rules read the folded text as they read any other.
Only constants are folded: a value read at run time (``os.environ['HOST']``) stays unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from skillopt_sleep.firewall.hosts import host_targets

_Q = r"(?:'[^'\\\n]*'|\"[^\"\\\n]*\")"
_LITS = rf"\s*{_Q}(?:\s*,\s*{_Q})*\s*,?\s*"
# Concatenation of two literals: ``+``, PHP/Perl ``.``, Lua ``..``, VB ``&``, D ``~``, or
# adjacency (Python, C); across lines only inside brackets, where Python allows it.
_CONCAT = re.compile(rf"({_Q})[ \t]*(?:\+|\.\.?|&|~)?\s*({_Q})(?!\s*:)")
_TIMES = re.compile(rf"\[(?P<lits>{_LITS})\]\s*\*\s*(?P<sep>{_Q})")  # Ruby's ``[…] * '.'``
_JOINS = (
    re.compile(rf"(?P<sep>{_Q})\s*\.\s*join\(\s*[\[(](?P<lits>{_LITS})[\])]\s*\)"),
    re.compile(rf"\[(?P<lits>{_LITS})\]\s*\.\s*join\(\s*(?P<sep>{_Q})\s*\)"),
    re.compile(rf"(?:strings\.Join|implode|join|table\.concat)\(\s*(?:\[\]string)?[\[{{(]"
               rf"(?P<lits>{_LITS})[\]}})]\s*,\s*(?P<sep>{_Q})\s*\)"),
    re.compile(rf"(?:implode|join)\(\s*(?P<sep>{_Q})\s*,\s*[\[(]?(?P<lits>{_LITS})[\])]?\)"),
    re.compile(rf"(?P<lits>{_Q}(?:\s*,\s*{_Q})+)\s+-join\s+(?P<sep>{_Q})", re.I),
    _TIMES,
)
_LIST_ASSIGN = re.compile(rf"(?m)^[ \t]*(?:(?:const|let|var|local|my)\s+)?(\$?[A-Za-z_]\w*)\s*"
                          rf"(?::=|=(?!=))\s*[\[({{](?P<lits>{_LITS})[\])}}]\s*;?[ \t]*$")
_WORDS_JOIN = re.compile(r"%[wW][\[(]([^\])]*)[\])]\s*\.\s*join\(\s*(" + _Q + r")\s*\)")
_PERCENT = re.compile(rf"({_Q})\s*%\s*\(({_LITS})\)|({_Q})\s*%\s*({_Q})")
_FORMAT = re.compile(rf"({_Q})\s*\.\s*format\(({_LITS})\)")
_SPRINTF = re.compile(rf"\b(?:fmt\.Sprintf|String\.format|sprintf|format)\(\s*({_Q})\s*,"
                      rf"({_LITS})\)")
_ASSIGN = re.compile(rf"(?m)^[ \t]*(?:(?:const|let|var|local|my|our|final|val)\s+)?"
                     rf"(\$?[A-Za-z_][\w]*)\s*(?::=|=(?!=))\s*({_Q})\s*;?[ \t]*$")
# A setting read with a constant default reaches the default unless configured.
_DEFAULT = re.compile(rf"(?m)^[ \t]*(?:(?:const|let|var)\s+)?([A-Za-z_]\w*)\s*=\s*[^\n]*?"
                      rf"(?:environ\.get|getenv|ENV\.fetch)\(\s*{_Q}\s*,\s*({_Q})\s*\)\s*$"
                      rf"|^[ \t]*(?:(?:const|let|var)\s+)?([A-Za-z_]\w*)\s*=\s*"
                      rf"process\.env\.\w+\s*(?:\?\?|\|\|)\s*({_Q})\s*;?\s*$")
_PAIR = re.compile(rf"(?m)^[ \t]*(\$?[A-Za-z_]\w*)\s*,\s*(\$?[A-Za-z_]\w*)\s*=\s*({_Q})\s*,"
                   rf"\s*({_Q})\s*$")
_TCL_SET = re.compile(r"(?m)^[ \t]*set\s+(\w+)\s+(\S+)\s*$")


def _constant(value: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: value


def _item(items: list[str]) -> Callable[[re.Match[str]], str]:
    return lambda m: items[int(m.group(1))] if int(m.group(1)) < len(items) else ""


def _text(literal: str) -> str:
    return literal[1:-1]


def _lits(group: str) -> list[str]:
    return [_text(q) for q in re.findall(_Q, group)]


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "") + "'"


def _fill(template: str, values: list[str], holder: str) -> str:
    for value in values:
        template = re.sub(holder, _constant(value), template, count=1)
    return template


def _fold_once(text: str) -> str:
    for pattern in _JOINS:
        text = pattern.sub(lambda m: _quoted(_text(m.group("sep")).join(_lits(m.group("lits")))),
                           text)
    text = _WORDS_JOIN.sub(lambda m: _quoted(_text(m.group(2)).join(m.group(1).split())), text)
    text = _PERCENT.sub(lambda m: _quoted(_fill(
        _text(m.group(1) or m.group(3)), _lits(m.group(2) or m.group(4)), r"%[sd]")), text)
    text = _FORMAT.sub(lambda m: _quoted(_fill(_text(m.group(1)), _lits(m.group(2)),
                                                r"\{\d*\}")), text)
    text = _SPRINTF.sub(lambda m: _quoted(_fill(_text(m.group(1)), _lits(m.group(2)),
                                                 r"%[sd]")), text)
    previous = ""
    while previous != text:
        previous, text = text, _CONCAT.sub(lambda m: _quoted(_text(m.group(1))
                                                             + _text(m.group(2))), text)
    return text


def _constants(text: str) -> dict[str, str]:
    found = {m.group(1): _text(m.group(2)) for m in _ASSIGN.finditer(text)}
    for m in _DEFAULT.finditer(text):
        found[m.group(1) or m.group(3)] = _text(m.group(2) or m.group(4))
    for m in _PAIR.finditer(text):
        found[m.group(1)], found[m.group(2)] = _text(m.group(3)), _text(m.group(4))
    for m in _TCL_SET.finditer(text):
        found.setdefault(m.group(1), m.group(2).strip("\"'{}"))
    return found


def _substitute(text: str, constants: dict[str, str]) -> str:
    """Each constant put where the program uses it: interpolated into a string, or as an
    operand of a concatenation or a call."""
    for name, value in constants.items():
        bare = re.escape(name.lstrip("$"))
        sigil = r"\$" if name.startswith("$") else ""
        # ``{name}``, ``${name}``, ``#{name}``, ``$name``, ``{$name}`` inside strings
        text = re.sub(rf"(?:[$#]?\{{\$?{bare}\}}|\${bare}\b)", _constant(value), text)
        # an operand: ``+ name +``, ``(name,``, ``, name)``
        text = re.sub(rf"(?<=[+(,.&]\s)\s*{sigil}{bare}\b(?!\s*[=(])|(?<=[+(,&])\s*{sigil}"
                      rf"{bare}\b(?!\s*[=(.])",
                      _constant(_quoted(value)), text)
    return text


def _lists(text: str) -> str:
    """A list of constants joined where it is used by name (``'.'.join(parts)``)."""
    for m in _LIST_ASSIGN.finditer(text):
        name, items = re.escape(m.group(1)), "[" + m.group("lits") + "]"
        used = rf"(?<=join\()\s*{name}\b(?=\s*[,)])|(?<!\w){name}(?=\s*(?:\.join\(|\*\s*['\"]))"
        text = re.sub(used, _constant(items), text)
    return text


def fold(code: str) -> str:
    """``code`` with its constant string expressions evaluated (coarsely, any language)."""
    text = _fold_once(_lists(code))
    for _ in range(2):
        constants = _constants(text)
        if not constants:
            break
        text = _fold_once(_substitute(text, constants))
    return text


_SH_ASSIGN = re.compile(r"(?:^|[;&|]\s*|\s)([A-Za-z_]\w*)=((?:'[^']*'|\"[^\"]*\"|[^\s;&|'\"])*)")
_SH_ARRAY = re.compile(r"(?:^|[;\s])([A-Za-z_]\w*)=\(([^)]*)\)")
_SH_FOR = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;\n]+?)\s*(?:;|\n)\s*do\b")
_SH_PRINTF = re.compile(r"\bprintf\s+-v\s+(\w+)\s+(" + _Q + r"|\S+)((?:\s+(?:" + _Q
                        + r"|[^\s;&|]+))*)")
_SH_PRINTF_SUB = re.compile(r"\$\(\s*printf\s+(" + _Q + r")((?:\s+(?:" + _Q
                            + r"|[^\s;&|)]+))*)\s*\)")


def _sh_words(text: str) -> list[str]:
    return [w.strip("'\"") for w in re.findall(r"'[^']*'|\"[^\"]*\"|\S+", text)]


def expand_shell(text: str) -> str:
    """Shell text with its variables expanded where their values are constants: plain and
    array assignments, ``printf -v``, ``$(printf …)``, a ``for`` loop's list."""
    values: dict[str, str] = {}
    text = _SH_PRINTF_SUB.sub(lambda m: _fill(_text(m.group(1)), _sh_words(m.group(2)),
                                              r"%[sd]"), text)
    for m in _SH_PRINTF.finditer(text):
        values[m.group(1)] = _fill(m.group(2).strip("'\""), _sh_words(m.group(3)), r"%[sd]")
    arrays = {m.group(1): _sh_words(m.group(2)) for m in _SH_ARRAY.finditer(text)}
    for m in _SH_ASSIGN.finditer(text):
        if m.group(1) not in arrays and "$(" not in m.group(2):
            values.setdefault(m.group(1), m.group(2).strip("'\""))
    for m in _SH_FOR.finditer(text):
        values.setdefault(m.group(1), m.group(2).split()[0])
    for name, items in arrays.items():
        text = re.sub(rf"\$\{{{name}\[(\d+)\]\}}", _item(items), text)
    for name, value in values.items():
        text = re.sub(rf"\$\{{{name}\}}|\${name}\b", _constant(value), text)
    return text


_VARIABLE_HOST = re.compile(r"^(?:\{\w+\}|\$\{?\w+\}?)(?: \(carrying data\))*$")


def resolved(text: str, shell: bool) -> set[str]:
    """Hosts ``text`` names only by a variable that it sets to a constant itself: the folded
    text names the host the variable holds instead."""
    built = expand_shell(text) if shell else fold(text)
    if built == text:
        return set()
    still = {t for t, _ in host_targets(built)}
    return {t for t, _ in host_targets(text) if _VARIABLE_HOST.match(t) and t not in still}
