"""Snapshots: a folded state at a seq, so loading never replays from seq 1.

A snapshot is a cache of a pure fold, never the source of truth: it records
the version of the rules code that made it, and a snapshot from other code is
ignored (the events are replayed instead). Snapshots are pickled; they live in
the same trusted Redis as the events and the RQ jobs (which RQ pickles too).
"""
from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import domain


def _rules_code_version() -> str:
    digest = hashlib.sha256()
    root = Path(domain.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CODE_VERSION = _rules_code_version()


def dump(seq: int, state, head: str | None) -> bytes:
    return pickle.dumps((CODE_VERSION, seq, state, head), protocol=pickle.HIGHEST_PROTOCOL)


def load(blob: bytes | None):
    """(seq, state, head hash) from a snapshot made by this code, else None."""
    if not blob:
        return None
    try:
        version, seq, state, head = pickle.loads(blob)
    except Exception:  # a snapshot is only a cache: never fail a load over it (older ones had no head)
        return None
    if version != CODE_VERSION:
        return None
    return seq, state, head
