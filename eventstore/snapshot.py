"""Snapshots: a folded state at a seq, so loading never replays from seq 1.

A snapshot is a cache of a pure fold, never the source of truth: it records
the version of the rules code that made it, and a snapshot from other code is
ignored (the events are replayed instead).

The format is JSON, not pickle: reading a snapshot builds only the rules'
own frozen dataclasses and plain values, so whoever can write the store can
at worst make a load replay its events, never run code in the API's
processes. A state is a tree of
  * JSON scalars, and lists as JSON arrays;
  * ``{"t": [...]}`` a tuple (``{"s": [...]}`` one of scalars only), ``{"f": [...]}`` a frozenset, ``{"d": [[k, v], ...]}`` a dict
    (keys may be numbers);
  * ``{"c": "domain.table:Seat", "v": {field: value, ...}}`` a dataclass of a ``domain``
    module that is already loaded (nothing is imported because a snapshot names it);
  * ``{"g": "schafkopf"}`` the game's rules object, by its registered name.
The document is ``{"format": "stich-snapshot", "version": 1, "code": …, "seq": …,
"head": …, "state": …}``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import domain
from domain.game import Game
from domain.registry import all_games

FORMAT, VERSION = "stich-snapshot", 1


def _rules_code_version() -> str:
    digest = hashlib.sha256()
    root = Path(domain.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CODE_VERSION = _rules_code_version()
GAMES = all_games()


class BadSnapshot(Exception):
    pass


def dump(seq: int, state, head: str | None) -> bytes:
    document = {"format": FORMAT, "version": VERSION, "code": CODE_VERSION, "seq": seq, "head": head,
                "state": _encode(state)}
    return json.dumps(document, separators=(",", ":")).encode()


def load(blob: bytes | None):
    """(seq, state, head hash) from a snapshot made by this code, else None."""
    if not blob:
        return None
    try:
        document = json.loads(blob)
        if (not isinstance(document, dict) or document.get("format") != FORMAT
                or document.get("version") != VERSION or document.get("code") != CODE_VERSION):
            return None
        return document["seq"], _decode(document["state"]), document["head"]
    except Exception:  # a snapshot is only a cache: never fail a load over it (older ones were pickled)
        return None


def _encode(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, tuple):
        if all(type(item) in _SCALARS for item in value):  # hands and tricks of card codes: read back at once
            return {"s": list(value)}
        return {"t": [_encode(item) for item in value]}
    if isinstance(value, frozenset):
        return {"f": [_encode(item) for item in value]}
    if isinstance(value, dict):
        return {"d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, Game):
        return {"g": value.name}
    cls = type(value)
    shape = _SHAPES.get(cls) or _shape(cls)
    return {"c": shape[0], "v": {name: _encode(getattr(value, name)) for name in shape[1]}}


_SCALARS = frozenset({str, int, bool, float, type(None)})
_SHAPES: dict[type, tuple[str, tuple[str, ...]]] = {}  # a rules dataclass: its name and its fields' names
_FAST: dict[type, frozenset[str]] = {}  # the classes built without __init__ (see domain/frozen.py): their fields
_set = object.__setattr__


def _shape(cls: type) -> tuple[str, tuple[str, ...]]:
    if not (dataclasses.is_dataclass(cls) and cls.__module__.startswith("domain.")):
        raise TypeError(f"a snapshot cannot hold {cls.__qualname__}")
    shape = _SHAPES[cls] = (f"{cls.__module__}:{cls.__qualname__}", tuple(cls.__dataclass_fields__))
    return shape


def _decode(value):
    if not isinstance(value, (dict, list)):
        return value
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if "s" in value:
        return tuple(value["s"])
    if "t" in value:
        return tuple(_decode(item) for item in value["t"])
    if "f" in value:
        return frozenset(_decode(item) for item in value["f"])
    if "d" in value:
        return {_decode(k): _decode(v) for k, v in value["d"]}
    if "g" in value:
        return GAMES[value["g"]]
    if "c" in value:
        cls = _dataclass(value["c"])
        fields = {name: _decode(item) for name, item in value["v"].items()}
        if _FAST.get(cls) == fields.keys():  # as domain.frozen copies a state: no __init__ call
            new = object.__new__(cls)
            _set(new, "__dict__", fields)
            return new
        return cls(**fields)  # __init__ checks the names and __post_init__ derives, as when folded
    raise BadSnapshot(f"unknown node {sorted(value)}")


_CLASSES: dict[str, type] = {}


def _dataclass(name: str) -> type:
    found = _CLASSES.get(name)
    return found if found is not None else _find_dataclass(name)


def _find_dataclass(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name) if module_name.startswith("domain.") else None
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if not (isinstance(found, type) and dataclasses.is_dataclass(found)):
        raise BadSnapshot(f"{name} is not a rules dataclass")
    if found not in _FAST and not hasattr(found, "__post_init__"):
        _FAST[found] = frozenset(found.__dataclass_fields__)
    _CLASSES[name] = found
    return found
