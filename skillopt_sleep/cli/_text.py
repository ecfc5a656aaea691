"""Docstrings as users read them: in ``--help`` and in what MCP clients show for a tool."""

from __future__ import annotations

import inspect
import re

_MARKUP = re.compile(r"\[/?(?:bold|dim|italic|underline|red|green|yellow|blue|cyan|magenta)"
                     r"(?: [a-z]+)*\]")


def plain_help(doc: str | None) -> str | None:
    """A docstring as help shows it: each paragraph on one line (the terminal or the
    client wraps it; a docstring's own line breaks would cut sentences in two), and no
    reST backticks or rich markup."""
    if not doc:
        return doc
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(_MARKUP.sub("", " ".join(p.split())).replace("``", "").replace("`", "")
                       for p in paragraphs)
