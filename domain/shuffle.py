"""The documented keyed shuffle that makes deals verifiable.

Deal k of a game uses, for each named deck (e.g. ``spice``):

    key   = HMAC-SHA256(seed, "stich-deal-v1|" + k + "|" + deck name + "|" + entropy)
    bytes = SHA256(key || counter_be32) for counter = 0, 1, 2, ...  (a byte stream)

and a Fisher–Yates shuffle of the deck in its canonical order (the order the
game lists it), drawing for i = n-1 down to 1 a uniform j in [0, i] by
rejection sampling of 4-byte big-endian integers from that stream. ``seed`` is
the 32 secret bytes whose SHA-256 the first event publishes; ``entropy`` is the
seats' public entropy strings joined with "," in seat order.

Anyone holding the revealed seed can recompute every deal with this file alone.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Iterator, Sequence

from . import errors
from .event import Event


def _byte_stream(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
        yield from block
        counter += 1


def _uniform(stream: Iterator[int], bound: int) -> int:
    """A uniform integer in [0, bound) by rejection sampling 32-bit draws."""
    limit = (1 << 32) - ((1 << 32) % bound)
    while True:
        x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
        if x < limit:
            return x % bound


def deal_key(seed: bytes, deal: int, deck_name: str, entropy: str = "") -> bytes:
    message = f"stich-deal-v1|{deal}|{deck_name}|{entropy}".encode()
    return hmac.new(seed, message, hashlib.sha256).digest()


def keyed_shuffle(items: Sequence[str], key: bytes) -> list[str]:
    out = list(items)
    stream = _byte_stream(key)
    for i in range(len(out) - 1, 0, -1):
        j = _uniform(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def seed_commitment(seed: bytes) -> str:
    """What the first event publishes: hex SHA-256 of the secret seed."""
    return hashlib.sha256(seed).hexdigest()


def seed_revealed(seed_hex: str, commitment: str) -> Event:
    """The ``SeedRevealed`` event of a finished game or tournament, for the seed it committed to."""
    if seed_commitment(bytes.fromhex(seed_hex)) != commitment:
        raise errors.InvalidCommand("seed does not match the published commitment")
    return Event("SeedRevealed", {"seed": seed_hex})
