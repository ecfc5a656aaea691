"""What ``mine`` skips on its way to a pass that adds 1 % to a long history, checked
against what it replaces: options coerced without typer's pydantic adapters give what
the adapters give, and the JSON printer's chunked redaction prints what redacting every
string alone prints."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param, resolve_type_descriptor
from typer.models import OptionInfo

from skillopt_sleep.cli import _build, _json
from skillopt_sleep.secrets import redact_tree
from tests._secret_shapes import BENIGN, shapes


@pytest.mark.parametrize(("annotation", "value"), [
    (str, "hashing"), (str, ""), (int, "2"), (int, "-7"), (float, "0.3"), (float, "1e-3"),
    (float, ".5"), (float, "+2."), (Path, "requests.jsonl"), (Path, "/tmp/x/../y"),
])
def test_plain_coercion_gives_what_typer_gives(annotation: Any, value: str) -> None:
    descriptor = resolve_type_descriptor(annotation, OptionInfo())
    plain = _build._plain_value(descriptor, value, None, None)  # type: ignore[arg-type]
    typer_own = build_runtime_param(descriptor)._coerce_value(value, None, None)  # type: ignore[arg-type]
    assert plain is not _build._NOT_PLAIN
    assert plain == typer_own and type(plain) is type(typer_own)


@pytest.mark.parametrize(("annotation", "value"), [
    (int, "2.5"), (int, " 2"), (float, "abc"), (float, "1_0"), (float, "nan"),
    (bool, "true"), (list[str], "x"),
])
def test_anything_else_is_left_to_typer(annotation: Any, value: str) -> None:
    descriptor = resolve_type_descriptor(annotation, OptionInfo())
    assert _build._plain_value(descriptor, value, None, None) is _build._NOT_PLAIN  # type: ignore[arg-type]


def test_a_bounded_number_is_left_to_typer() -> None:
    descriptor = resolve_type_descriptor(int, OptionInfo(min=1))
    assert _build._plain_value(descriptor, "0", None, None) is _build._NOT_PLAIN  # type: ignore[arg-type]
    with pytest.raises(BadParameter):
        build_runtime_param(descriptor)._coerce_value("0", None, None)  # type: ignore[arg-type]


def _tree(seed: int) -> dict[str, Any]:
    """A ``mine``-like output with secrets among thousands of harmless strings."""
    rng = random.Random(seed)
    secrets = [text for _kind, text, _value in shapes(seed)]
    families = []
    for f in range(60):
        members = [f"claude-code:s{rng.randrange(10**6)}:{rng.randrange(9)}" for _ in range(40)]
        if f % 7 == 0:  # a secret hidden among the ids, and one as a representative
            members.insert(rng.randrange(len(members)), rng.choice(secrets))
        families.append({"family_id": f"fam-{f:012x}", "project": "/srv/app",
                         "members": members, "split": "train", "new": f % 2 == 0,
                         "representative": rng.choice(secrets + BENIGN)})
    return {"families": families, "summary": {"requests": 2400, "password": "hunter2",
                                              "api_token": "x", "note": rng.choice(secrets)}}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chunked_redaction_prints_what_redacting_each_string_prints(seed: int) -> None:
    tree = _tree(seed)
    assert _json.redacted(tree) == redact_tree(tree)
    assert _json.redacted(tree) != tree  # the secrets were there, and were redacted


def test_chunked_redaction_keeps_a_tree_without_secrets() -> None:
    tree = {"members": [f"claude-code:s{i}:0" for i in range(500)], "text": BENIGN[:50]}
    assert _json.redacted(tree) == tree == redact_tree(tree)
