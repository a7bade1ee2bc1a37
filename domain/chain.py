"""The hash chain that makes a game's log tamper-evident.

Every stored event carries ``hash``, computed from the event's canonical
encoding, the previous event's ``hash`` and a salt only the game's seed gives:

    record    = {"actor", "at", "data", "seq", "type", "v", "visibility"}   (the stored event)
    canonical = JSON of record: keys sorted by code point at every level, no
                whitespace (separators "," and ":"), every non-ASCII character
                as a \\uXXXX escape (lower-case hex; UTF-16 surrogate pairs
                above U+FFFF), the escapes \\" \\\\ \\n \\r \\t \\b \\f and \\u00XX
                for other control characters, integers in plain decimal, true,
                false and null; no floats occur (``canonical`` refuses one)
    salt(seq) = HMAC-SHA256(key = seed, message = "stich-chain-v1|" + seq in decimal)
    hash(seq) = hex SHA-256(bytes of hash(seq - 1) || salt(seq) || canonical)

``hash(0)``, which the first event chains from, is ``GENESIS``: 32 zero bytes.
``seed`` is the game's 32-byte secret seed, revealed by its last event.

Why a salt: an event's data may hold hidden cards (a seat's hand), and a bare
SHA-256 of a hand can be found by trying every hand. Salted with the secret
seed, a hash tells nothing until the game ends; then anyone can recompute the
whole chain, and the head hash published while the game ran (``head`` in the
game's summary) pins every event before it.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any, Mapping

GENESIS = "0" * 64
RECORD_KEYS = ("actor", "at", "data", "seq", "type", "v", "visibility")


class NotCanonical(ValueError):
    """A value the canonical encoding has no form for (a float, a non-string key)."""


def _check(value: Any) -> None:
    if isinstance(value, float):
        raise NotCanonical(f"a float ({value!r}) has no canonical form; events hold integers")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonical(f"object key {key!r} is not a string")
            _check(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check(item)


def canonical(record: Mapping[str, Any]) -> bytes:
    """The canonical bytes of an event record (its ``RECORD_KEYS`` only)."""
    subset = {key: record[key] for key in RECORD_KEYS}
    _check(subset)
    return json.dumps(subset, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def salt(seed_hex: str, seq: int) -> bytes:
    return hmac.new(bytes.fromhex(seed_hex), f"stich-chain-v1|{seq}".encode(), hashlib.sha256).digest()


def link(previous: str, record: Mapping[str, Any], seed_hex: str) -> str:
    """The hash of ``record`` (an event with ``seq``) following an event whose hash is ``previous``."""
    return link_canonical(previous, record["seq"], canonical(record), seed_hex)


def link_canonical(previous: str, seq: int, body: bytes, seed_hex: str) -> str:
    """``link`` for a record already in canonical bytes (the writer reuses them as the payload)."""
    digest = hashlib.sha256(bytes.fromhex(previous))
    digest.update(salt(seed_hex, seq))
    digest.update(body)
    return digest.hexdigest()
