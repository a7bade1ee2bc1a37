"""Imported games by their head hash, so the same export is stored once.

A verified export's head hash names its whole history (the chain links every
event to the one before it and to the game's seed), so two exports with one
head are the same game. The first import of a head stores it and records the
new id here; every later import of that head answers that game.

One key per head, ``<prefix>:import:<head>``: while an import is being stored
it holds ``pending`` (with an expiry, so an importer that died frees it), then
the game's id, for good.
"""
from __future__ import annotations

import redis

PENDING = "pending"
PENDING_S = 120  # an import stores its events in seconds; a claim older than this was abandoned


class ImportIndex:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.prefix = prefix

    def _key(self, head: str) -> str:
        return f"{self.prefix}:import:{head}"

    def claim(self, head: str) -> str | None:
        """None when this caller may store the game (it holds the claim until ``record`` or
        ``release``); else what the head already names: a game id, or ``PENDING``."""
        if self.redis.set(self._key(head), PENDING, nx=True, ex=PENDING_S):
            return None
        found = self.redis.get(self._key(head))
        if found is None:  # the other claim expired between the two calls: try once more
            return None if self.redis.set(self._key(head), PENDING, nx=True, ex=PENDING_S) else PENDING
        return found.decode() if isinstance(found, bytes) else found

    def record(self, head: str, game_id: str) -> None:
        self.redis.set(self._key(head), game_id)  # no expiry: the game is kept for good

    def release(self, head: str) -> None:
        """Give a claim back after a failed store, unless it already names a game."""
        key = self._key(head)
        found = self.redis.get(key)
        if found in (PENDING, PENDING.encode()):
            self.redis.delete(key)
