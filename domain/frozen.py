"""A fast ``dataclasses.replace`` for the frozen states every fold copies.

Folding a game applies thousands of events, each one a new immutable state.
``dataclasses.replace`` rebuilds the state through ``__init__`` with every
field (the states have up to 45), which took two thirds of a replay. The copy
here gives the new object a merged ``__dict__`` directly: the same fields, the
same frozen object, without the call. Classes that compute fields after
``__init__`` (``__post_init__``) keep the standard path, so nothing derived
is ever copied stale.
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")
_FIELDS: dict[type, frozenset[str] | None] = {}  # per class: its field names, or None for the standard path
_set = object.__setattr__  # frozen dataclasses refuse their own __setattr__, even for a fresh copy


def replace(obj: T, **changes: Any) -> T:
    cls = type(obj)
    try:
        fields = _FIELDS[cls]
    except KeyError:
        fields = _FIELDS[cls] = (None if hasattr(cls, "__post_init__")
                                 else frozenset(cls.__dataclass_fields__))
    if fields is None:
        return dataclasses.replace(obj, **changes)
    if not fields.issuperset(changes):
        raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - fields)}")
    new = object.__new__(cls)
    _set(new, "__dict__", {**obj.__dict__, **changes})
    return new
