"""JSON round-trip for the dataclass records: ``to_dict`` and ``from_dict``.

Dataclasses are walked by their type hints, so every record is plain JSON on disk (the
archive, the staging manifest, ``--json`` output) and comes back as the same record.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from datetime import datetime
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


def to_dict(obj: Any) -> Any:
    """Turn a record (or a structure of records) into JSON-ready values.

    A field marked ``metadata={"transient": True}`` is left out: it is handed from one stage
    to the next in memory and never stored or shown.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not f.metadata.get("transient")}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_dict(v) for v in obj]
    return obj


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def from_dict(cls: type[T], data: Any) -> T:
    """Rebuild a record of type ``cls`` from ``to_dict`` output."""
    return typing.cast(T, _convert(cls, data))


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return [_convert(item, v) for v in value]
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        return tuple(_convert(a, v) for a, v in zip(args, value, strict=False))
    if origin is dict:
        _, val_tp = get_args(tp) or (Any, Any)
        return {k: _convert(val_tp, v) for k, v in value.items()}
    if origin is typing.Literal or tp is Any:
        return value
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            hints = _hints(tp)
            names = {f.name for f in dataclasses.fields(tp) if f.init}
            kwargs = {k: _convert(hints[k], v) for k, v in value.items() if k in names}
            return tp(**kwargs)
        if issubclass(tp, enum.Enum):
            return tp(value)
        if tp is datetime:
            return datetime.fromisoformat(value)
        if tp is float and isinstance(value, int):
            return float(value)
    return value
