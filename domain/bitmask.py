"""Sets of small integers (cards, seats, colours) as the bits of one int, for the simulators.

A hand of cards is one int: card ``i`` is in it when bit ``i`` is set. Copying a hand is
free (ints are immutable) and a legal set is a couple of ``&``, which is what lets a search
play hundreds of thousands of cards a second in pure Python.
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1 << 16)  # at most about 10 MB
def members(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask``, lowest first. Cached: a search meets the same hands and legal
    sets over and over, and a cache hit costs a twentieth of taking the bits apart."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)
